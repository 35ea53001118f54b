import type { SnapshotStore } from '../snapshot/snapshot-store.js';
import type { EventLog } from './event-log.js';
import { skipPassedOver } from './passed-over.js';

/** Operations known durable that the log cannot give back; `from > to` when none is lost but the log fell behind. */
export interface LogProblem {
  from: number;
  to: number;
  message: string;
  /** The entry is there but cannot be applied (a streamed import whose staged file is missing or cut): accepting the loss passes over it. */
  unapplicable?: number;
}

/** Something outside the log that proves an operation was durable. */
export interface KnownDurable {
  opId: number;
  source: string;
}

/** Start-up found the log missing operations known durable; the message names each and how to go on. */
export class LogLossError extends Error {
  constructor(readonly problems: readonly LogProblem[]) {
    super(problems.map((p) => p.message).join('; '));
    this.name = 'LogLossError';
  }
}

export interface LogAuditInput {
  /** The operation the state is rebuilt from (the snapshot's; 0 without one): every entry after it is needed. */
  base: number;
  /** Entries from here on must follow each other without a hole (1: the whole log, as the replay tool checks it). */
  scanFrom?: number;
  /** The last operation the state needs (a past state for the replay tool); the log's end is checked only without it. */
  until?: number;
  known?: readonly KnownDurable[];
}

const span = (from: number, to: number): string => `operations ${from} to ${to} are`;

/**
 * Proves the log whole: its entries follow each other with no hole from `scanFrom` on (ids an
 * import passed over are no hole), it holds every entry after `base`, the streamed imports among
 * them have their staged files, and it reaches every operation that `known` says was durable.
 * LMDB keeps no checksums, so a damaged file can lose entries without an error; this is what
 * notices. Answers what is missing (empty: nothing).
 */
export function findLogProblems(log: EventLog, input: LogAuditInput): LogProblem[] {
  const { base, until = Number.MAX_SAFE_INTEGER } = input;
  const problems: LogProblem[] = [];
  const passed = log.passedOver();
  const scanFrom = Math.min(input.scanFrom ?? base + 1, base + 1);
  let next: number | null = null;
  for (const key of log.keys(scanFrom, until)) {
    const want = skipPassedOver(passed, next ?? Math.min(key, base + 1));
    if (key > want) {
      const why = next === null ? `the log starts at operation ${key} but the state ends at ${base}` : `the log jumps from operation ${want - 1} to ${key}`;
      problems.push({ from: want, to: key - 1, message: `${span(want, key - 1)} missing: ${why}` });
    }
    next = key + 1;
  }
  for (const { opId, message } of log.stageProblems?.(scanFrom, until) ?? []) problems.push({ from: opId, to: opId, message, unapplicable: opId });
  if (until !== Number.MAX_SAFE_INTEGER) return problems;
  const end = Math.max(next === null ? 0 : next - 1, log.lastOperationId);
  const newest = [...(input.known ?? [])].sort((a, b) => b.opId - a.opId)[0];
  if (newest && newest.opId > end) {
    const from = Math.max(end, base) + 1;
    const lost = from <= newest.opId ? `${span(from, newest.opId)} lost` : 'the log file was lost or replaced, and its operation_ids would start again below ids already used';
    problems.push({ from, to: newest.opId, message: `the log ends at operation ${end} but ${newest.source} shows operation ${newest.opId} was durable: ${lost}` });
  }
  return problems;
}

/**
 * What the snapshot store knows was durable: the high-water mark and the snapshot files. A damaged
 * mark is a problem of its own (it can no longer prove the log whole).
 */
export function knownDurable(store: SnapshotStore | undefined): { known: KnownDurable[]; problems: LogProblem[]; reservedThrough: number } {
  if (!store) return { known: [], problems: [], reservedThrough: 0 };
  const known: KnownDurable[] = [];
  const problems: LogProblem[] = [];
  let reservedThrough = 0;
  try {
    const mark = store.readMark();
    if (mark) {
      known.push({ opId: mark.opId, source: `the high-water mark (newest snapshot ${mark.snapshotOpId || 'none'})` });
      reservedThrough = mark.reservedThrough;
    }
  } catch (err) {
    problems.push({ from: 1, to: 0, message: `${(err as Error).message}; it can no longer show which operations were durable` });
  }
  const newestSnapshot = store.list()[0];
  if (newestSnapshot !== undefined) known.push({ opId: newestSnapshot, source: `snapshot ${newestSnapshot}` });
  return { known, problems, reservedThrough };
}

export interface LogAudit {
  problems: LogProblem[];
  /** Where the operation_id counter must start above once a loss is accepted (the mark's reservation). */
  reservedThrough: number;
}

/** The audit both start-up and `replay verify` run: the log against itself and against the snapshot store. */
export function auditLog(log: EventLog, store: SnapshotStore | undefined, base: number, scanFrom = base + 1): LogAudit {
  const { known, problems, reservedThrough } = knownDurable(store);
  return { problems: [...problems, ...findLogProblems(log, { base, scanFrom, known })], reservedThrough };
}
