import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import type { CollectionConfig, Distance } from '../../storage/events/types.js';
import { searchCollection, searchCollectionPooled, type VectorQuery } from '../../query/search/vector-search.js';
import { useGraphWalker } from '../../query/search/graph-walker.js';
import { SearchPool } from '../../workers/search-pool.js';
import { randomVectors } from '../helpers/vectors.js';

const DIM = 24;
const N = 6000;

function config(distance: Distance): CollectionConfig {
  return { size: DIM, distance, m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16) };
}

const query = (vector: Float32Array): VectorQuery => ({ vector, limit: 10, offset: 0, ef: 100, filter: null, scoreThreshold: null });

function exactTop(c: Collection, q: Float32Array): number[] {
  const view = c.store;
  const hits: { id: number; d: number }[] = [];
  for (let slot = 0; slot < view.slotCount; slot++) {
    if (view.state[slot] !== 1) continue;
    let d = 0;
    for (let i = 0; i < DIM; i++) d += (q[i]! - view.vectors[slot * DIM + i]!) ** 2;
    hits.push({ id: view.idOf(slot) as number, d });
  }
  return hits.sort((a, b) => a.d - b.d || a.id - b.id).slice(0, 10).map((h) => h.id);
}

function recall(c: Collection, queries: Float32Array[]): number {
  let found = 0;
  for (const q of queries) {
    const truth = new Set(exactTop(c, q));
    for (const h of searchCollection(c, query(q))) if (truth.has(h.id as number)) found++;
  }
  return found / (queries.length * 10);
}

/** The points that a search for their own vector does not answer first: nodes no walk reaches. */
function lost(c: Collection, vectors: Float32Array[]): number[] {
  return vectors.flatMap((v, id) => (searchCollection(c, { ...query(v), limit: 1 })[0]?.id === id ? [] : [id]));
}

/** Links every pending vector through the pool, a batch at a time, as the engine's indexer does. */
async function buildWith(pool: SearchPool, c: Collection, during: () => Promise<void> = async () => undefined): Promise<void> {
  for (;;) {
    const batches = c.indexElsewhere(pool, 256);
    if (batches.length === 0) break;
    await Promise.all([...batches, during()]);
  }
  while (c.indexSome(1024));
}

describe('workers: HNSW graphs built by the search workers, several at once', function () {
  this.timeout(120_000);
  const data = randomVectors(N, DIM, 5);
  const queries = randomVectors(60, DIM, 6);
  const points = data.map((vector, id) => ({ id, vector, payload: {}, labels: [] }));

  it('links every vector with the recall of a graph built on one thread, with one worker and with two', async () => {
    const single = new Collection('t', config('Euclid'), 42);
    single.upsert(points);
    while (single.indexSome(10_000));
    const baseline = recall(single, queries);
    expect(lost(single, data)).to.deep.equal([]);
    for (const workers of [1, 2]) {
      const pool = new SearchPool(workers);
      try {
        const c = new Collection('t', config('Euclid'), 42);
        c.upsert(points);
        await buildWith(pool, c);
        expect(c.pendingCount).to.equal(0);
        expect(pool.linked).to.be.greaterThan(N - 300);
        // A lone worker is the graph's only writer: it reads lists in place; two read under the locks.
        expect(pool.linkedInPlace).to.equal(workers === 1 ? pool.linked : 0);
        expect(c.index.nodeCount).to.equal(N);
        if (workers === 1) {
          // Linking the same nodes in the same order, it builds the graph this thread builds.
          for (const q of queries) expect(searchCollection(c, { ...query(q), ef: 16 })).to.deep.equal(searchCollection(single, { ...query(q), ef: 16 }));
        }
        const r = recall(c, queries);
        expect(r, `recall with ${workers} worker(s) next to ${baseline} on one thread`).to.be.at.least(Math.min(0.95, baseline - 0.02));
        // A node linked beside others is reached as on one thread: none is left with no link to it.
        expect(lost(c, data), `with ${workers} worker(s)`).to.deep.equal([]);
      } finally {
        await pool.close();
      }
    }
  });

  it('answers searches while batches are linked, finding the vectors being linked', async () => {
    const pool = new SearchPool(2);
    useGraphWalker(pool);
    try {
      const c = new Collection('t', config('Cosine'), 7);
      c.upsert(points.slice(0, 1000));
      await buildWith(pool, c);
      c.upsert(points.slice(1000));
      let searched = 0;
      expect(c.index.othersWrite, 'no batch out: this thread reads lists in place').to.equal(false);
      await buildWith(pool, c, async () => {
        expect(c.index.othersWrite, 'a batch out: this thread reads lists under their locks').to.equal(true);
        // Each point being linked right now is found by its own vector, through the pool and in place.
        for (const id of [1000 + searched * 7, 5999 - searched * 3]) {
          const [pooled] = await searchCollectionPooled(c, { ...query(data[id]!), limit: 1 });
          const [inPlace] = searchCollection(c, { ...query(data[id]!), limit: 1 });
          expect(pooled?.id).to.equal(id);
          expect(inPlace?.id).to.equal(id);
          searched++;
        }
      });
      expect(searched).to.be.greaterThan(10);
      expect(c.index.othersWrite).to.equal(false);
      const ids = searchCollection(c, { ...query(queries[0]!), limit: 50 }).map((h) => h.id);
      expect(new Set(ids).size).to.equal(ids.length);
    } finally {
      useGraphWalker(null);
      await pool.close();
    }
  });

  it('links a batch on the main thread when a worker dies under it, letting go of the node it held', async () => {
    const pool = new SearchPool(2);
    try {
      const c = new Collection('t', config('Euclid'), 9);
      c.upsert(points.slice(0, 3000));
      let killed = 0;
      pool.onDispatch = (thread) => {
        if (killed++ === 3) void thread.terminate();
      };
      await buildWith(pool, c);
      pool.onDispatch = null;
      expect(pool.replaced).to.equal(1);
      expect(c.pendingCount).to.equal(0);
      expect(c.index.nodeCount).to.equal(3000);
      expect(recall(c, queries)).to.be.at.least(0.95);
    } finally {
      await pool.close();
    }
  });
});
