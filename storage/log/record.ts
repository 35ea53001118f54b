import { crc32 } from '../codec/crc32.js';
import { CorruptDataError, DamagedEntryError } from '../errors.js';
import { decodeEvent } from '../events/codec.js';
import type { DbEvent } from '../events/types.js';

/**
 * One log record: u32 CRC-32 of the body, then the body (an encoded event).
 * LMDB keeps no checksums of its own, so every record carries one.
 */
export function frameRecord(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + 4);
  new DataView(out.buffer).setUint32(0, crc32(body), true);
  out.set(body, 4);
  return out;
}

/** The body of a framed record, after checking its CRC. */
export function unframeRecord(record: Uint8Array, opId: number): Uint8Array {
  if (record.length < 4) throw new CorruptDataError(`log entry ${opId} is ${record.length} bytes, too short for a record`);
  const stored = new DataView(record.buffer, record.byteOffset, record.byteLength).getUint32(0, true);
  if (crc32(record, 4) !== stored) throw new CorruptDataError(`log entry ${opId} fails its checksum`);
  return record.subarray(4);
}

/** Decodes a stored entry: CRC first, then the event. Damage throws DamagedEntryError. */
export function decodeEntry(opId: number, record: Uint8Array): DbEvent {
  try {
    return decodeEvent(unframeRecord(record, opId));
  } catch (err) {
    if (err instanceof CorruptDataError) throw new DamagedEntryError(opId, err.message);
    throw err;
  }
}
