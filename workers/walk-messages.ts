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

/** The walks given to one worker in one turn of the main thread (a batch search's share), sent as one message. */
export interface WalksRequest {
  type: 'walks';
  walks: Walk[];
}

/** Prepared nodes of a graph for a worker to link (HnswIndex.linkPrepared), beside the other workers. */
export interface LinkRequest {
  type: 'link';
  id: number;
  graph: number;
  layout?: GraphLayout;
  slots: Int32Array;
}

/** Drops a graph the main thread no longer has (its collection was deleted or replaced). */
export interface ForgetRequest {
  type: 'forget';
  graph: number;
}

export type WorkerRequest = WalksRequest | LinkRequest | ForgetRequest;

/** Each walk's slots, a link's end, or what failed; a worker answers a message with a list of them. */
export type WorkerAnswer = { id: number; slots: Int32Array } | { id: number; linked: true } | { id: number; error: string };
