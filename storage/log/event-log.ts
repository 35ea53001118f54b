import type { DbEvent } from '../events/types.js';
import type { Sliced } from '../codec/slices.js';

export interface LogEntry {
  opId: number;
  event: DbEvent;
}

/** A log entry as stored: its checksummed record, not yet decoded. */
export interface RawEntry {
  opId: number;
  record: Uint8Array;
}

export interface Appended {
  opId: number;
  /** Resolves once the entry is durable; rejects if it could not be made durable. */
  durable: Promise<void>;
  /** The record as stored (CRC, chain hash, body), for a log that replication publishes from. */
  record?: Uint8Array;
  /** What the entry takes in the log (its record, and a streamed import's staged blocks), for the snapshot trigger. */
  bytes: number;
}

/** A streamed import's blocks being staged in a file beside the log (storage/log/import-stage.ts). */
export interface ImportStaging {
  readonly id: number;
  /** Bytes staged so far. */
  readonly size: number;
  /** Stages one framed block of the file, or on a replica a piece of its primary's stage file as published (copied). */
  add(framed: Uint8Array): void;
  /** Resolves once few enough bytes are in flight to take more; rejects after a write failed. */
  room(): Promise<void>;
  /** Waits until every block is durable; the count and the SHA-256 over them. */
  finish(): Promise<{ blocks: number; digest: Uint8Array }>;
  /** Drops the blocks, unless an entry naming the stage was appended. */
  discard(): Promise<void>;
}

/** Why a logged entry is passed over at replay (recorded by `npm run replay -- repair --skip OP`). */
export interface SkipNote {
  kind: string;
  collection: string;
  /** The error its apply threw. */
  reason: string;
  /** When the skip was recorded (ISO-8601). */
  at: string;
}

/**
 * The write-ahead log: every mutation is one entry keyed by its operation_id, one counter
 * for the whole database that only goes up.
 */
export interface EventLog {
  /** The highest operation_id ever assigned (also after older entries were dropped). */
  readonly lastOperationId: number;
  /** True when an append is durable as it returns (a log in memory): the engine may then apply at once. */
  readonly synchronous: boolean;
  /** The chain hash of the newest entry, in hex, for a log that chains its entries (see chain.ts). */
  readonly headHash?: string;
  /** The lowest operation_id still held; lastOperationId + 1 when the log holds none. */
  readonly firstOperationId: number;
  /**
   * Assigns the next operation_id at once, in call order. With `passOverThrough` above the
   * counter, the entry's id is the one after it, and the ids between are recorded as passed over
   * (never handed out) in the entry's own commit, so that the audit does not take the jump for
   * lost entries and a crash keeps both or neither. `body`: the event's encodeEvent bytes, when
   * the caller has made them already (a large upsert encoded in slices).
   */
  append(event: DbEvent, passOverThrough?: number, body?: Uint8Array): Appended;
  /**
   * Stores a record written by another server's log (a replica following the primary) under its
   * own operation_id, above every id held; ids between are recorded as passed over. Absent: the
   * log cannot follow another.
   */
  appendRecord?(opId: number, record: Uint8Array, stage?: ImportStaging): Appended;
  /** Entries with from <= opId <= to, in order; a damaged entry throws CorruptDataError naming it. */
  read(from?: number, to?: number): Iterable<LogEntry>;
  /** The operation_ids held with from <= opId <= to, in order (no record is read). */
  keys(from?: number, to?: number): Iterable<number>;
  /** The same entries undecoded, for tools that look at damage. */
  readRaw(from?: number, to?: number): Iterable<RawEntry>;
  /** Raises the counter so the next operation_id is above `opId` (no-op when it is already). */
  reserveThrough(opId: number): void;
  /** The ids appends passed over: the first of each run, to its last. */
  passedOver(): ReadonlyMap<number, number>;
  /** Entries set aside by repair --skip, which replay passes over; absent: none. */
  skippedOperations?(): ReadonlyMap<number, SkipNote>;
  /**
   * Where to truncate so that, of the entries at or below `through`, at most `entries` entries
   * and `bytes` bytes stay: the highest operation_id to drop (0: none), measured a slice at a
   * time (an entry not measured before is read whole). Absent: by count only.
   */
  retentionCut?(through: number, entries: number, bytes: number): Sliced<number>;
  /**
   * Starts staging a streamed import; absent: the log takes imports whole, in their entry. With
   * `id`, the stage of that number (a replica staging its primary's, whose entry names it).
   */
  stageImport?(id?: number): ImportStaging;
  /** The file holding a stage's blocks (a primary publishes them from it). */
  stageFile?(stage: number): string;
  /** A stage's framed blocks, checked (CRC each, the digest at the end). */
  stagedBlocks?(stage: number, blocks: number, digest: Uint8Array): Iterable<Uint8Array>;
  /** The streamed imports among the entries from..to whose staged blocks are missing or cut, each with a message naming its file. */
  stageProblems?(from: number, to: number): { opId: number; message: string }[];
  /** Drops the entries up to and including opId (a snapshot holds their effect). */
  truncateThrough(opId: number): Promise<void>;
  close(): Promise<void>;
}
