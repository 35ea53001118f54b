import type { Distance } from '../events/types.js';
import type { PointStore } from './point-store.js';
import { dotScalar, l1Scalar, l2Scalar } from './scalar-kernels.js';
import { batchToQuery, batchViews, type DistanceBatch } from './distance-batch.js';

/** * Internal distances over a store's vectors (smaller is closer): Cosine 1 - a·b on unit
 * vectors, Dot -a·b, Euclid the squared distance, Manhattan the L1 distance. With the store's SIMD kernels when its
 * vectors are in WebAssembly memories, else with their scalar twins; rebound when they move.
 * A store of one segment (most) is bound to functions of slot offsets in that segment alone; one
 * of several finds each slot's segment by a shift, and compares two slots of different segments
 * after copying one vector into the other segment's cross row. A store on disk reads each vector
 * it compares from its file into one of its two rows.
 */
export class VectorSpace {
  /** From the query in the store's scratch area to slot x. */
  toQuery!: (x: number) => number;
  /** Between slots a and b. */
  between!: (a: number, b: number) => number;
  /** Squared Euclidean distance between slots a and b, whatever the metric. */
  l2Between!: (a: number, b: number) => number;
  /** Batched distances while the vectors are in one WebAssembly memory (see `batch`). */
  private batchArea: DistanceBatch | null = null;

  constructor(readonly store: PointStore, readonly metric: Distance) {
    this.bind();
    store.onRelocate = () => this.bind();
  }

  /**
   * Batched distances while the vectors are in one WebAssembly memory, else null. Its views are
   * made anew when the memory's buffer changes (a memory that is not shared detaches its buffer
   * as it grows, which moves no vector and so calls no onRelocate).
   */
  get batch(): DistanceBatch | null {
    const area = this.batchArea;
    if (area !== null && area.slots.buffer !== this.store.query.buffer) this.batchArea = this.batchIn(this.store.query.buffer);
    return this.batchArea;
  }

