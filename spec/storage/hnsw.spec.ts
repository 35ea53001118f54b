import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import type { CollectionConfig, Distance } from '../../storage/events/types.js';
import { searchCollection } from '../../query/search/vector-search.js';
import { randomVectors } from '../helpers/vectors.js';
import { decodeSnapshot, encodeSnapshot } from '../../storage/snapshot/snapshot-codec.js';
import { isShared } from '../../storage/views/shared-arrays.js';
import { HnswIndex } from '../../storage/views/hnsw.js';
import { PointStore } from '../../storage/views/point-store.js';
import { VectorSpace } from '../../storage/views/vector-space.js';

const N = 3000;
const DIM = 24;

function config(distance: Distance): CollectionConfig {
  return { size: DIM, distance, m: 16, m0: 32, efConstruct: 200, ml: 1 / Math.log(16) };
}

function exactTop(vectors: Map<number, Float32Array>, q: Float32Array, k: number, distance: Distance): number[] {
  const score = (v: Float32Array): number => {
    let dot = 0;
    let nq = 0;
    let nv = 0;
    let sq = 0;
    for (let i = 0; i < DIM; i++) {
      dot += q[i]! * v[i]!;
      nq += q[i]! * q[i]!;
      nv += v[i]! * v[i]!;
      sq += (q[i]! - v[i]!) ** 2;
    }
    if (distance === 'Cosine') return dot / Math.sqrt(nq * nv);
    if (distance === 'Dot') return dot;
    return -Math.sqrt(sq);
  };
  return [...vectors.entries()]
    .map(([id, v]) => ({ id, s: score(v) }))
    .sort((a, b) => b.s - a.s || a.id - b.id)
    .slice(0, k)
    .map((r) => r.id);
}

function recallAt10(c: Collection, vectors: Map<number, Float32Array>, queries: Float32Array[], distance: Distance): number {
  let hits = 0;
  for (const q of queries) {
    const truth = new Set(exactTop(vectors, q, 10, distance));
    const got = searchCollection(c, { vector: q, limit: 10, offset: 0, ef: 100, filter: null, scoreThreshold: null });
    for (const r of got) if (truth.has(r.id as number)) hits++;
  }
  return hits / (queries.length * 10);
}

