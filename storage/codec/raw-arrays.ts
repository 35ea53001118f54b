import type { ByteReader } from './byte-reader.js';
import type { ByteWriter } from './byte-writer.js';

type Typed = Float64Array | Float32Array | Int32Array | Uint32Array | Int8Array | Uint8Array;

/** Writes the first `count` elements of a typed array as raw little-endian bytes. */
export function writeRaw(w: ByteWriter, a: Typed, count: number): void {
  w.bytes(new Uint8Array(a.buffer, a.byteOffset, count * a.BYTES_PER_ELEMENT));
}

/** Reads `count` elements written by writeRaw into the start of `a`. */
export function readRaw(r: ByteReader, a: Typed, count: number): void {
  r.copyInto(new Uint8Array(a.buffer, a.byteOffset, count * a.BYTES_PER_ELEMENT));
}
