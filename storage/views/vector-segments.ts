/** A wasm32 memory holds at most 65,536 pages of 64 KiB (4 GiB). */
export const MAX_MEMORY_BYTES = 65536 * 65536;

/** Query scratch areas (and, past one segment, cross rows) per segment: one for the writing thread, the rest for search workers. */
export const READER_SLOTS = 32;

/** Bytes a segment of a store may take, for stores made without an explicit segment size (setVectorSegmentBytes). */
let segmentBytes = MAX_MEMORY_BYTES;

/**
 * Sets the bytes each vector segment may take for stores made from now on (tests and tools use
 * small segments to cross their boundaries with few points); the default fills one memory.
 */
export function setVectorSegmentBytes(bytes: number): void {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > MAX_MEMORY_BYTES) throw new RangeError(`a vector segment takes 1 to ${MAX_MEMORY_BYTES} bytes, not ${bytes}`);
  segmentBytes = bytes;
}

/** Bytes of one thread's query area (and cross row): a vector rounded up to 16 bytes. */
export function queryStride(dim: number): number {
  return Math.ceil((dim * 4) / 16) * 16;
}

/** Slots one batched distance call compares (simd-kernels.ts l2Many / dotMany). */
export const BATCH_SLOTS = 64;

/** Bytes of one thread's batch area: BATCH_SLOTS u32 slot numbers, then as many float64 results. */
export const BATCH_AREA_BYTES = BATCH_SLOTS * 12;

/** Bytes of one thread's area at the head of a float memory: its query row, then its batch area. */
export function readerAreaBytes(dim: number): number {
  return queryStride(dim) + BATCH_AREA_BYTES;
}

/** Bytes a full segment of `slots` vectors takes in its memory: the threads' areas, the rows, the cross rows. */
export function segmentMemoryBytes(dim: number, slots: number): number {
  return readerAreaBytes(dim) * READER_SLOTS + Math.ceil((slots * dim * 4) / 16) * 16 + queryStride(dim) * READER_SLOTS;
}

/** The slots per segment of a `dim`-dimensional store: the largest power of two whose full segment fits the segment bytes (at least 1). */
export function segmentSlotsFor(dim: number, bytes = segmentBytes): number {
  let slots = 1;
  while (segmentMemoryBytes(dim, slots * 2) <= bytes) slots *= 2;
  return slots;
}