function build(distance: Distance): { c: Collection; vectors: Map<number, Float32Array> } {
  const c = new Collection('t', config(distance), 42);
  const data = randomVectors(N, DIM, 7);
  const vectors = new Map<number, Float32Array>();
  c.upsert(data.map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
  data.forEach((v, id) => vectors.set(id, v));
  while (c.indexSome(10_000));
  return { c, vectors };
}

describe('storage/views HNSW recall against brute force', () => {
  const queries = randomVectors(60, DIM, 99);

  for (const distance of ['Cosine', 'Euclid', 'Dot'] as Distance[]) {
    it(`reaches recall@10 >= 0.95 at ef = 100 for ${distance}`, () => {
      const { c, vectors } = build(distance);
      expect(c.pendingCount).to.equal(0);
      expect(c.index.nodeCount).to.equal(N);
      expect(recallAt10(c, vectors, queries, distance)).to.be.at.least(0.95);
    });

    it(`keeps recall after deletes and re-upserts for ${distance}`, () => {
      const { c, vectors } = build(distance);
      const fresh = randomVectors(N, DIM, 1234);
      for (let id = 0; id < N; id += 3) {
        c.remove(id);
        vectors.delete(id);
      }
      for (let id = 1; id < N; id += 6) {
        c.upsert([{ id, vector: fresh[id]!, payload: {}, labels: [] }]);
        vectors.set(id, fresh[id]!);
      }
      while (c.indexSome(10_000));
      expect(c.index.removedCount, 'removed waypoints are repaired away').to.equal(0);
      expect(c.store.liveCount).to.equal(vectors.size);
      const recall = recallAt10(c, vectors, queries, distance);
      expect(recall).to.be.at.least(0.95);
      const ids = searchCollection(c, { vector: queries[0]!, limit: 50, offset: 0, ef: 100, filter: null, scoreThreshold: null }).map((r) => r.id);
      for (const id of ids) expect(vectors.has(id as number), `deleted point ${id} returned`).to.equal(true);
    });
  }

  it('repairs removed waypoints a step at a time, searching whole meanwhile; points removed during a repair wait for the next', () => {
    const { c, vectors } = build('Euclid');
    for (let id = 0; id < N; id += 20) {
      c.remove(id);
      vectors.delete(id);
    }
    const removed = c.index.removedCount;
    expect(removed, '5% removed, enough for a repair').to.equal(N / 20);
    c.indexSome(2);
    expect(c.index.repairing, 'a repair under way after one turn').to.equal(true);
    let turns = 1;
    let late = 0;
    while (c.index.repairing) {
      expect(c.index.removedCount, 'waypoints are freed only at the end').to.equal(removed + late);
      if (turns === 10) {
        // Removed while the repair goes on: the repair may have passed the nodes linking to it.
        c.remove(1);
        vectors.delete(1);
        late = 1;
      }
      const hits = searchCollection(c, { vector: queries[turns % queries.length]!, limit: 10, offset: 0, ef: 100, filter: null, scoreThreshold: null });
      expect(hits.length).to.equal(10);
      for (const hit of hits) expect(vectors.has(hit.id as number), `deleted point ${hit.id} returned`).to.equal(true);
      c.indexSome(2);
      turns++;
    }
    expect(turns, 'turns of the indexer the repair took (256 slots each)').to.be.at.least(N / 256 - 1);
    expect(c.index.removedCount, 'the point removed during the repair, left for the next').to.equal(1);
    expect(c.index.nodeCount).to.equal(N - removed);
    expect(c.indexSome(2), 'one waypoint, under 1% of the graph: no repair yet').to.equal(false);
    c.index.repairRemoved();
    expect(c.index.removedCount).to.equal(0);
    expect(recallAt10(c, vectors, queries, 'Euclid')).to.be.at.least(0.95);
  });

  it('walks with batched distances whose keys are the one-at-a-time distances, bit for bit: floats of each metric and int8 codes', () => {
    const keys = new Float64Array(50);
    const slots = new Int32Array(50);
    const qs = randomVectors(20, 128, 77);
    for (const distance of ['Cosine', 'Euclid', 'Dot'] as Distance[]) {
      const c = new Collection('b', { ...config(distance), size: 128 }, 1);
      c.upsert(randomVectors(3000, 128, 5).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
      while (c.indexSome(10_000));
      expect(c.space.batch, `${distance}: the floats are in one memory, so walks batch`).to.not.equal(null);
      for (const q of qs) {
        const prepared = c.prepareQuery(q);
        const n = c.index.search(prepared, 50, 64, null, keys, slots);
        expect(n).to.equal(50);
        c.space.setQuery(prepared);
        for (let i = 0; i < n; i++) expect(keys[i], `${distance} float key of slot ${slots[i]}`).to.equal(c.space.toQuery(slots[i]!));
      }
      c.settings = { quantization_config: { scalar: { type: 'int8', quantile: null, always_ram: null }, binary: null, product: null } };
      const codes = c.quantized!;
      expect(codes.batch, `${distance}: the int8 codes are in one memory, so walks batch`).to.not.equal(null);
      for (const q of qs) {
        const prepared = c.prepareQuery(q);
        const n = c.index.search(prepared, 50, 64, null, keys, slots, codes);
        codes.setQuery(prepared);
        for (let i = 0; i < n; i++) expect(keys[i], `${distance} int8 key of slot ${slots[i]}`).to.equal(codes.toQuery(slots[i]!));
      }
    }
  });

  it('returns fresh points before the index has linked them', () => {
    const c = new Collection('t', config('Euclid'), 1);
    const data = randomVectors(200, DIM, 3);
    c.upsert(data.map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
    expect(c.pendingCount).to.equal(200);
    const hit = searchCollection(c, { vector: data[123]!, limit: 1, offset: 0, ef: 10, filter: null, scoreThreshold: null });
    expect(hit[0]!.id).to.equal(123);
    expect(hit[0]!.score).to.equal(-0);
  });

  it('orders equal scores by smaller id', () => {
    const c = new Collection('t', config('Dot'), 1);
    const v = new Float32Array(DIM).fill(0.5);
    c.upsert([9, 4, 7, 1].map((id) => ({ id, vector: v, payload: {}, labels: [] })));
    while (c.indexSome(100));
    const ids = searchCollection(c, { vector: v, limit: 3, offset: 0, ef: 10, filter: null, scoreThreshold: null }).map((r) => r.id);
    expect(ids).to.deep.equal([1, 4, 7]);
  });

  it('reuses the slots of deleted points once they are unlinked', () => {
    const c = new Collection('t', config('Euclid'), 1);
    const data = randomVectors(500, DIM, 5);
    c.upsert(data.map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
    while (c.indexSome(1000));
    for (let id = 0; id < 250; id++) c.remove(id);
    while (c.indexSome(1000));
    c.upsert(data.slice(0, 250).map((vector, i) => ({ id: 1000 + i, vector, payload: {}, labels: [] })));
    expect(c.store.slotCount).to.equal(500);
  });

  it('reads a snapshot\'s links straight into shared arrays when its vectors are shared, so the first layout copies nothing', () => {
    const c = new Collection('t', config('Euclid'), 3);
    c.upsert(randomVectors(12_000, DIM, 13).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
    while (c.indexSome(10_000));
    const restored = decodeSnapshot(encodeSnapshot(new Map([['t', c]]), 1)).collections.get('t')!;
    const links = (restored.index as unknown as { links0: Uint32Array }).links0;
    expect(isShared(links), 'read into a shared buffer').to.equal(true);
    expect(restored.index.layout()!.links0, 'the first layout keeps the arrays read').to.equal(links);
    const q = randomVectors(1, DIM, 17)[0]!;
    const asked = { vector: q, limit: 10, offset: 0, ef: 64, filter: null, scoreThreshold: null };
    expect(searchCollection(restored, asked)).to.deep.equal(searchCollection(c, asked));
  });

  it('grows a shared graph and its store in place: later layouts view the same memory, and a reader on an earlier one walks only the nodes it had', () => {
    const c = new Collection('t', config('Euclid'), 5);
    const vectors = new Map<number, Float32Array>();
    const add = (n: number, seed: number): void => {
      const from = vectors.size;
      const data = randomVectors(n, DIM, seed);
      data.forEach((v, i) => vectors.set(from + i, v));
      c.upsert(data.map((vector, i) => ({ id: from + i, vector, payload: {}, labels: [] })));
      while (c.indexSome(10_000));
    };
    add(3000, 21);
    const before = c.index.layout()!;
    expect(before, 'the vectors are in a shared memory').to.not.equal(null);
    // A worker's reader of that layout (reader area 1 of the store's memory), made here.
    const store = new PointStore(before.store.dim, 0, before.store.segmentSlots, { layout: before.store, slot: 1 });
    const reader = HnswIndex.reader(new VectorSpace(store, before.metric), before);
    // Linked in place on this thread: the old nodes' lists now link to nodes past the reader's arrays.
    add(13_000, 22);
    const after = c.index.layout()!;
    const slotsBefore = before.levels.length;
    expect(after.levels.length, 'the graph grew').to.be.at.least(4 * slotsBefore);
    for (const name of ['levels', 'links0', 'versions', 'upperAt', 'upperLinks'] as const) {
      expect(after[name].buffer, `the graph's ${name}, grown in place`).to.equal(before[name].buffer);
    }
    for (const name of ['ids', 'state', 'hasVector'] as const) expect(after.store[name].buffer, `the store's ${name}, grown in place`).to.equal(before.store[name].buffer);
    expect(after.top.buffer, 'the entry point a copy: the earlier layout keeps one of its own nodes').to.not.equal(before.top.buffer);
    const keys = new Float64Array(10);
    const slots = new Int32Array(10);
    const had = new Map([...vectors].filter(([id]) => id < slotsBefore));
    let hits = 0;
    for (const q of randomVectors(50, DIM, 23)) {
      const n = reader.search(q, 10, 100, null, keys, slots);
      expect(n).to.equal(10);
      const truth = new Set(exactTop(had, q, 10, 'Euclid'));
      for (const slot of slots) {
        expect(slot, 'a slot the earlier layout had').to.be.below(slotsBefore);
        if (truth.has(slot)) hits++;
      }
    }
    expect(hits / 500, 'recall@10 among the nodes the earlier layout had').to.be.at.least(0.9);
  });

  it('grows its upper lists with the store, so linking a store that does not grow replaces its shared arrays at most once', () => {
    const c = new Collection('t', config('Euclid'), 3);
    const n = 20_000;
    c.upsert(randomVectors(n, DIM, 11).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
    const layouts = new Set([c.index.layout()]);
    expect(layouts.has(null), 'the vectors are in a shared memory').to.equal(false);
    while (c.indexSome(500)) layouts.add(c.index.layout());
    // Each replacement copies every array (links0 with them), which readers on other threads keep until they collect.
    expect(layouts.size, 'layouts while linking 20,000 nodes (8 when the upper lists grew by doubling)').to.be.at.most(2);
    expect(c.index.nodeCount, 'every node linked').to.equal(n);
  });
});
