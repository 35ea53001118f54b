import { expect } from 'chai';
import fc from 'fast-check';
import { IdSlotMap } from '../../storage/views/id-slot-map.js';

describe('storage/views: id → slot map', function () {
  this.timeout(120_000);

  it('behaves as a Map under any mix of sets and deletes (clustered ids force long probe runs)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), id: fc.integer({ min: 0, max: 300 }), slot: fc.integer({ min: 0, max: 2 ** 31 - 1 }) }),
      fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 300 }) }),
      fc.record({ kind: fc.constant('set' as const), id: fc.constantFrom(0, 2 ** 32, 2 ** 32 + 1, 2 ** 53 - 1), slot: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 600, size: 'max' }), (ops) => {
        const map = new IdSlotMap();
        const model = new Map<number, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            map.set(o.id, o.slot);
            model.set(o.id, o.slot);
          } else expect(map.delete(o.id)).to.equal(model.delete(o.id));
        }
        expect(map.size).to.equal(model.size);
        for (let id = 0; id <= 300; id++) expect(map.get(id)).to.equal(model.get(id) ?? -1);
        for (const id of [2 ** 32, 2 ** 32 + 1, 2 ** 53 - 1]) expect(map.has(id)).to.equal(model.has(id));
      }),
      { numRuns: 200 },
    );
  });

  it('holds more than 2^24 ids, where a JS Map stops', () => {
    const n = 2 ** 24 + 100_000;
    const idOf = (i: number): number => i * 2_654_435 + (i % 7) * 2 ** 40;
    const map = new IdSlotMap();
    for (let i = 0; i < n; i++) map.set(idOf(i), i);
    expect(map.size).to.equal(n);
    for (let i = 0; i < n; i += 9973) expect(map.get(idOf(i))).to.equal(i);
    expect(map.get(idOf(n - 1))).to.equal(n - 1);
    expect(map.get(1)).to.equal(-1);
    for (let i = 0; i < n; i += 2) map.delete(idOf(i));
    expect(map.size).to.equal(n / 2);
    for (let i = 0; i < 200_000; i++) expect(map.get(idOf(i))).to.equal(i % 2 === 0 ? -1 : i);
  });

  it('fills a map reserved for a snapshot\'s ids without dividing or growing a bucket, and finds every id', () => {
    const n = 300_000;
    const uuidOf = (i: number): string => `0000${(i % 9).toString(16)}000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
    const map = new IdSlotMap();
    map.reserve(n, n / 3);
    type Table = { directory: { buckets: { keys: ArrayLike<number> }[] } };
    const tables = map as unknown as { ints: Table; uuids: Table };
    const arraysOf = (t: Table): ArrayLike<number>[] => t.directory.buckets.map((b) => b.keys);
    const before = [arraysOf(tables.ints), arraysOf(tables.uuids)];
    expect(before[0]!.length, 'buckets of integer ids').to.be.at.least(16);
    for (let i = 0; i < n; i++) map.set(i * 7919, i);
    for (let i = 0; i < n / 3; i++) map.set(uuidOf(i), n + i);
    const after = [arraysOf(tables.ints), arraysOf(tables.uuids)];
    expect(after.map((arrays) => arrays.length), 'as many bucket places').to.deep.equal(before.map((arrays) => arrays.length));
    // The same arrays: no bucket was divided (its places would hold new buckets) or grown (new arrays).
    after.forEach((arrays, t) => arrays.forEach((a, k) => expect(a, `table ${t}, bucket ${k}`).to.equal(before[t]![k])));
    expect(map.size).to.equal(n + n / 3);
    for (let i = 0; i < n; i += 101) expect(map.get(i * 7919)).to.equal(i);
    for (let i = 0; i < n / 3; i += 101) expect(map.get(uuidOf(i))).to.equal(n + i);
  });

  it('keeps UUID ids beside integer ids, as a Map would, under any mix of sets and deletes (few distinct hashes force long runs)', () => {
    const uuids = Array.from({ length: 40 }, (_, i) => `${(i % 3).toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`);
    const id = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constantFrom(...uuids));
    const op = fc.oneof(fc.record({ kind: fc.constant('set' as const), id, slot: fc.nat() }), fc.record({ kind: fc.constant('delete' as const), id }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400, size: 'max' }), (ops) => {
        const map = new IdSlotMap();
        const model = new Map<number | string, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            map.set(o.id, o.slot);
            model.set(o.id, o.slot);
          } else expect(map.delete(o.id)).to.equal(model.delete(o.id));
        }
        expect(map.size).to.equal(model.size);
        for (const k of [...uuids, ...Array.from({ length: 41 }, (_, i) => i)]) expect(map.get(k)).to.equal(model.get(k) ?? -1);
      }),
      { numRuns: 200 },
    );
  });
});
