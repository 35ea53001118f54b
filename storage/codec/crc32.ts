/**
 * CRC-32 (IEEE 802.3, as zlib). Every snapshot, export file, log record and staged import block
 * is checked with it, on the request thread: under Node it is zlib's own (`crc32`, about 3 GB/s,
 * seven times the portable loop below), reached through process.getBuiltinModule so that the
 * browser build, which has no process, imports nothing and uses the portable one.
 */
const TABLES = (() => {
  const t = new Uint32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) for (let k = 1; k < 8; k++) t[k * 256 + n] = (t[(k - 1) * 256 + n]! >>> 8) ^ t[t[(k - 1) * 256 + n]! & 0xff]!;
  return t;
})();

/**
 * The portable CRC-32, slicing by 8: eight tables, eight bytes a step (about 400 MB/s; the
 * one-table, byte-at-a-time loop ran at 150 MB/s). `previous` is the CRC of the bytes before.
 */
export function portableCrc32(bytes: Uint8Array, start = 0, end = bytes.length, previous = 0): number {
  const t = TABLES;
  // Going on from `previous`, the CRC of the bytes before: the CRC of a stream fed in pieces.
  let c = (previous ^ 0xffffffff) >>> 0;
  let i = start;
  for (const last = end - 8; i <= last; i += 8) {
    const lo = (c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))) >>> 0;
    const hi = bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24);
    c =
      t[1792 + (lo & 0xff)]! ^
      t[1536 + ((lo >>> 8) & 0xff)]! ^
      t[1280 + ((lo >>> 16) & 0xff)]! ^
      t[1024 + (lo >>> 24)]! ^
      t[768 + (hi & 0xff)]! ^
      t[512 + ((hi >>> 8) & 0xff)]! ^
      t[256 + ((hi >>> 16) & 0xff)]! ^
      t[(hi >>> 24) & 0xff]!;
  }
  for (; i < end; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

type NativeCrc32 = (data: Uint8Array, value?: number) => number;
const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
const native = (runtime?.getBuiltinModule?.('node:zlib') as { crc32?: NativeCrc32 } | undefined)?.crc32;

/** The CRC-32 of bytes [start, end), going on from `previous` (the CRC of the bytes before): the CRC of a stream fed in pieces. */
export const crc32: (bytes: Uint8Array, start?: number, end?: number, previous?: number) => number = native
  ? (bytes, start = 0, end = bytes.length, previous = 0) => native(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end), previous)
  : portableCrc32;
