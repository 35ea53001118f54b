import { expect } from 'chai';
import fc from 'fast-check';
import { canonicalUuid, comparePointIds, uuidFromBytes, uuidFromWords, uuidIntoBytes, uuidIntoWords } from '../../storage/point-id.js';
import { ByteReader } from '../../storage/codec/byte-reader.js';
import { ByteWriter } from '../../storage/codec/byte-writer.js';
import { runNow } from '../../storage/codec/slices.js';
import { LIVE, PointStore } from '../../storage/views/point-store.js';

const uuid = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => uuidFromBytes(b));

describe('storage/point-id: integer and UUID point ids', () => {
  it('makes any spelling of a UUID canonical: lowercase and hyphenated', () => {
    expect(canonicalUuid('0F8FAD5B-D9CB-469F-A165-70867728950E')).to.equal('0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(canonicalUuid('0f8fad5bd9cb469fa16570867728950e')).to.equal('0f8fad5b-d9cb-469f-a165-70867728950e');
    for (const bad of ['', '0f8fad5b-d9cb-469f-a165-70867728950', '0f8fad5bd9cb-469f-a165-70867728950e', 'g'.repeat(32), '{0f8fad5b-d9cb-469f-a165-70867728950e}', ' 0f8fad5bd9cb469fa16570867728950e']) {
      expect(canonicalUuid(bad), bad).to.equal(null);
    }
  });

  it('round-trips UUIDs through bytes and words, and orders them as their bytes', () => {
    fc.assert(
      fc.property(uuid, uuid, (a, b) => {
        const bytes = new Uint8Array(20);
        uuidIntoBytes(a, bytes, 3);
        expect(uuidFromBytes(bytes, 3)).to.equal(a);
        const words = new Uint32Array(6);
        uuidIntoWords(a, words, 1);
        expect(uuidFromWords(words, 1)).to.equal(a);
        const ba = new Uint8Array(16);
        const bb = new Uint8Array(16);
        uuidIntoBytes(a, ba);
        uuidIntoBytes(b, bb);
        const byBytes = Math.sign(Buffer.compare(ba, bb));
        expect(Math.sign(comparePointIds(a, b))).to.equal(byBytes);
      }),
    );
  });

  it('sorts integers before UUIDs', () => {
    const ids = ['ffffffff-0000-4000-8000-000000000000', 5, '00000000-0000-4000-8000-000000000000', 2 ** 53 - 1, 0];
    expect(ids.sort(comparePointIds)).to.deep.equal([0, 5, 2 ** 53 - 1, '00000000-0000-4000-8000-000000000000', 'ffffffff-0000-4000-8000-000000000000']);
  });

  it('a store keeps both kinds in slots, answers them back, and walks them in id order across growth and reuse', () => {
    const store = new PointStore(2);
    const ids = [...Array.from({ length: 30 }, (_, i) => `${(0xf0 - i).toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`), ...Array.from({ length: 30 }, (_, i) => 1000 - i)];
    for (const id of ids) store.add(id, Float32Array.of(1, 2), { id }, []);
    for (const id of ids.filter((_, i) => i % 3 === 0)) store.release(store.remove(id));
    for (const id of ['0a000000-0000-4000-8000-000000000000', 7]) store.add(id, null, {}, []);
    const live = [...ids.filter((_, i) => i % 3 !== 0), '0a000000-0000-4000-8000-000000000000', 7];
    expect(store.sortedIds()).to.deep.equal([...live].sort(comparePointIds));
    for (const id of live) expect(store.idOf(store.slotOf(id))).to.equal(id);
    expect(store.lowerBound(1000)).to.equal(live.filter((id) => typeof id === 'number' && id < 1000).length);
    expect(store.lowerBound('00000000-0000-0000-0000-000000000000')).to.equal(live.filter((id) => typeof id === 'number').length);
  });

  it('counts its live points that have a vector as they are added, replaced, removed and released, and when read from a snapshot', () => {
    const scan = (store: PointStore) => {
      let n = 0;
      for (let slot = 0; slot < store.slotCount; slot++) if (store.state[slot] === LIVE && store.hasVector[slot] === 1) n++;
      return n;
    };
    const store = new PointStore(2);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('add', 'remove', 'release'), fc.integer({ min: 0, max: 40 }), fc.boolean()), { maxLength: 200 }), (steps) => {
        for (const [op, id, withVector] of steps) {
          const slot = store.slotOf(id);
          if (op === 'add') {
            if (slot >= 0) store.remove(id);
            store.add(id, withVector ? Float32Array.of(id, 1) : null, {}, []);
          } else if (slot >= 0) {
            const removed = store.remove(id);
            if (op === 'release') store.release(removed);
          }
          expect(store.liveVectors).to.equal(scan(store));
        }
      }),
      { numRuns: 30 },
    );
    const w = new ByteWriter();
    const captured = store.capture();
    runNow(captured.write(w));
    captured.release();
    const loaded = new PointStore(2);
    loaded.readFrom(new ByteReader(w.finish()), true);
    expect(loaded.liveVectors).to.equal(scan(store));
  });

  it('walks integer ids in order whether they were written in order (no sort needed) or not, and after one moves to a new slot', () => {
    const store = new PointStore(2);
    for (let id = 0; id < 50; id++) store.add(id * 3, Float32Array.of(id, 1), {}, []);
    expect(store.sortedIds()).to.deep.equal(Array.from({ length: 50 }, (_, id) => id * 3));
    // Slots not released: the points written next take new slots, after every other.
    store.remove(0);
    store.add(0, Float32Array.of(9, 9), {}, []);
    store.add(1, null, {}, []);
    expect(store.sortedIds()).to.deep.equal([0, 1, ...Array.from({ length: 49 }, (_, id) => (id + 1) * 3)]);
    store.remove(147);
    store.add(148, null, {}, []);
    expect(store.sortedIds().slice(-3)).to.deep.equal([141, 144, 148]);
  });
});
