import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import { filterBitsets, filterBitsFailures, filterKey } from '../../query/filter/filter-bitsets.js';
import { matchesFilter } from '../../query/filter/evaluate-filter.js';
import { parseFilter } from '../../query/filter/parse-filter.js';
import { LIVE } from '../../storage/views/point-store.js';
import { randomVectors } from '../helpers/vectors.js';

const DIM = 4;
const vectors = randomVectors(3000, DIM, 5);

function collection(count: number): Collection {
  const c = new Collection('b', { size: DIM, distance: 'Euclid', m: 16, m0: 32, efConstruct: 50, ml: 1 / Math.log(16) }, 1);
  c.upsert(Array.from({ length: count }, (_, id) => ({ id, vector: vectors[id]!, payload: { tenant: id % 3, tags: id % 2 ? ['odd'] : [] }, labels: [] })));
  return c;
}

/** Asks for a filter's bits until they are made (they are made in slices, from the second time). */
async function bitsOf(c: Collection, raw: unknown): Promise<Uint32Array> {
  const filter = parseFilter(raw);
  for (let i = 0; i < 1000; i++) {
    const bits = filterBitsets(c).bitsFor(filter);
    if (bits) return bits;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('the bits were never made');
}

/** Whether the bits say, for every slot, what the filter says of the live points. */
function agrees(c: Collection, raw: unknown, bits: Uint32Array): boolean {
  const filter = parseFilter(raw);
  for (let slot = 0; slot < c.store.slotCount; slot++) {
    const want = c.store.state[slot] === LIVE && matchesFilter(filter, c, slot);
    const have = (bits[slot >>> 5]! & (1 << (slot & 31))) !== 0;
    if (want !== have) return false;
  }
  return true;
}

/** The live points the filter matches, counted point by point. */
function matching(c: Collection, raw: unknown): number {
  const filter = parseFilter(raw);
  let n = 0;
  for (let slot = 0; slot < c.store.slotCount; slot++) if (c.store.state[slot] === LIVE && matchesFilter(filter, c, slot)) n++;
  return n;
}

describe('query: the kept matches of filters searched again and again (filter bitsets)', () => {
  const tenant1 = { must: [{ key: 'tenant', match: { value: 1 } }] };
  const odd = { must: [{ key: 'tags', match: { any: ['odd'] } }], must_not: [{ key: 'tenant', match: { value: 0 } }] };

  it('answers null the first time a filter is searched, then (made in slices) bits equal to the filter on every slot', async () => {
    const c = collection(2500);
    expect(filterBitsets(c).bitsFor(parseFilter(tenant1))).to.equal(null);
    expect(filterBitsets(c).matchCount(parseFilter(tenant1)), 'not kept: no count').to.equal(null);
    const bits = await bitsOf(c, tenant1);
    expect(agrees(c, tenant1, bits)).to.equal(true);
    expect(agrees(c, odd, await bitsOf(c, odd))).to.equal(true);
    expect(filterBitsets(c).matchCount(parseFilter(tenant1)), 'the bits set').to.equal(matching(c, tenant1)).and.equal(833);
    expect(filterBitsets(c).matchCount(parseFilter(odd))).to.equal(matching(c, odd));
  });

  it('counts a filter whose bits could not be made, and answers null for it (its searches walk in place)', async () => {
    const c = collection(200);
    Object.defineProperty(c, 'payloadChanges', {
      get() {
        throw new Error('the payload journal is gone');
      },
    });
    const before = filterBitsFailures();
    for (let i = 0; i < 4; i++) {
      expect(filterBitsets(c).bitsFor(parseFilter(tenant1))).to.equal(null);
      await new Promise((r) => setImmediate(r));
    }
    expect(filterBitsFailures() - before, 'made at the second and fourth search, failing each time').to.equal(2);
  });

  it('follows every write before each use: new points, payload changes, deletes and a freed slot given to another point', async () => {
    const c = collection(2000);
    await bitsOf(c, tenant1);
    c.upsert([2000, 2001, 2002].map((id) => ({ id, vector: vectors[id]!, payload: { tenant: 1 }, labels: [] })));
    c.setPayload(3, { tenant: 2 }, []);
    c.setPayload(4, { tenant: 1 }, []);
    c.remove(7);
    c.upsert([{ id: 2999, vector: vectors[2999]!, payload: { tenant: 1 }, labels: [] }]);
    expect(filterBitsets(c).matchCount(parseFilter(tenant1)), 'current before any search takes the bits').to.equal(matching(c, tenant1));
    const bits = filterBitsets(c).bitsFor(parseFilter(tenant1))!;
    expect(bits).to.not.equal(null);
    expect(agrees(c, tenant1, bits)).to.equal(true);
    expect(filterBitsets(c).matchCount(parseFilter(tenant1)), 'counted through the same writes').to.equal(matching(c, tenant1));
    const on = (slot: number) => (bits[slot >>> 5]! & (1 << (slot & 31))) !== 0;
    expect(on(c.store.slotOf(2001))).to.equal(true);
    expect(on(c.store.slotOf(4))).to.equal(true);
    expect(on(c.store.slotOf(1))).to.equal(true);
    expect(c.store.slotOf(3) >= 0 && on(c.store.slotOf(3))).to.equal(false);
  });

  it('makes the bits anew after more changes than it reads again, and after a state is loaded', async () => {
    const c = collection(2000);
    const first = await bitsOf(c, tenant1);
    for (let id = 0; id < 1500; id++) c.setPayload(id, { tenant: 1 }, []);
    expect(filterBitsets(c).bitsFor(parseFilter(tenant1)), 'too far behind: made anew, in place meanwhile').to.equal(null);
    const again = await bitsOf(c, tenant1);
    expect(again).to.not.equal(first);
    expect(agrees(c, tenant1, again)).to.equal(true);
    c.payloadChanges.restart();
    expect(filterBitsets(c).bitsFor(parseFilter(tenant1))).to.equal(null);
  });

  it('keeps no bits for a filter on vectors (which the payload journal does not follow), and keeps the 8 most recent filters', async () => {
    const c = collection(1000);
    const onVector = parseFilter({ must: [{ has_vector: '' }] });
    for (let i = 0; i < 5; i++) expect(filterBitsets(c).bitsFor(onVector)).to.equal(null);
    for (let t = 0; t < 10; t++) await bitsOf(c, { must: [{ key: 'tenant', match: { value: t } }] });
    expect(filterBitsets(c).size).to.equal(8);
    expect(filterBitsets(c).bitsFor(parseFilter({ must: [{ key: 'tenant', match: { value: 9 } }] }))).to.not.equal(null);
    expect(filterBitsets(c).bitsFor(parseFilter({ must: [{ key: 'tenant', match: { value: 0 } }] })), 'the oldest went').to.equal(null);
  });

  it('writes a filter as the same key each time, sets by their values', () => {
    const a = parseFilter({ must: [{ key: 'k', match: { any: ['x', 'y'] } }] });
    const b = parseFilter({ must: [{ key: 'k', match: { any: ['x', 'y'] } }] });
    const other = parseFilter({ must: [{ key: 'k', match: { any: ['x', 'z'] } }] });
    expect(filterKey(a)).to.equal(filterKey(b));
    expect(filterKey(a)).to.not.equal(filterKey(other));
  });
});
