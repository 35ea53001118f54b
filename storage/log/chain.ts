import { createHash } from 'node:crypto';
import { CHAIN_HASH_BYTES, chainHashOf, unframeRecord } from './record.js';
import type { RawEntry } from './event-log.js';

/** The predecessor of the first chained entry. */
export const GENESIS = new Uint8Array(CHAIN_HASH_BYTES);

/**
 * Tamper evidence: each entry's hash is SHA-256 over the hash of the entry before it, its
 * operation_id (u64 little-endian) and its body, so changing, dropping or reordering any entry
 * changes every hash after it, and the head hash names the whole history.
 */
export function chainHash(previous: Uint8Array, opId: number, body: Uint8Array): Uint8Array {
  const id = Buffer.alloc(8);
  id.writeBigUInt64LE(BigInt(opId));
  return new Uint8Array(createHash('sha256').update(previous).update(id).update(body).digest());
}

export const hex = (hash: Uint8Array): string => Buffer.from(hash).toString('hex');

/** The log's head hash once `record` is its newest entry: the record's chain hash, or GENESIS for one written before the log was chained. */
export const headAfter = (record: Uint8Array): Uint8Array => chainHashOf(record) ?? GENESIS;

export interface ChainCheck {
  /** Entries whose link to the one before was checked. */
  linked: number;
  /** Where checking started: the first chained entry held (its own link cannot be checked once older entries are dropped). */
  anchor: number | null;
  head: Uint8Array | null;
  /** The first entry that does not follow from the one before, and why. */
  broken: { opId: number; reason: string } | null;
}

/**
 * Checks held entries, in order, each chained one against its predecessor. Entries written
 * before the log was chained are passed over; an unchained entry after a chained one breaks
 * the chain. Records given must have read back whole (their CRC checked).
 */
export class ChainWalker {
  private previous: Uint8Array | null = null;
  private anchor: number | null = null;
  private linked = 0;
  private broken: ChainCheck['broken'] = null;

  add(opId: number, record: Uint8Array): void {
    if (this.broken) return;
    const stored = chainHashOf(record);
    if (stored === null) {
      if (this.previous !== null) this.broken = { opId, reason: 'it carries no chain hash, but the entry before it does' };
      return;
    }
    if (this.previous === null) this.anchor = opId;
    else if (hex(chainHash(this.previous, opId, unframeRecord(record, opId))) !== hex(stored)) {
      this.broken = { opId, reason: 'its chain hash does not follow from the entry before it (changed, dropped or reordered entries)' };
      return;
    } else this.linked++;
    this.previous = stored;
  }

  result(): ChainCheck {
    return { linked: this.linked, anchor: this.anchor, head: this.previous, broken: this.broken };
  }
}

/** Checks a run of held entries (see ChainWalker). */
export function checkChain(entries: Iterable<RawEntry>): ChainCheck {
  const walker = new ChainWalker();
  for (const { opId, record } of entries) walker.add(opId, record);
  return walker.result();
}
