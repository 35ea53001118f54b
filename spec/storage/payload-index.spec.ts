import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import type { CollectionConfig, Payload, PointId, PointRecord } from '../../storage/events/types.js';
import { PayloadIndex } from '../../storage/views/payload-index.js';
import { LIVE } from '../../storage/views/point-store.js';
import { textTokens } from '../../storage/text-tokens.js';

describe('storage/views: the payload equality index', () => {
  it('answers every lookup as a scan of the payloads would, through adds and removes that take values from one point to many and back', () => {
    const index = new PayloadIndex();
    const held = new Map<number, Payload>();
    let seed = 7;
    const next = (n: number): number => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) % n);
    const scan = (path: string, value: string | number): number[] => [...held].filter(([, p]) => p[path] === value).map(([slot]) => slot).sort((a, b) => a - b);
    const sorted = (slots: ReadonlySet<number>): number[] => [...slots].sort((a, b) => a - b);
    for (let step = 0; step < 4000; step++) {
      const slot = next(300);
      const old = held.get(slot);
      if (old) index.remove(slot, old);
      if (next(4) === 0) held.delete(slot);
      else {
        // Few shared values (`kind`) and mostly unique ones (`n`), so values move between one slot and several both ways.
        const payload: Payload = { kind: `k${next(5)}`, n: next(600) };
        index.add(slot, payload);
        held.set(slot, payload);
      }
      if (step % 97 !== 0) continue;
      for (let k = 0; k < 5; k++) expect(sorted(index.lookup('kind', `k${k}`)), `kind k${k} at step ${step}`).to.deep.equal(scan('kind', `k${k}`));
      for (let n = 0; n < 600; n += 7) expect(sorted(index.lookup('n', n)), `n ${n} at step ${step}`).to.deep.equal(scan('n', n));
      const small = [...held].filter(([, p]) => (p.n as number) < 50).map(([s]) => s).sort((a, b) => a - b);
      expect(sorted(index.lookupWhere('n', (v) => (v as number) < 50))).to.deep.equal(small);
      expect(index.distinctValues('n')).to.equal(new Set([...held.values()].map((p) => p.n)).size);
    }
  });

  it('indexes a point whose payload holds one value twice (an array) once', () => {
    const index = new PayloadIndex();
    index.add(4, { tags: ['a', 'a'] });
    expect([...index.lookup('tags', 'a')]).to.deep.equal([4]);
    index.remove(4, { tags: ['a', 'a'] });
    expect(index.lookup('tags', 'a').size).to.equal(0);
    expect(index.distinctValues('tags')).to.equal(0);
  });
});

