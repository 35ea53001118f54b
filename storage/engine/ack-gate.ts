import type { DbError } from '../errors.js';

/**
 * What stands between a durable log entry and its acknowledgement when the log is replicated
 * (replication/ implements it). Without a gate an entry is applied and acknowledged once LMDB
 * has it, as it always was.
 */
export interface AckGate {
  /** Why this server takes no write just now (a replica names its primary; a fenced primary says why), or null. */
  refusal(): DbError | null;
  /**
   * Told of each entry as it is appended, in operation_id order, with its stored record and its
   * LMDB commit. Resolves when the entry may be applied and acknowledged; a rejection stops
   * writes, as a failed commit does.
   */
  admit(opId: number, record: Uint8Array, durable: Promise<void>): Promise<void>;
  /**
   * How long a request waits for its entry to be admitted (ms; null: as long as it takes). Past
   * it the request is answered with timeoutError, and the entry applies whenever it is admitted.
   */
  readonly ackTimeoutMs: number | null;
  timeoutError(opId: number): DbError;
  /**
   * The newest operation_id a snapshot may drop from the log: entries not yet published must
   * stay (they are published from the log), and so must the newest published one (how a
   * restarted primary knows the stream's newest message for its own).
   */
  truncatableThrough(): number;
}
