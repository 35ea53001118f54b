import { BATCH_SLOTS } from './vector-segments.js';

/**
 * A thread's batch area in a memory of vectors or codes: slot numbers are written into `slots`,
 * then one call (simd-kernels.ts manyBody) compares them all with the query, their rows read from
 * memory together. The distance of slots[i] is `shift + sign * (scale * out[i] + offset)`, the
 * same number, bit for bit, that the one-at-a-time function gives; scale and offset may change
 * with each query (int8 codes), so they are read once per call.
 */
export interface QueryBatch {
  readonly slots: Uint32Array;
  readonly out: Float64Array;
  readonly shift: number;
  readonly sign: number;
  readonly scale: number;
  readonly offset: number;
  /** From the query to slots[0..n). */
  toQuery(n: number): void;
}

/** A batch over floats, which also compares slots with a slot (linking). */
export interface DistanceBatch extends QueryBatch {
  /** From slot a to slots[0..n), in the metric. */
  fromSlot(a: number, n: number): void;
  /** From slot a to slots[0..n), squared Euclidean whatever the metric: out[i] as it is. */
  l2FromSlot(a: number, n: number): void;
}

/** The views of a batch area at byte `at` of `buffer`: BATCH_SLOTS slot numbers, then their results. */
export function batchViews(buffer: ArrayBufferLike, at: number): { slots: Uint32Array; out: Float64Array; slotsAt: number; outAt: number } {
  const outAt = at + BATCH_SLOTS * 4;
  return { slots: new Uint32Array(buffer, at, BATCH_SLOTS), out: new Float64Array(buffer, outAt, BATCH_SLOTS), slotsAt: at, outAt };
}

/** The distances from the query to slots[0..n) into out[0..n), through `batch` BATCH_SLOTS at a time. */
export function batchToQuery(batch: QueryBatch, slots: ArrayLike<number>, n: number, out: Float64Array): void {
  const { slots: into, out: raw, shift, sign, scale, offset } = batch;
  for (let first = 0; first < n; first += BATCH_SLOTS) {
    const count = Math.min(BATCH_SLOTS, n - first);
    for (let i = 0; i < count; i++) into[i] = slots[first + i]!;
    batch.toQuery(count);
    for (let i = 0; i < count; i++) out[first + i] = shift + sign * (scale * raw[i]! + offset);
  }
}
