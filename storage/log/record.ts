import { crc32 } from '../codec/crc32.js';
import { CorruptDataError, DamagedEntryError } from '../errors.js';
import { decodeEvent, isStagedImportCode } from '../events/codec.js';
import type { DbEvent, ImportCollectionEvent } from '../events/types.js';

/**
 * One log record: u32 CRC-32 of the rest, then the body (an encoded event), or for a record
 * chained to the one before (see chain.ts) the tag 0xFF and the entry's 32-byte chain hash
 * before the body. An event's body starts with its type code (1 to 11), never 0xFF, so both
 * kinds read back. LMDB keeps no checksums of its own, so every record carries one.
 */
const CHAINED = 0xff;
export const CHAIN_HASH_BYTES = 32;

export function frameRecord(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + 4);
  out.set(body, 4);
  new DataView(out.buffer).setUint32(0, crc32(out, 4), true);
  return out;
}

/** A record that carries its chain hash. */
export function frameChained(body: Uint8Array, hash: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + CHAIN_HASH_BYTES + body.length);
  out[4] = CHAINED;
  out.set(hash, 5);
  out.set(body, 5 + CHAIN_HASH_BYTES);
  new DataView(out.buffer).setUint32(0, crc32(out, 4), true);
  return out;
}

/** The body of a framed record, after checking its CRC. */
export function unframeRecord(record: Uint8Array, opId: number): Uint8Array {
  if (record.length < 4) throw new CorruptDataError(`log entry ${opId} is ${record.length} bytes, too short for a record`);
  const stored = new DataView(record.buffer, record.byteOffset, record.byteLength).getUint32(0, true);
  if (crc32(record, 4) !== stored) throw new CorruptDataError(`log entry ${opId} fails its checksum`);
  if (record[4] !== CHAINED) return record.subarray(4);
  if (record.length < 5 + CHAIN_HASH_BYTES) throw new CorruptDataError(`log entry ${opId} is too short for its chain hash`);
  return record.subarray(5 + CHAIN_HASH_BYTES);
}

/** The chain hash a record carries; null for one written before the log was chained. */
export function chainHashOf(record: Uint8Array): Uint8Array | null {
  return record.length >= 5 + CHAIN_HASH_BYTES && record[4] === CHAINED ? record.subarray(5, 5 + CHAIN_HASH_BYTES) : null;
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

/**
 * The event of a streamed import's record (its blocks staged beside the log), or null for any
 * other record, which is told by its type code without being read (an entry may be 100 MB).
 */
export function stagedImportOf(opId: number, record: Uint8Array): ImportCollectionEvent | null {
  const body = record.length > 4 && record[4] === CHAINED ? 5 + CHAIN_HASH_BYTES : 4;
  if (!isStagedImportCode(record[body + 1])) return null;
  const event = decodeEntry(opId, record);
  return event.type === 'import_collection' && event.staged ? event : null;
}
