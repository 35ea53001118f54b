import { dotProduct, squaredEuclid } from '../../storage/views/distance.js';
import type { Distance } from '../../storage/events/types.js';
import { startProgress } from '../lib/progress.js';

export interface Dataset {
  name: string;
  dim: number;
  distance: Distance;
  /** count * dim floats, row-major. */
  data: Float32Array;
  queries: Float32Array;
  count: number;
  queryCount: number;
  /** For each query, the exact top-10 ids. */
  truth: Int32Array[];
}

/** mulberry32, so every run measures (and every test sees) the same data. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
}

/** Points around 100 Gaussian clusters; queries drawn from the same clusters (the exact answers, by brute force, show progress). */
function clustered(count: number, dim: number, rnd: () => number, centres: Float32Array[]): Float32Array {
  const out = new Float32Array(count * dim);
  for (let i = 0; i < count; i++) {
    const c = centres[Math.floor(rnd() * centres.length)]!;
    for (let d = 0; d < dim; d++) out[i * dim + d] = c[d]! + gaussian(rnd) * 0.35;
  }
  return out;
}

function exactTop10(data: Float32Array, count: number, q: Float32Array, qo: number, dim: number, distance: Distance): Int32Array {
  const bestD = new Float64Array(10).fill(Infinity);
  const bestI = new Int32Array(10).fill(-1);
  const nq = Math.sqrt(dotProduct(q, qo, q, qo, dim));
  for (let i = 0; i < count; i++) {
    let d: number;
    if (distance === 'Euclid') d = squaredEuclid(q, qo, data, i * dim, dim);
    else if (distance === 'Dot') d = -dotProduct(q, qo, data, i * dim, dim);
    else d = 1 - dotProduct(q, qo, data, i * dim, dim) / (nq * Math.sqrt(dotProduct(data, i * dim, data, i * dim, dim)) || 1);
    if (d >= bestD[9]!) continue;
    let j = 9;
    while (j > 0 && bestD[j - 1]! > d) {
      bestD[j] = bestD[j - 1]!;
      bestI[j] = bestI[j - 1]!;
      j--;
    }
    bestD[j] = d;
    bestI[j] = i;
  }
  return bestI;
}

export function makeDataset(count: number, dim: number, distance: Distance, queryCount: number, seed: number): Dataset {
  const progress = startProgress(`bench dataset ${datasetName(count, dim, distance)}: exact top 10`, queryCount, 'queries');
  const ds = buildDataset(count, dim, distance, queryCount, seed, () => progress.tick());
  progress.end();
  return ds;
}

/** makeDataset without its progress lines (for tests). */
export const quietDataset = (count: number, dim: number, distance: Distance, queryCount: number, seed: number): Dataset => buildDataset(count, dim, distance, queryCount, seed, () => undefined);

const datasetName = (count: number, dim: number, distance: Distance) => `${count.toLocaleString('en')} x ${dim} ${distance}`;

function buildDataset(count: number, dim: number, distance: Distance, queryCount: number, seed: number, tick: () => void): Dataset {
  const rnd = seeded(seed);
  const centres = Array.from({ length: 100 }, () => Float32Array.from({ length: dim }, () => gaussian(rnd)));
  const data = clustered(count, dim, rnd, centres);
  const queries = clustered(queryCount, dim, rnd, centres);
  const truth = Array.from({ length: queryCount }, (_, q) => {
    const top = exactTop10(data, count, queries, q * dim, dim, distance);
    tick();
    return top;
  });
  return { name: datasetName(count, dim, distance), dim, distance, data, queries, count, queryCount, truth };
}

export function recallAt10(truth: Int32Array, got: ArrayLike<number>): number {
  let hits = 0;
  for (let i = 0; i < Math.min(10, got.length); i++) if (truth.includes(got[i]!)) hits++;
  return hits / 10;
}
