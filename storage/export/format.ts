import { ByteWriter } from '../codec/byte-writer.js';
import { crc32 } from '../codec/crc32.js';

/**
 * The export file, version 7 (little-endian):
 *
 *   file    := magic "VGDB" | u16 version | u16 reserved (0) | block*
 *   block   := u8 type | u32 payload length | u32 CRC-32 of the payload | payload
 *   HEADER  (1): str collection name | config | f64 point count | f64 edge count
 *                from version 5 also: f64 operation_id | str settings JSON
 *                from version 6 the config ends with the named dense and the sparse vectors' configs,
 *                from version 7 then the multivectors' (u32 n | n x (str name | u32 size | u8 distance | u8 comparator))
 *   POINTS  (2): u32 n | n points (id, u8 flags, [u32 dim, dim float32], str payload, u16 labels, str*)
 *                from version 6 flag 2: named dense vectors (u32 n | n x (str name, u32 dim, dim float32))
 *                and flag 4: sparse vectors (u32 n | n x (str name, u32 nnz, nnz u32 indices, nnz float32))
 *                follow the unnamed vector; from version 7 flag 8: multivectors
 *                (u32 n | n x (str name, u32 row size, u32 rows, rows x size float32)) follow those
 *   EDGES   (3): u32 n | n edges (id from, id to, str relation, f64 weight, str properties or "")
 *   id      := u8 0 | f64 integer id, or u8 1 | 16 bytes of a UUID
 *   TRAILER (4): f64 point count | f64 edge count | u32 blocks before it
 *   INDEXES (5, right after HEADER, from version 4): u32 n | n x (str field | str type | str options JSON)
 *
 * HEADER comes first and TRAILER last; strings are u32 byte length + UTF-8. Points and edges are
 * encoded as in log entries of the same version number: version 1 has float32 weights and no
 * properties, versions 1 and 2 write every id as a bare f64. The header's operation_id is the
 * exporting database's newest when it wrote the file: an import raises the counter above it.
 * A payload or properties string is JSON; from version 6 it may be followed by a NUL and the
 * JSON map of the Cypher types of its properties (storage/codec/payload-text.ts).
 */
export const MAGIC = Uint8Array.of(0x56, 0x47, 0x44, 0x42);
export const FORMAT_VERSION = 7;
/** The first version whose header carries the operation_id and the collection's settings. */
export const HEADER_OPERATION_AND_SETTINGS = 5;

/** The log entry format the points and edges of a file of this version are encoded in. */
export function entryVersionOf(formatVersion: number): number {
  return formatVersion;
}
export const FILE_PREAMBLE = 8;
export const BLOCK_HEADER = 9;
export const FILE_EXTENSION = 'vgdb';

export const BLOCK = { header: 1, points: 2, edges: 3, trailer: 4, indexes: 5 } as const;

export function preamble(): Uint8Array {
  const w = new ByteWriter(FILE_PREAMBLE);
  return w.bytes(MAGIC).u16(FORMAT_VERSION).u16(0).finish();
}

/** One framed block around a payload. */
export function block(type: number, payload: Uint8Array): Uint8Array {
  const w = new ByteWriter(payload.length + BLOCK_HEADER);
  return w.u8(type).u32(payload.length).u32(crc32(payload)).bytes(payload).finish();
}
