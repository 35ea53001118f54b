import { expect } from 'chai';
import fc from 'fast-check';
import { ShardedMap, ShardedSet } from '../../storage/views/sharded.js';

describe('storage/views: sharded map and set', () => {
  it('behave as Map and Set through every split (shards of 8 entries), for number, string and boolean keys', () => {
    const key = fc.oneof(fc.integer({ min: -50, max: 400 }), fc.double({ noNaN: true }), fc.string({ maxLength: 3 }), fc.boolean(), fc.constantFrom(0, -0));
    const op = fc.record({ add: fc.boolean(), key, value: fc.nat() });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 800 }), (ops) => {
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
        expect(new Map(map)).to.deep.equal(modelMap);
        expect(new Set(set)).to.deep.equal(modelSet);
        const seen: unknown[] = [];
        set.forEach((v) => seen.push(v));
        expect(new Set(seen)).to.deep.equal(modelSet);
      }),
      { numRuns: 300 },
    );
  });

  it('spread evenly: 100,000 ids in shards of 4,096 fill no shard past its limit', () => {
    const set = new ShardedSet<number>(4096);
    for (let i = 0; i < 100_000; i++) set.add(i * 17);
    expect(set.size).to.equal(100_000);
    const shards = (set as unknown as { shards: Set<number>[] }).shards;
    expect(shards.length).to.be.within(32, 64);
    for (const shard of shards) expect(shard.size).to.be.at.most(4096);
  });
});
