import type { Distance } from '../events/types.js';
import { BinaryQuantized, type BinaryLayout } from './binary-quantized.js';
import type { NodeDistance, QueryDistance } from './hnsw.js';
import type { PointStore } from './point-store.js';
import type { Quantization } from './quantization-config.js';
import { ScalarQuantized, type ScalarLayout } from './scalar-quantized.js';

/** What a search worker needs to walk a graph on the codes (quantizedReader). */
export type QuantizedLayout = ScalarLayout | BinaryLayout;

/** Quantized codes of a store's vectors, derived from the floats: what a search walks the graph on. */
export interface QuantizedVectors extends QueryDistance {
  /** Bytes the codes take. */
  readonly byteLength: number;
  /** Codes one slot's vector (a point just linked into the graph). */
  add(slot: number): void;
  /** Codes every slot from the store's vectors as they are, at once. */
  rebuild(): void;
  /** Begins coding every slot a step at a time (recodeStep); the codes are not `whole` until every one is. */
  buildInSteps(): void;
  /** Whether every vector is coded, so that searches may walk the codes (false while a build in steps is under way). */
  readonly whole: boolean;
  /** One step of a coding under way (a build in steps, or int8 codes made anew once their data has doubled); whether one is still under way after it. */
  recodeStep(): boolean;
  /** Whether a coding is under way (a build in steps, or a re-code). */
  readonly recoding: boolean;
  /** What a search worker needs to read the codes, or null while they are in a plain buffer. */
  layout(): QuantizedLayout | null;
  /** Distances between coded slots good enough to link a graph on (int8), or null (binary's are too coarse). */
  nodeDistance(): NodeDistance | null;
  /**
   * How many of a walk's candidates (ef of them, nearest first by the codes) the floats rescore
   * for the k best: as many as the codes need for those k to be among them (limit × oversampling
   * raises it further, vector-search.ts).
   */
  rescoreCount(k: number, ef: number): number;
}

/**
 * Values coded at once when codes are made for vectors already stored (a few milliseconds of
 * work); a store holding more is coded a step at a time, beside requests.
 */
const AT_ONCE_VALUES = 2 ** 20;

/**
 * The codes `quantization` asks for over `store`, made from its vectors: now when `atOnce` (a
 * collection being loaded, before any request) or when they are few; else a step at a time
 * (recodeStep), while searches walk the floats: coding 500,000 x 128 at once held every request
 * for 1.3 s.
 */
export function quantizedVectors(store: PointStore, metric: Distance, quantization: Quantization, atOnce: boolean): QuantizedVectors {
  const inSteps = !atOnce && store.slotCount * store.dim > AT_ONCE_VALUES;
  const codes = quantization.method === 'scalar' ? new ScalarQuantized(store, metric, quantization.quantile) : new BinaryQuantized(store, metric);
  if (inSteps) codes.buildInSteps();
  else codes.rebuild();
  return codes;
}

/** A search worker's reader of the codes a layout names, over its reader of the same store, in its own query row. */
export function quantizedReader(store: PointStore, layout: QuantizedLayout, row: number): QueryDistance {
  return layout.kind === 'scalar' ? ScalarQuantized.reader(store, layout, row) : BinaryQuantized.reader(store, layout, row);
}
