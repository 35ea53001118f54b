import type { Engine } from '../../storage/engine/engine.js';
import { DbError } from '../../storage/errors.js';
import type { LogEntry } from '../../storage/log/event-log.js';
import { collectionOf } from './change-json.js';

/** Entries read from the log at a time, so a reader never holds a log transaction across a wait. */
const BATCH = 64;

export interface FeedOptions {
  /** The first operation_id wanted. */
  from: number;
  /** Only the entries of this collection; null: all. */
  collection: string | null;
  /** How long to wait for a new entry once caught up before ending; null: for ever. */
  idleMs: number | null;
  /** How often an idle feed says it is still there (SSE comments); null: never. */
  heartbeatMs: number | null;
  /** Ends the feed (the client went away). */
  signal: AbortSignal;
}

/** A change, or a tick telling a client that waits that the feed is alive. */
export type FeedItem = LogEntry | 'heartbeat';

/** 410 when entries from `from` on were dropped by compaction (their effect lives in a snapshot). */
export function checkFeedStart(engine: Engine, from: number): void {
  const oldest = engine.log.firstOperationId;
  if (from < oldest && from <= engine.log.lastOperationId) {
    throw new DbError(410, `operations before ${oldest} were compacted into a snapshot and are no longer in the log; the oldest available operation_id is ${oldest} (read the state with an export, then follow the changes from ${oldest})`);
  }
}

function readBatch(engine: Engine, from: number, to: number): LogEntry[] {
  const batch: LogEntry[] = [];
  for (const entry of engine.log.read(from, to)) {
    batch.push(entry);
    if (batch.length === BATCH) break;
  }
  return batch;
}

/**
 * The log from `from` on, in order: every applied entry, then each new one as it is applied,
 * until the client goes or the feed idles for idleMs. Entries set aside by repair --skip are
 * passed over, as replay passes over them. The consumer pulls: a slow one holds the feed.
 */
export async function* changeFeed(engine: Engine, options: FeedOptions): AsyncGenerator<FeedItem> {
  const { collection, signal } = options;
  const skipped = engine.log.skippedOperations?.() ?? new Map<number, unknown>();
  let next = options.from;
  let idleFor = 0;
  while (!signal.aborted) {
    const upTo = engine.lastAppliedOperationId;
    if (next <= upTo) {
      // Compaction may drop entries a slow reader had not reached: it ends, and resuming says 410.
      if (next < engine.log.firstOperationId) return;
      const batch = readBatch(engine, next, upTo);
      // Ids reserved at a restart and never used leave gaps: none of them is a lost entry.
      if (batch.length === 0) next = upTo + 1;
      for (const entry of batch) {
        next = entry.opId + 1;
        if (skipped.has(entry.opId) || (collection !== null && collectionOf(entry.event) !== collection)) continue;
        yield entry;
        if (signal.aborted) return;
      }
      idleFor = 0;
      continue;
    }
    const budget = options.idleMs === null ? null : options.idleMs - idleFor;
    const wait = options.heartbeatMs === null ? budget : budget === null ? options.heartbeatMs : Math.min(budget, options.heartbeatMs);
    const started = Date.now();
    if (await engine.applied.waitFor(next, wait, signal)) continue;
    idleFor += Date.now() - started;
    if (signal.aborted || (options.idleMs !== null && idleFor >= options.idleMs)) return;
    yield 'heartbeat';
  }
}
