import type { DbEvent } from '../events/types.js';

export interface LogEntry {
  opId: number;
  event: DbEvent;
}

export interface Appended {
  opId: number;
  /** Resolves once the entry is durable; rejects if it could not be made durable. */
  durable: Promise<void>;
}

/**
 * The write-ahead log: every mutation is one entry keyed by its operation_id, one counter
 * for the whole database that only goes up.
 */
export interface EventLog {
  readonly lastOperationId: number;
  /** Assigns the next operation_id at once, in call order. */
  append(event: DbEvent): Appended;
  /** Entries with from <= opId <= to, in order. */
  read(from?: number, to?: number): Iterable<LogEntry>;
  close(): Promise<void>;
}
