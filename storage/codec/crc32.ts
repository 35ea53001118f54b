/**
 * CRC-32 (IEEE 802.3, as zlib), slicing by 8: eight tables, eight bytes a step. Every snapshot,
 * export file, log record and staged import block is checked with it, so start-up from a large
 * snapshot spent most of its time here with the one-table, byte-at-a-time loop (about 150 MB/s;
 * this runs several times faster). Pure TypeScript so the browser build needs no shim.
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

export function crc32(bytes: Uint8Array, start = 0, end = bytes.length, previous = 0): number {
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
