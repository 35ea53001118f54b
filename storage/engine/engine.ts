import type { Collection } from '../collection.js';
import { DbError } from '../errors.js';
import type { DbEvent } from '../events/types.js';
import type { EventLog } from '../log/event-log.js';
import { applyEvent, type ApplyResult } from './apply-event.js';
import { validateEvent } from './validate-event.js';

/** Runs a task after `delayMs`, or as soon as the event loop is free when 0. */
export type Scheduler = (task: () => void, delayMs: number) => void;

const defaultScheduler: Scheduler = (task, delayMs) => {
  if (delayMs === 0 && typeof setImmediate === 'function') setImmediate(task);
  else setTimeout(task, delayMs);
};

/**
 * Background indexing shares the thread with requests. While requests come in (one within
 * BUSY_WINDOW_MS) it runs short slices with gaps, taking about a third of the CPU so writes and
 * searches keep their latency; when the service is quiet it takes longer slices back to back.
 */
const BUSY_WINDOW_MS = 50;
const BUSY_SLICE_MS = 2;
const BUSY_GAP_MS = 4;
const IDLE_SLICE_MS = 8;

export interface Committed {
  opId: number;
  result: ApplyResult;
}

interface Waiter {
  event: DbEvent;
  durable: boolean;
  resolve: (c: Committed) => void;
  reject: (e: Error) => void;
}

/**
 * Owns the views and the write path: validate → append to the log → (once durable) apply,
 * strictly in operation_id order, then acknowledge. Replay runs the same apply.
 */
export class Engine {
  readonly collections = new Map<string, Collection>();
  private readonly waiting = new Map<number, Waiter>();
  private appliedUpTo = 0;
  private indexing = false;
  private closed = false;
  private failure: Error | null = null;
  private lastActivity = -Infinity;

  constructor(readonly log: EventLog, private readonly schedule: Scheduler = defaultScheduler) {}

  /** Rebuilds every view from the log; answers how many entries were applied. */
  replay(): number {
    let count = 0;
    for (const { opId, event } of this.log.read(this.appliedUpTo + 1)) {
      applyEvent(this.collections, opId, event);
      this.appliedUpTo = opId;
      count++;
    }
    this.appliedUpTo = this.log.lastOperationId;
    this.scheduleIndexing();
    return count;
  }

  get lastAppliedOperationId(): number {
    return this.appliedUpTo;
  }

  /** The first durability failure; after it the engine takes no writes. */
  get failed(): Error | null {
    return this.failure;
  }

  /** Notes a request, so background indexing yields to the foreground for a while. */
  noteActivity(): void {
    this.lastActivity = performance.now();
  }

  /** Logs the event and applies it once durable. Bad input throws a DbError before anything is logged. */
  submit(event: DbEvent): Promise<Committed> {
    this.noteActivity();
    if (this.failure) return Promise.reject(new DbError(503, `writes are stopped after a log failure: ${this.failure.message}`));
    try {
      validateEvent(this.collections, event);
    } catch (err) {
      return Promise.reject(err);
    }
    const { opId, durable } = this.log.append(event);
    return new Promise<Committed>((resolve, reject) => {
      this.waiting.set(opId, { event, durable: false, resolve, reject });
      durable.then(
        () => {
          const w = this.waiting.get(opId);
          if (w) w.durable = true;
          this.applyDurable();
        },
        (err: Error) => this.fail(err),
      );
    });
  }

  /** Applies, in order, every waiting entry whose durability is confirmed. */
  private applyDurable(): void {
    for (;;) {
      const next = this.appliedUpTo + 1;
      const w = this.waiting.get(next);
      if (!w || !w.durable) break;
      this.waiting.delete(next);
      const result = applyEvent(this.collections, next, w.event);
      this.appliedUpTo = next;
      w.resolve({ opId: next, result });
    }
    this.scheduleIndexing();
  }

  /** A commit failed: nothing waiting is applied or acknowledged, and no write is taken after. */
  private fail(err: Error): void {
    this.failure ??= err;
    const error = err instanceof DbError ? err : new DbError(503, `write could not be made durable: ${err.message}`);
    for (const w of this.waiting.values()) w.reject(error);
    this.waiting.clear();
  }

  private busy(): boolean {
    return performance.now() - this.lastActivity < BUSY_WINDOW_MS;
  }

  private scheduleIndexing(): void {
    if (this.indexing || this.closed) return;
    this.indexing = true;
    this.schedule(() => this.indexSlice(), this.busy() ? BUSY_GAP_MS : 0);
  }

  private indexSlice(): void {
    if (this.closed) return;
    const deadline = performance.now() + (this.busy() ? BUSY_SLICE_MS : IDLE_SLICE_MS);
    let more = false;
    for (const c of this.collections.values()) {
      while (c.indexSome(16)) {
        if (performance.now() > deadline) {
          more = true;
          break;
        }
      }
      if (more) break;
    }
    this.indexing = false;
    if (more) this.scheduleIndexing();
  }

  /** Links every pending point into its index now (tests, benchmarks, snapshots). */
  flushIndex(): void {
    for (const c of this.collections.values()) while (c.indexSome(1024));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.log.close();
  }
}
