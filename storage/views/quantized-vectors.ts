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
  /** Codes every slot from the store's vectors as they are. */
  rebuild(): void;
  /** One step of a re-code under way (int8 codes, once their data has doubled); whether one is still under way after it. */
  recodeStep(): boolean;
  /** Whether a re-code is under way. */
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

/** The codes `quantization` asks for over `store`, made from its vectors now. */
export function quantizedVectors(store: PointStore, metric: Distance, quantization: Quantization): QuantizedVectors {
  const codes = quantization.method === 'scalar' ? new ScalarQuantized(store, metric, quantization.quantile) : new BinaryQuantized(store, metric);
  codes.rebuild();
  return codes;
}

/** A search worker's reader of the codes a layout names, over its reader of the same store, in its own query row. */
export function quantizedReader(store: PointStore, layout: QuantizedLayout, row: number): QueryDistance {
  return layout.kind === 'scalar' ? ScalarQuantized.reader(store, layout, row) : BinaryQuantized.reader(store, layout, row);
}
