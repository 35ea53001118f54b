import type { HnswIndex } from '../../storage/views/hnsw.js';
import type { QuantizedVectors } from '../../storage/views/quantized-vectors.js';

/**
 * Graph walks run elsewhere: the server's search workers (workers/search-pool.ts) read the
 * graph's shared arrays on their own threads. A walk answers the slots of the graph's `k`
 * nearest live points to a prepared query, nearest first, by the float distances or, with
 * `onCodes`, by the quantized codes' ones; null means "walk it in place" (a small store, or codes
 * in a plain buffer), which the search then does itself. `codes` are the graph's quantized codes
 * whether or not this walk uses them (null: it has none), so that a walk on the floats between
 * walks on the codes does not count as the codes having gone.
 */
export interface GraphWalker {
  /** `allow`: the only slots the walk may answer, as bits in shared memory (a filter's matches, FilterBitsets); null: any. */
  walk(index: HnswIndex, query: Float32Array, k: number, ef: number, codes: QuantizedVectors | null, onCodes: boolean, allow: Uint32Array | null): Promise<Int32Array> | null;
}

let current: GraphWalker | null = null;

/** Installs the process's walker (the server does, at start); null walks every graph in place. */
export function useGraphWalker(walker: GraphWalker | null): void {
  current = walker;
}

export function graphWalker(): GraphWalker | null {
  return current;
}