  private bind(): void {
    this.batchArea = null;
    if (this.store.onDisk) {
      this.bindOnDisk();
      return;
    }
    if (this.store.segments.length > 1) {
      if (this.store.kernels) this.bindSegments();
      else this.bindPlainSegments();
      return;
    }
    const { store, metric } = this;
    const { kernels, base, dim, queryOffset } = store;
    if (!kernels) {
      this.l2Between = (a, b) => l2Scalar(store.vectors, a * dim, store.vectors, b * dim, dim);
      if (metric === 'Euclid') {
        this.toQuery = (x) => l2Scalar(store.query, 0, store.vectors, x * dim, dim);
        this.between = this.l2Between;
      } else if (metric === 'Manhattan') {
        this.toQuery = (x) => l1Scalar(store.query, 0, store.vectors, x * dim, dim);
        this.between = (a, b) => l1Scalar(store.vectors, a * dim, store.vectors, b * dim, dim);
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
    const { l2, dot, l1 } = kernels;
    this.l2Between = (a, b) => l2(base + a * stride, base + b * stride, dim);
    if (metric === 'Euclid') {
      this.toQuery = (x) => l2(queryOffset, base + x * stride, dim);
      this.between = this.l2Between;
    } else if (metric === 'Manhattan') {
      this.toQuery = (x) => l1(queryOffset, base + x * stride, dim);
      this.between = (a, b) => l1(base + a * stride, base + b * stride, dim);
    } else if (metric === 'Cosine') {
      this.toQuery = (x) => 1 - dot(queryOffset, base + x * stride, dim);
      this.between = (a, b) => 1 - dot(base + a * stride, base + b * stride, dim);
    } else {
      this.toQuery = (x) => -dot(queryOffset, base + x * stride, dim);
      this.between = (a, b) => -dot(base + a * stride, base + b * stride, dim);
    }
    this.batchArea = this.batchIn(store.query.buffer);
  }

  /** The batch area of this thread in the store's one memory (`buffer`): Euclid l2, Manhattan l1, Cosine 1 - dot, Dot -dot. */
  private batchIn(buffer: ArrayBufferLike): DistanceBatch {
    const { store, metric } = this;
    const { kernels, base, dim, queryOffset, batchOffset } = store;
    const { l2Many, dotMany, l1Many } = kernels!;
    const stride = dim * 4;
    const { slots, out, slotsAt, outAt } = batchViews(buffer, batchOffset);
    const many = metric === 'Euclid' ? l2Many : metric === 'Manhattan' ? l1Many : dotMany;
    return {
      slots,
      out,
      shift: metric === 'Cosine' ? 1 : 0,
      sign: metric === 'Euclid' || metric === 'Manhattan' ? 1 : -1,
      scale: 1,
      offset: 0,
      toQuery: (n) => many(queryOffset, slotsAt, n, outAt, base, stride, dim),
      fromSlot: (a, n) => many(base + a * stride, slotsAt, n, outAt, base, stride, dim),
      l2FromSlot: (a, n) => l2Many(base + a * stride, slotsAt, n, outAt, base, stride, dim),
    };
  }

  /** Several segments in memories: each slot's segment's kernels; a pair across two segments compared in a's, b copied into its cross row. */
  private bindSegments(): void {
    const { store, metric } = this;
    const { base, dim, queryOffset, crossOffset, segmentShift: shift, segmentMask: mask } = store;
    const segments = store.segments;
    const kernels = store.segmentKernels;
    const crossRows = store.crossRows;
    const stride = dim * 4;
    const pair = (kernel: 'l2' | 'dot' | 'l1') => (a: number, b: number) => {
      const sa = a >>> shift;
      const sb = b >>> shift;
      if (sa !== sb) {
        const at = (b & mask) * dim;
        crossRows[sa]!.set(segments[sb]!.subarray(at, at + dim));
        return kernels[sa]![kernel](base + (a & mask) * stride, crossOffset, dim);
      }
      return kernels[sa]![kernel](base + (a & mask) * stride, base + (b & mask) * stride, dim);
    };
    const l2Pair = pair('l2');
    const dotPair = pair('dot');
    this.l2Between = l2Pair;
    if (metric === 'Euclid') {
      this.toQuery = (x) => kernels[x >>> shift]!.l2(queryOffset, base + (x & mask) * stride, dim);
      this.between = l2Pair;
    } else if (metric === 'Manhattan') {
      this.toQuery = (x) => kernels[x >>> shift]!.l1(queryOffset, base + (x & mask) * stride, dim);
      this.between = pair('l1');
    } else if (metric === 'Cosine') {
      this.toQuery = (x) => 1 - kernels[x >>> shift]!.dot(queryOffset, base + (x & mask) * stride, dim);
      this.between = (a, b) => 1 - dotPair(a, b);
    } else {
      this.toQuery = (x) => -kernels[x >>> shift]!.dot(queryOffset, base + (x & mask) * stride, dim);
      this.between = (a, b) => -dotPair(a, b);
    }
  }

  /** Several segments in plain arrays: the scalar kernels read any two arrays. */
  private bindPlainSegments(): void {
    const { store, metric } = this;
    const { dim, segmentShift: shift, segmentMask: mask } = store;
    const segments = store.segments;
    const l2 = (a: number, b: number) => l2Scalar(segments[a >>> shift]!, (a & mask) * dim, segments[b >>> shift]!, (b & mask) * dim, dim);
    const dot = (a: number, b: number) => dotScalar(segments[a >>> shift]!, (a & mask) * dim, segments[b >>> shift]!, (b & mask) * dim, dim);
    this.l2Between = l2;
    if (metric === 'Euclid') {
      this.toQuery = (x) => l2Scalar(store.query, 0, segments[x >>> shift]!, (x & mask) * dim, dim);
      this.between = l2;
    } else if (metric === 'Manhattan') {
      this.toQuery = (x) => l1Scalar(store.query, 0, segments[x >>> shift]!, (x & mask) * dim, dim);
      this.between = (a, b) => l1Scalar(segments[a >>> shift]!, (a & mask) * dim, segments[b >>> shift]!, (b & mask) * dim, dim);
    } else if (metric === 'Cosine') {
      this.toQuery = (x) => 1 - dotScalar(store.query, 0, segments[x >>> shift]!, (x & mask) * dim, dim);
      this.between = (a, b) => 1 - dot(a, b);
    } else {
      this.toQuery = (x) => -dotScalar(store.query, 0, segments[x >>> shift]!, (x & mask) * dim, dim);
      this.between = (a, b) => -dot(a, b);
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
    } else if (metric === 'Manhattan') {
      this.toQuery = kernels ? (x) => (store.readRow(x, 0), kernels.l1(queryOffset, a0, dim)) : (x) => l1Scalar(store.query, 0, store.readRow(x, 0), 0, dim);
      this.between = kernels ? (a, b) => (store.readRow(a, 0), store.readRow(b, 1), kernels.l1(a0, b0, dim)) : (a, b) => l1Scalar(store.readRow(a, 0), 0, store.readRow(b, 1), 0, dim);
    } else if (metric === 'Cosine') {
      this.toQuery = (x) => 1 - dotQuery(x);
      this.between = (a, b) => 1 - dot(a, b);
    } else {
      this.toQuery = (x) => -dotQuery(x);
      this.between = (a, b) => -dot(a, b);
    }
  }

  /** toQuery of slots[0..n) into out[0..n): in one kernel call per batch where the vectors allow (rescoring a walk's candidates). */
  toQueryAll(slots: ArrayLike<number>, n: number, out: Float64Array): void {
    const batch = this.batch;
    if (batch !== null) batchToQuery(batch, slots, n, out);
    else for (let i = 0; i < n; i++) out[i] = this.toQuery(slots[i]!);
  }

  /** Puts a prepared query vector (unit length for Cosine) in the scratch area. */
  setQuery(q: ArrayLike<number>): void {
    this.store.setQuery(q);
  }
}
