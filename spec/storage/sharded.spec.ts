import { expect } from 'chai';
import fc from 'fast-check';
import { ShardedMap, ShardedSet } from '../../storage/views/sharded.js';

describe('storage/views: sharded map and set', () => {
  it('behave as Map and Set through every split (shards of 8 entries), for number, string and boolean keys', () => {
    const key = fc.oneof(fc.integer({ min: -50, max: 400 }), fc.double({ noNaN: true }), fc.string({ maxLength: 3 }), fc.boolean(), fc.constantFrom(0, -0));
    const op = fc.record({ add: fc.boolean(), key, value: fc.nat() });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 800, size: 'max' }), (ops) => {
        const map = new ShardedMap<unknown, number>(8);
        const set = new ShardedSet<unknown>(8);
        const modelMap = new Map<unknown, number>();
        const modelSet = new Set<unknown>();
        for (const o of ops) {
          if (o.add) {
            map.set(o.key, o.value);
            set.add(o.key);
            modelMap.set(o.key, o.value);
            modelSet.add(o.key);
          } else {
            expect(map.delete(o.key)).to.equal(modelMap.delete(o.key));
            expect(set.delete(o.key)).to.equal(modelSet.delete(o.key));
          }
        }
        expect(map.size).to.equal(modelMap.size);
        expect(set.size).to.equal(modelSet.size);
        for (const o of ops) {
          expect(map.get(o.key)).to.equal(modelMap.get(o.key));
          expect(set.has(o.key)).to.equal(modelSet.has(o.key));
        }
        // Iterated shard by shard: every entry once, in no set order.
        const entries = [...map];
        expect(entries.length).to.equal(modelMap.size);
        for (const [k, v] of entries) expect(modelMap.get(k), String(k)).to.equal(v);
        const values = [...set];
        expect(values.length).to.equal(modelSet.size);
        for (const v of values) expect(modelSet.has(v), String(v)).to.equal(true);
        const seen: unknown[] = [];
        set.forEach((v) => seen.push(v));
        expect(seen).to.deep.equal(values);
      }),
      { numRuns: 300 },
    );
  });

  it('spread evenly: 100,000 ids in shards of 4,096 fill no shard past its limit', () => {
    const set = new ShardedSet<number>(4096);
    for (let i = 0; i < 100_000; i++) set.add(i * 17);
    expect(set.size).to.equal(100_000);
    const shards = [...(set as unknown as { directory: { distinct(): Iterable<Set<number>> } }).directory.distinct()];
    expect(shards.length).to.be.within(25, 64);
    for (const shard of shards) expect(shard.size).to.be.at.most(4096);
  });

  it('divides only the shard that fills: every other shard stays the same Map, entries and all', () => {
    const map = new ShardedMap<string, number>(1024);
    const shardsOf = (): Map<string, number>[] => [...(map as unknown as { directory: { distinct(): Iterable<Map<string, number>> } }).directory.distinct()];
    let before = shardsOf();
    let divisions = 0;
    for (let i = 0; i < 50_000; i++) {
      map.set(`page ${i} `.repeat(1 + (i % 40)), i);
      const after = shardsOf();
      if (after.length === before.length) continue;
      divisions++;
      expect(after.length, 'one shard became two').to.equal(before.length + 1);
      const kept = before.filter((shard) => after.includes(shard));
      expect(kept.length, 'every shard but the one divided').to.equal(before.length - 1);
      before = after;
    }
    expect(divisions).to.be.at.least(48);
    expect(map.size).to.equal(50_000);
    for (let i = 0; i < 50_000; i += 7) expect(map.get(`page ${i} `.repeat(1 + (i % 40)))).to.equal(i);
  });
});
