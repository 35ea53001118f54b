import { Collection } from '../../storage/collection.js';
import { parseFilter } from '../../query/filter/parse-filter.js';
import type { Filter } from '../../query/filter/types.js';
import { searchCollection } from '../../query/search/vector-search.js';
import { startProgress } from '../lib/progress.js';
import type { Dataset } from './dataset.js';
import { fmt } from './table.js';

/** Groups of points: a filter on one admits 1% of them. */
const GROUPS = 100;
const M = 16;
const EF_CONSTRUCT = 200;

/** The exact top 10 among the points of one group (brute force over the dataset). */
function truthFor(ds: Dataset, q: Float32Array, group: number): number[] {
  const hits: [number, number][] = [];
  for (let id = group; id < ds.count; id += GROUPS) {
    let d = 0;
    for (let j = 0; j < ds.dim; j++) d += (ds.data[id * ds.dim + j]! - q[j]!) ** 2;
    hits.push([d, id]);
  }
  return hits.sort((a, b) => a[0] - b[0] || a[1] - b[1]).slice(0, 10).map((h) => h[1]);
}

/**
 * Filtered search at 1% selectivity: a keyword match, answered from the payload index's
 * candidates, next to the same points picked by a range on a number, first on a field not
 * declared (the planner samples its selectivity and scans every payload), then declared
 * `integer` (its distinct values in the index give the candidates); recall@10 against brute force.
 */
export function benchFiltered(ds: Dataset): (string | number)[][] {
  const c = new Collection('filtered', { size: ds.dim, distance: ds.distance, m: M, m0: 2 * M, efConstruct: EF_CONSTRUCT, ml: 1 / Math.log(M) }, 1);
  c.upsert(Array.from({ length: ds.count }, (_, id) => ({ id, vector: ds.data.subarray(id * ds.dim, (id + 1) * ds.dim), payload: { group: `g${id % GROUPS}`, rank: id % GROUPS }, labels: [] })));
  const progress = startProgress('bench filtered: index build', ds.count, 'points');
  while (c.indexSome(1000)) progress.update(ds.count - c.pendingCount);
  progress.end();
  const queries = Array.from({ length: ds.queryCount }, (_, i) => ds.queries.subarray(i * ds.dim, (i + 1) * ds.dim));
  const truths = queries.map((q, i) => truthFor(ds, q, i % GROUPS));
  const rows: (string | number)[][] = [];
  const cases: [string, (group: number) => Filter][] = [
    ['keyword match (payload index)', (g) => parseFilter({ must: [{ key: 'group', match: { value: `g${g}` } }] })],
    ['number range, field not declared (scan)', (g) => parseFilter({ must: [{ key: 'rank', range: { gte: g, lte: g } }] })],
    ['number range, field declared integer (payload index)', (g) => parseFilter({ must: [{ key: 'rank', range: { gte: g, lte: g } }] })],
  ];
  for (const [what, filterOf] of cases) {
    if (what.includes('declared integer')) c.declareIndex('rank', { type: 'integer', params: {} });
    let found = 0;
    const t0 = performance.now();
    queries.forEach((q, i) => {
      const ids = searchCollection(c, { vector: q, limit: 10, offset: 0, ef: 100, filter: filterOf(i % GROUPS), scoreThreshold: null }).map((h) => h.id as number);
      const truth = new Set(truths[i]);
      found += ids.filter((id) => truth.has(id)).length;
    });
    const seconds = (performance.now() - t0) / 1000;
    rows.push([what, `${fmt(ds.count)} x ${ds.dim}`, fmt(found / (queries.length * 10), 3), fmt(queries.length / seconds)]);
  }
  return rows;
}
