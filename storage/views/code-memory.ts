import { MAX_MEMORY_BYTES, SIMD_FROM_BYTES } from './point-store.js';
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
