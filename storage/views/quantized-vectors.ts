import type { Distance } from '../events/types.js';
import { BinaryQuantized } from './binary-quantized.js';
import type { QueryDistance } from './hnsw.js';
import type { PointStore } from './point-store.js';
import type { Quantization } from './quantization-config.js';
import { ScalarQuantized } from './scalar-quantized.js';

/** Quantized codes of a store's vectors, derived from the floats: what a search walks the graph on. */
export interface QuantizedVectors extends QueryDistance {
  /** Bytes the codes take. */
  readonly byteLength: number;
  /** Codes one slot's vector (a point just linked into the graph). */
  add(slot: number): void;
  /** Codes every slot from the store's vectors as they are. */
  rebuild(): void;
}

/** The codes `quantization` asks for over `store`, made from its vectors now. */
export function quantizedVectors(store: PointStore, metric: Distance, quantization: Quantization): QuantizedVectors {
  const codes = quantization.method === 'scalar' ? new ScalarQuantized(store, metric, quantization.quantile) : new BinaryQuantized(store, metric);
  codes.rebuild();
  return codes;
}
