import type { Distance } from '../events/types.js';
import type { PointStore } from './point-store.js';

/**
 * Internal distances over a store's vectors with its SIMD kernels (smaller is closer):
 * Cosine 1 - a·b on unit vectors, Dot -a·b, Euclid the squared distance.
 */
export class VectorSpace {
  /** From the query in the store's scratch area to slot x. */
  readonly toQuery: (x: number) => number;
  /** Between slots a and b. */
  readonly between: (a: number, b: number) => number;
  /** Squared Euclidean distance between slots a and b, whatever the metric. */
  readonly l2Between: (a: number, b: number) => number;

  constructor(readonly store: PointStore, readonly metric: Distance) {
    const { kernels, base, dim } = store;
    const stride = dim * 4;
    const { l2, dot } = kernels;
    this.l2Between = (a, b) => l2(base + a * stride, base + b * stride, dim);
    if (metric === 'Euclid') {
      this.toQuery = (x) => l2(0, base + x * stride, dim);
      this.between = this.l2Between;
    } else if (metric === 'Cosine') {
      this.toQuery = (x) => 1 - dot(0, base + x * stride, dim);
      this.between = (a, b) => 1 - dot(base + a * stride, base + b * stride, dim);
    } else {
      this.toQuery = (x) => -dot(0, base + x * stride, dim);
      this.between = (a, b) => -dot(base + a * stride, base + b * stride, dim);
    }
  }

  /** Puts a prepared query vector (unit length for Cosine) in the scratch area. */
  setQuery(q: ArrayLike<number>): void {
    this.store.query.set(q);
  }
}
