import type { GraphLayout } from '../storage/views/hnsw.js';
import type { QuantizedLayout } from '../storage/views/quantized-vectors.js';

/** One graph walk; `layout` comes along when the worker's copy of it is out of date. */
export interface Walk {
  id: number;
  /** The pool's number for the graph (one per HnswIndex object). */
  graph: number;
  layout?: GraphLayout;
  query: Float32Array;
  k: number;
  ef: number;
  /** Walk on the quantized codes: true, with their layout when the worker's copy is out of date. */
  quantized: boolean;
  codes?: QuantizedLayout;
  /** The only slots to answer, as bits (a filter's matches, in shared memory); absent: any live one. */
  allow?: Uint32Array;
}

/** The one walk asked for in a turn of the main thread, given to one worker. */
export interface WalkRequest {
  type: 'walk';
  walk: Walk;
}

/**
 * The walks asked for in one turn of the main thread, more than one (a batch search, several
 * requests, a query's prefetches), sent to every worker: each takes the next walk nobody has
 * taken (compare-and-swap of its reader slot into `claims`, 0: not taken) until none is left,
 * answers the ones it walked and then `drained`. A worker held up elsewhere (preempted, linking)
 * leaves its share to the others instead of holding the request up.
 */
export interface SharedWalksRequest {
  type: 'shared';
  id: number;
  /** Each graph the walks read, with its layout and codes' layout where this worker's copy is out of date. */
  graphs: { graph: number; layout?: GraphLayout; codes?: QuantizedLayout }[];
  /** Without layouts (they come in `graphs`); the queries are views of one shared buffer. */
  walks: Walk[];
  claims: Int32Array;
}

/** Prepared nodes of a graph for a worker to link (HnswIndex.linkPrepared), beside the other workers. */
export interface LinkRequest {
  type: 'link';
  id: number;
  graph: number;
  layout?: GraphLayout;
  slots: Int32Array;
  /**
   * This worker is the graph's only writer while it links these (it is the pool's only worker,
   * and the main thread writes nothing while a batch is out): it reads lists in place, with no
   * sequence lock, as the main thread does when it links.
   */
  alone: boolean;
}

/** Drops a graph the main thread no longer has (its collection was deleted or replaced). */
export interface ForgetRequest {
  type: 'forget';
  graph: number;
}

export type WorkerRequest = WalkRequest | SharedWalksRequest | LinkRequest | ForgetRequest;

/** Each walk's slots, a link's end, a shared request's end, or what failed; a worker answers a message with a list of them. */
export type WorkerAnswer = { id: number; slots: Int32Array } | { id: number; linked: true; inPlace: boolean } | { id: number; drained: true } | { id: number; error: string };
