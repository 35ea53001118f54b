import { MAX_MEMORY_BYTES, SIMD_FROM_BYTES } from './point-store.js';
import { BATCH_AREA_BYTES, READER_SLOTS } from './vector-segments.js';
import { CAN_SHARE } from './shared-arrays.js';

const PAGE = 65536;

export interface PlacedCodes {
  bytes: Uint8Array;
  /** The WebAssembly memory the bytes are in, or null while they are in a plain buffer. */
  memory: WebAssembly.Memory | null;
}

/**
 * Room for `length` bytes of quantized codes, `old` copied in: a plain buffer while small (a
 * process can make only so many memories, point-store.ts), a WebAssembly memory from
 * SIMD_FROM_BYTES on, where the SIMD kernels read them (grown in place after that), shared where
 * threads can share, so search workers read the codes too.
 */
export function placeCodes(old: PlacedCodes, length: number): PlacedCodes {
  if (old.bytes.length >= length) return old;
  let memory = old.memory;
  if (!memory && length >= SIMD_FROM_BYTES) {
    try {
      memory = new WebAssembly.Memory({ initial: Math.ceil(length / PAGE), maximum: MAX_MEMORY_BYTES / PAGE, shared: CAN_SHARE });
    } catch {
      memory = null;
    }
  }
  if (!memory) {
    const bytes = new Uint8Array(length);
    bytes.set(old.bytes);
    return { bytes, memory: null };
  }
  const needed = Math.ceil(length / PAGE) - memory.buffer.byteLength / PAGE;
  if (needed > 0) memory.grow(needed);
  const bytes = new Uint8Array(memory.buffer, 0, length);
  // A memory just made starts empty; one grown keeps its bytes (the old view is detached).
  if (memory !== old.memory) bytes.set(old.bytes);
  return { bytes, memory };
}

/**
 * Rows of `stride` bytes each thread has at the head of a code segment: its query row, and with
 * `batched` its batch area after it (BATCH_AREA_BYTES in whole rows). Thread r's query row is row
 * r * areaRows; the slots' rows come after READER_SLOTS such areas (codeHeadRows).
 */
export function codeAreaRows(stride: number, batched: boolean): number {
  return 1 + (batched ? Math.ceil(BATCH_AREA_BYTES / stride) : 0);
}

/** Rows before a code segment's first slot: READER_SLOTS areas of codeAreaRows. */
export function codeHeadRows(stride: number, batched: boolean): number {
  return READER_SLOTS * codeAreaRows(stride, batched);
}

/** Quantized codes in segments (as the floats', vector-segments.md): each segment's bytes, and its memory when in one. */
export interface CodeSegments {
  /** Per segment: the threads' areas (headRows), then its slots' rows, then (past one segment) READER_SLOTS cross rows. */
  bytes: Uint8Array[];
  /** One per segment, or none while the codes are in plain buffers. */
  memories: WebAssembly.Memory[];
}

/** Bytes of a full segment of `slots` rows of `stride` bytes after `headRows`: the threads' areas, the rows, the cross rows. */
export function codeSegmentBytes(stride: number, slots: number, headRows: number): number {
  return stride * (headRows + slots + READER_SLOTS);
}

/**
 * Room for `cap` slots of `stride`-byte codes, after `headRows` (codeHeadRows), in segments of `segmentSlots`: one segment grows as
 * placeCodes does (a plain buffer while small, a memory from SIMD_FROM_BYTES on); past one, every
 * segment takes its full size, in a memory of its own (plain buffers, all of them, when the process
 * can create no more memories).
 */
export function placeCodeSegments(old: CodeSegments, stride: number, cap: number, segmentSlots: number, headRows: number): CodeSegments {
  const count = Math.max(1, Math.ceil(cap / segmentSlots));
  if (count === 1) {
    const placed = placeCodes({ bytes: old.bytes[0] ?? new Uint8Array(0), memory: old.memories[0] ?? null }, stride * (cap + headRows));
    return { bytes: [placed.bytes], memories: placed.memory ? [placed.memory] : [] };
  }
  const full = codeSegmentBytes(stride, segmentSlots, headRows);
  if (old.bytes.length === count && old.bytes.every((b) => b.length >= full)) return old;
  const inMemory = old.memories.length > 0 || stride * (cap + headRows) >= SIMD_FROM_BYTES;
  const memories: WebAssembly.Memory[] = [];
  const bytes: Uint8Array[] = [];
  for (let k = 0; k < count; k++) {
    let memory: WebAssembly.Memory | null = old.memories[k] ?? null;
    if (inMemory && !memory) {
      try {
        memory = new WebAssembly.Memory({ initial: Math.ceil(full / PAGE), maximum: Math.ceil(full / PAGE), shared: CAN_SHARE });
      } catch {
        memory = null;
      }
    }
    if (inMemory && !memory) return { bytes: Array.from({ length: count }, (_, j) => copied(old.bytes[j], full)), memories: [] };
    if (memory) {
      const needed = Math.ceil(full / PAGE) - memory.buffer.byteLength / PAGE;
      if (needed > 0) memory.grow(needed);
      const view = new Uint8Array(memory.buffer, 0, full);
      if (memory !== old.memories[k] && old.bytes[k]) view.set(old.bytes[k]!);
      memories.push(memory);
      bytes.push(view);
    } else bytes.push(copied(old.bytes[k], full));
  }
  return { bytes, memories };
}

/** `length` bytes in a plain buffer, `from` copied in (at most `length` of it). */
function copied(from: Uint8Array | undefined, length: number): Uint8Array {
  if (from && from.length === length && !(from.buffer instanceof SharedArrayBuffer) && from.byteOffset === 0) return from;
  const bytes = new Uint8Array(length);
  if (from) bytes.set(from.subarray(0, Math.min(from.length, length)));
  return bytes;
}
