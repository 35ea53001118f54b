import type { Distance } from '../events/types.js';
import type { PointStore } from './point-store.js';
import { dotScalar, l2Scalar } from './scalar-kernels.js';

/**
 * Internal distances over a store's vectors (smaller is closer): Cosine 1 - a·b on unit
 * vectors, Dot -a·b, Euclid the squared distance. With the store's SIMD kernels when its
 * vectors are in a WebAssembly memory, else with their scalar twins; rebound when they move.
 * A store on disk reads each vector it compares from its file into one of its two rows.
 */
export class VectorSpace {
  /** From the query in the store's scratch area to slot x. */
  toQuery!: (x: number) => number;
  /** Between slots a and b. */
  between!: (a: number, b: number) => number;
  /** Squared Euclidean distance between slots a and b, whatever the metric. */
  l2Between!: (a: number, b: number) => number;

  constructor(readonly store: PointStore, readonly metric: Distance) {
    this.bind();
    store.onRelocate = () => this.bind();
  }

  private bind(): void {
    if (this.store.onDisk) {
      this.bindOnDisk();
      return;
    }
    const { store, metric } = this;
    const { kernels, base, dim, queryOffset } = store;
    if (!kernels) {
      this.l2Between = (a, b) => l2Scalar(store.vectors, a * dim, store.vectors, b * dim, dim);
      if (metric === 'Euclid') {
        this.toQuery = (x) => l2Scalar(store.query, 0, store.vectors, x * dim, dim);
        this.between = this.l2Between;
      } else if (metric === 'Cosine') {
        this.toQuery = (x) => 1 - dotScalar(store.query, 0, store.vectors, x * dim, dim);
        this.between = (a, b) => 1 - dotScalar(store.vectors, a * dim, store.vectors, b * dim, dim);
      } else {
        this.toQuery = (x) => -dotScalar(store.query, 0, store.vectors, x * dim, dim);
        this.between = (a, b) => -dotScalar(store.vectors, a * dim, store.vectors, b * dim, dim);
      }
      return;
    }
    const stride = dim * 4;
    const { l2, dot } = kernels;
    this.l2Between = (a, b) => l2(base + a * stride, base + b * stride, dim);
    if (metric === 'Euclid') {
      this.toQuery = (x) => l2(queryOffset, base + x * stride, dim);
      this.between = this.l2Between;
    } else if (metric === 'Cosine') {
      this.toQuery = (x) => 1 - dot(queryOffset, base + x * stride, dim);
      this.between = (a, b) => 1 - dot(base + a * stride, base + b * stride, dim);
    } else {
      this.toQuery = (x) => -dot(queryOffset, base + x * stride, dim);
      this.between = (a, b) => -dot(base + a * stride, base + b * stride, dim);
    }
  }

  private bindOnDisk(): void {
    const { store, metric } = this;
    const { kernels, dim, queryOffset, rowOffsets } = store;
    const [a0, b0] = rowOffsets;
    const l2 = kernels ? (a: number, b: number) => (store.readRow(a, 0), store.readRow(b, 1), kernels.l2(a0, b0, dim)) : (a: number, b: number) => l2Scalar(store.readRow(a, 0), 0, store.readRow(b, 1), 0, dim);
    const dot = kernels ? (a: number, b: number) => (store.readRow(a, 0), store.readRow(b, 1), kernels.dot(a0, b0, dim)) : (a: number, b: number) => dotScalar(store.readRow(a, 0), 0, store.readRow(b, 1), 0, dim);
    const l2Query = kernels ? (x: number) => (store.readRow(x, 0), kernels.l2(queryOffset, a0, dim)) : (x: number) => l2Scalar(store.query, 0, store.readRow(x, 0), 0, dim);
    const dotQuery = kernels ? (x: number) => (store.readRow(x, 0), kernels.dot(queryOffset, a0, dim)) : (x: number) => dotScalar(store.query, 0, store.readRow(x, 0), 0, dim);
    this.l2Between = l2;
    if (metric === 'Euclid') {
      this.toQuery = l2Query;
      this.between = l2;
    } else if (metric === 'Cosine') {
      this.toQuery = (x) => 1 - dotQuery(x);
      this.between = (a, b) => 1 - dot(a, b);
    } else {
      this.toQuery = (x) => -dotQuery(x);
      this.between = (a, b) => -dot(a, b);
    }
  }

  /** Puts a prepared query vector (unit length for Cosine) in the scratch area. */
  setQuery(q: ArrayLike<number>): void {
    this.store.query.set(q);
  }
}