describe('storage: a text index declared over many stored points', () => {
  it('is built a few slots a turn of the indexer, answering no lookup until whole, and holds the writes made meanwhile', () => {
    const config: CollectionConfig = { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 16, ml: 1 / Math.log(8) };
    const c = new Collection('t', config, 3);
    let seed = 11;
    const next = (n: number): number => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) % n);
    const words = ['fox', 'dog', 'quick', 'lazy', 'brown', 'river', 'stone', 'cloud'];
    const point = (id: number): PointRecord => ({ id, vector: Float32Array.of(id % 7, id % 5), payload: { body: Array.from({ length: 3 }, () => words[next(words.length)]).join(' ') }, labels: [] });
    c.upsert(Array.from({ length: 3_000 }, (_, id) => point(id)));
    while (c.indexSome(1000));
    c.declareIndex('body', { type: 'text', params: {} });
    expect(c.optimizing, 'building: the collection optimizes (status yellow)').to.equal(true);
    const expected = (word: string): PointId[] => {
      const ids: number[] = [];
      for (let slot = 0; slot < c.store.slotCount; slot++) {
        if (c.store.state[slot] === LIVE && textTokens(String(c.store.payloads[slot]!.body)).includes(word)) ids.push(Number(c.store.idOf(slot)));
      }
      return ids.sort((a, b) => a - b);
    };
    const lookup = (word: string): PointId[] | null => {
      const slots = c.payloadIndex.textLookup('body', [word]);
      return slots && [...slots].map((s) => Number(c.store.idOf(s))).sort((a, b) => a - b);
    };
    let turns = 0;
    while (c.optimizing) {
      expect(lookup('fox'), `no lookup while being built (turn ${turns})`).to.equal(null);
      // Writes meanwhile, to slots the build has passed and to slots it has not: new payloads, new points, deletes.
      if (turns % 5 === 0) c.upsert([point(next(3_000)), point(3_000 + turns)]);
      if (turns % 7 === 0) c.remove(next(3_000));
      c.indexSome(0);
      turns++;
    }
    expect(turns, 'turns of the indexer the build took (3,000 slots and more, 32 a turn)').to.be.within(90, 200);
    for (const word of words) expect(lookup(word), `"${word}" once whole`).to.deep.equal(expected(word));
    expect(c.payloadIndex.holders('body'), 'every live point holds the field').to.equal(c.store.liveCount);
    c.upsert([point(5), point(9_999)]);
    c.remove(7);
    for (const word of words) expect(lookup(word), `"${word}" after more writes`).to.deep.equal(expected(word));
    expect(c.payloadIndex.holders('body')).to.equal(c.store.liveCount);
  });

  it('counts the points holding a declared field (payload_schema points) as payloads change, counting them first in steps', () => {
    const c = new Collection('t', { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 16, ml: 1 / Math.log(8) }, 3);
    let seed = 5;
    const next = (n: number): number => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) % n);
    // A third without the field, a sixth holding null or an empty list (not counted), the rest a value or a list of them.
    const payload = (): Payload => [{}, {}, { kind: null }, { kind: [] }, { kind: 'a' }, { kind: ['b', 'a'] }][next(6)]!;
    const point = (id: number): PointRecord => ({ id, vector: Float32Array.of(id % 3, id % 11), payload: payload(), labels: [] });
    c.upsert(Array.from({ length: 6_000 }, (_, id) => point(id)));
    const holding = (): number => {
      let n = 0;
      for (let slot = 0; slot < c.store.slotCount; slot++) if (c.store.state[slot] === LIVE && [].concat((c.store.payloads[slot]!.kind ?? []) as never).length > 0) n++;
      return n;
    };
    c.declareIndex('kind', { type: 'keyword', params: {} });
    let turns = 0;
    while (c.optimizing) {
      expect(c.payloadIndex.holders('kind'), 'only the points counted so far').to.be.at.most(holding());
      c.upsert([point(next(6_000)), point(6_000 + turns)]);
      c.remove(next(6_000));
      c.indexSome(0);
      turns++;
    }
    expect(turns, '6,000 slots and more, 1,024 a turn').to.be.within(6, 10);
    expect(c.payloadIndex.holders('kind')).to.equal(holding());
    for (let id = 0; id < 500; id++) c.setPayload(id, payload(), []);
    for (let id = 500; id < 700; id++) c.remove(id);
    expect(c.payloadIndex.holders('kind'), 'after more writes').to.equal(holding());
    c.declareIndex('kind', null);
    expect(c.payloadIndex.holders('kind'), 'a field no longer declared').to.equal(0);
  });

  it('is built at once over a few points, and answers at once', () => {
    const c = new Collection('t', { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 16, ml: 1 / Math.log(8) }, 3);
    c.upsert([{ id: 1, vector: Float32Array.of(0, 1), payload: { body: 'Quick fox' }, labels: [] }, { id: 2, vector: Float32Array.of(1, 0), payload: { body: 'lazy dog' }, labels: [] }]);
    c.declareIndex('body', { type: 'text', params: {} });
    expect(c.optimizing).to.equal(false);
    expect([...c.payloadIndex.textLookup('body', ['fox'])!].map((s) => c.store.idOf(s))).to.deep.equal([1]);
  });
});
