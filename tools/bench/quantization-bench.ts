import { Collection } from '../../storage/collection.js';
import { searchCollection, type QuantizationParams } from '../../query/search/vector-search.js';
import { startProgress } from '../lib/progress.js';
import { recallAt10, type Dataset } from './dataset.js';
import { fmt } from './table.js';

const M = 16;
const EF_CONSTRUCT = 200;
const EFS = [64, 128];
const MB = 1024 * 1024;
const ROUNDS = 3;
const ROUND_SECONDS = 0.3;

/**
 * Quantization next to float search on one collection: the bytes of the float vectors, of the
 * int8 codes and of the binary ones, then recall@10 and single-thread QPS at each ef (the best of
 * three rounds of ROUND_SECONDS) for float, and for each method with float rescoring (the default) and alone. The graph is the
 * same for all three (it is built on the floats); only the walk's distances differ.
 */
export function benchQuantization(ds: Dataset): { memory: (string | number)[][]; search: (string | number)[][] } {
  const c = new Collection('quantized', { size: ds.dim, distance: ds.distance, m: M, m0: 2 * M, efConstruct: EF_CONSTRUCT, ml: 1 / Math.log(M) }, 1);
  c.upsert(Array.from({ length: ds.count }, (_, id) => ({ id, vector: ds.data.subarray(id * ds.dim, (id + 1) * ds.dim), payload: {}, labels: [] })));
  const progress = startProgress(`bench quantization ${ds.name}: index build`, ds.count, 'points');
  while (c.indexSome(1000)) progress.update(ds.count - c.pendingCount);
  progress.end();
  const floatBytes = ds.count * ds.dim * 4;
  const memory = [[ds.name, 'float32 vectors', fmt(floatBytes / MB, 1), '1.00', '-']];
  const search: (string | number)[][] = [];
  const queries = Array.from({ length: ds.queryCount }, (_, q) => ds.queries.subarray(q * ds.dim, (q + 1) * ds.dim));
  // Codes for the points only (the array's spare capacity and query row left out), as floatBytes counts them.
  const methods = [
    { method: 'int8', settings: { scalar: { type: 'int8' }, binary: null, product: null }, rowBytes: Math.ceil(ds.dim / 16) * 16 },
    { method: 'binary', settings: { scalar: null, binary: {}, product: null }, rowBytes: Math.ceil(ds.dim / 128) * 16 },
  ];
  const runs: [string, (() => void) | null, QuantizationParams][] = [['float', null, { ignore: true, rescore: true, oversampling: 1 }]];
  for (const { method, settings, rowBytes } of methods) {
    const turnOn = () => {
      const t0 = performance.now();
      c.settings = { quantization_config: settings };
      return performance.now() - t0;
    };
    const codingMs = turnOn();
    memory.push([ds.name, `${method} codes`, fmt((ds.count * rowBytes) / MB, 1), fmt(rowBytes / (ds.dim * 4), 3), fmt(codingMs)]);
    runs.push([`${method} + float rescoring`, turnOn, { ignore: false, rescore: true, oversampling: 1 }]);
    // One bit a dimension ties often; a wider candidate list gives the rescoring more to choose from.
    if (method === 'binary') runs.push([`${method} + float rescoring, oversampling 20`, turnOn, { ignore: false, rescore: true, oversampling: 20 }]);
    runs.push([`${method} only (rescore: false)`, turnOn, { ignore: false, rescore: false, oversampling: 1 }]);
  }
  for (const ef of EFS) {
    for (const [mode, turnOn, quantization] of runs) {
      turnOn?.();
      const run = (q: Float32Array) => searchCollection(c, { vector: q, limit: 10, offset: 0, ef, filter: null, scoreThreshold: null, quantization }).map((h) => h.id as number);
      for (const q of queries.slice(0, 50)) run(q);
      let recall = 0;
      queries.forEach((q, i) => (recall += recallAt10(ds.truth[i]!, run(q))));
      // The best of a few timed rounds: the machine is shared, and a slow round measures the neighbours.
      // Each round repeats the queries for ROUND_SECONDS: one pass takes 20-60 ms, where one pause moves it by a quarter.
      let best = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const start = performance.now();
        let done = 0;
        do {
          for (const q of queries) run(q);
          done += queries.length;
        } while (performance.now() - start < ROUND_SECONDS * 1000);
        best = Math.max(best, done / ((performance.now() - start) / 1000));
      }
      search.push([ds.name, mode, ef, fmt(recall / ds.queryCount, 3), fmt(best)]);
    }
  }
  return { memory, search };
}
