import hnswlib from 'hnswlib-node';
import { Collection } from '../../storage/collection.js';
import { searchCollection } from '../../query/search/vector-search.js';
import { startProgress } from '../lib/progress.js';
import { SearchPool } from '../../workers/search-pool.js';
import { recallAt10, type Dataset } from './dataset.js';
import { fmt } from './table.js';

export const EF_SWEEP = [16, 32, 64, 100, 200];
const M = 16;
const EF_CONSTRUCT = 200;

export interface AnnRow {
  engine: string;
  dataset: string;
  buildRate: number;
  sweep: { ef: number; recall: number; qps: number }[];
}

/** Each ef's QPS is timed over at least this long (the query set repeated): one pass of 200 queries takes 10-40 ms, where one pause moves it by a quarter. */
const MIN_SWEEP_SECONDS = 1;

/** Progress moves once per ef setting, outside the timed loop, so it costs the QPS nothing. */
function sweep(ds: Dataset, engine: string, search: (q: Float32Array, ef: number) => ArrayLike<number>): AnnRow['sweep'] {
  const progress = startProgress(`bench ${engine} ${ds.name}: queries at ef ${EF_SWEEP.join(', ')}`, EF_SWEEP.length * ds.queryCount, 'queries');
  const query = (q: number) => ds.queries.subarray(q * ds.dim, (q + 1) * ds.dim);
  const rows = EF_SWEEP.map((ef) => {
    for (let q = 0; q < Math.min(50, ds.queryCount); q++) search(query(q), ef);
    let recall = 0;
    const start = performance.now();
    for (let q = 0; q < ds.queryCount; q++) recall += recallAt10(ds.truth[q]!, search(query(q), ef));
    let done = ds.queryCount;
    while (performance.now() - start < MIN_SWEEP_SECONDS * 1000) {
      for (let q = 0; q < ds.queryCount; q++) search(query(q), ef);
      done += ds.queryCount;
    }
    const seconds = (performance.now() - start) / 1000;
    progress.tick(ds.queryCount);
    return { ef, recall: recall / ds.queryCount, qps: done / seconds };
  });
  progress.end();
  return rows;
}

function filled(ds: Dataset): Collection {
  const c = new Collection('bench', { size: ds.dim, distance: ds.distance, m: M, m0: 2 * M, efConstruct: EF_CONSTRUCT, ml: 1 / Math.log(M) }, 1);
  c.upsert(Array.from({ length: ds.count }, (_, id) => ({ id, vector: ds.data.subarray(id * ds.dim, (id + 1) * ds.dim), payload: {}, labels: [] })));
  return c;
}

const searchOf = (c: Collection) => (q: Float32Array, ef: number) => searchCollection(c, { vector: q, limit: 10, offset: 0, ef, filter: null, scoreThreshold: null }).map((h) => h.id as number);

/**
 * Our HNSW built by the server's search workers (as its background indexer sends them batches
 * of 256), then searched on this thread: the build rate with `workers` threads linking.
 */
export async function benchOursBuiltByWorkers(ds: Dataset, workers: number): Promise<AnnRow> {
  const engine = `vectorgraphdb, built by ${workers} worker${workers > 1 ? 's' : ''}`;
  const c = filled(ds);
  const pool = new SearchPool(workers);
  const progress = startProgress(`bench ${engine} ${ds.name}: index build`, ds.count, 'points');
  try {
    const start = performance.now();
    for (let batches = c.indexElsewhere(pool, 256); batches.length > 0; batches = c.indexElsewhere(pool, 256)) {
      await Promise.all(batches);
      progress.update(ds.count - c.pendingCount);
    }
    while (c.indexSome(1000));
    const buildRate = ds.count / ((performance.now() - start) / 1000);
    progress.update(ds.count);
    progress.end();
    return { engine, dataset: ds.name, buildRate, sweep: sweep(ds, engine, searchOf(c)) };
  } finally {
    await pool.close();
  }
}

/** Our HNSW in process: the same Collection the server uses, built and searched on one thread. */
export function benchOurs(ds: Dataset): AnnRow {
  const c = filled(ds);
  const progress = startProgress(`bench vectorgraphdb ${ds.name}: index build`, ds.count, 'points');
  const start = performance.now();
  while (c.indexSome(1000)) progress.update(ds.count - c.pendingCount);
  const buildRate = ds.count / ((performance.now() - start) / 1000);
  progress.update(ds.count);
  progress.end();
  return { engine: 'vectorgraphdb', dataset: ds.name, buildRate, sweep: sweep(ds, 'vectorgraphdb', searchOf(c)) };
}

/** hnswlib-node at the same m and ef_construct. */
export function benchHnswlib(ds: Dataset): AnnRow {
  const space = ds.distance === 'Euclid' ? 'l2' : ds.distance === 'Cosine' ? 'cosine' : 'ip';
  const index = new hnswlib.HierarchicalNSW(space, ds.dim);
  index.initIndex(ds.count, M, EF_CONSTRUCT, 100);
  const rows = Array.from({ length: ds.count }, (_, i) => Array.from(ds.data.subarray(i * ds.dim, (i + 1) * ds.dim)));
  const progress = startProgress(`bench hnswlib-node ${ds.name}: index build`, ds.count, 'points');
  const start = performance.now();
  for (let i = 0; i < ds.count; i++) {
    index.addPoint(rows[i]!, i);
    if (i % 1000 === 999) progress.update(i + 1);
  }
  const buildRate = ds.count / ((performance.now() - start) / 1000);
  progress.update(ds.count);
  progress.end();
  const sweepRows = sweep(ds, 'hnswlib-node', (q, ef) => {
    index.setEf(ef);
    return index.searchKnn(Array.from(q), 10).neighbors;
  });
  return { engine: 'hnswlib-node', dataset: ds.name, buildRate, sweep: sweepRows };
}

export function annTableRows(rows: AnnRow[]): (string | number)[][] {
  const out: (string | number)[][] = [];
  for (const r of rows) {
    for (const s of r.sweep) out.push([r.dataset, r.engine, fmt(r.buildRate), s.ef, s.recall.toFixed(3), fmt(s.qps)]);
  }
  return out;
}
