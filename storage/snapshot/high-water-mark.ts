import { ByteReader } from '../codec/byte-reader.js';
import { ByteWriter } from '../codec/byte-writer.js';
import { crc32 } from '../codec/crc32.js';
import { CorruptDataError } from '../errors.js';

/**
 * What is known durable, kept apart from the log so that start-up can tell a log that lost its
 * tail (or was deleted, or replaced) from one that is whole.
 *
 *   file := magic "VGHW" | u16 version | u16 0 | f64 operation_id | f64 snapshot operation_id
 *           | f64 reserved-through operation_id | u32 CRC-32 of the bytes before it
 */
export interface HighWaterMark {
  /** The highest operation_id known to have been durable in the log. */
  opId: number;
  /** The operation_id of the newest snapshot written (0: none). */
  snapshotOpId: number;
  /**
   * No operation_id above this was handed out while this mark stood: after a loss is accepted the
   * counter starts above it, so an id acknowledged after the last mark write is never reused.
   */
  reservedThrough: number;
}

const MAGIC = Uint8Array.of(0x56, 0x47, 0x48, 0x57);
const VERSION = 1;
const SIZE = 36;

export function encodeMark(mark: HighWaterMark): Uint8Array {
  const body = new ByteWriter(SIZE).bytes(MAGIC).u16(VERSION).u16(0).f64(mark.opId).f64(mark.snapshotOpId).f64(mark.reservedThrough).finish();
  return new ByteWriter(SIZE).bytes(body).u32(crc32(body)).finish();
}

export function decodeMark(bytes: Uint8Array): HighWaterMark {
  if (bytes.length !== SIZE) throw new CorruptDataError(`it is ${bytes.length} bytes, not ${SIZE}`);
  const r = new ByteReader(bytes);
  if (!MAGIC.every((b) => r.u8() === b)) throw new CorruptDataError('bad magic');
  const version = r.u16();
  if (version !== VERSION) throw new CorruptDataError(`unsupported version ${version}`);
  r.u16();
  const opId = r.f64();
  const snapshotOpId = r.f64();
  const reservedThrough = r.f64();
  if (r.u32() !== crc32(bytes, 0, SIZE - 4)) throw new CorruptDataError('it fails its checksum');
  if (![opId, snapshotOpId, reservedThrough].every((n) => Number.isSafeInteger(n) && n >= 0)) throw new CorruptDataError('it holds an impossible operation_id');
  return { opId, snapshotOpId, reservedThrough };
}
