import type { Collection } from '../collection.js';
import { DbError } from '../errors.js';
import type { DbEvent } from '../events/types.js';
import type { EventLog, ImportStaging, SkipNote } from '../log/event-log.js';
import { auditLog, findLogProblems, LogLossError, type LogProblem } from '../log/log-audit.js';
import { idsInUse } from '../log/passed-over.js';
import { captureSnapshot, type SnapshotCapture } from '../snapshot/snapshot-codec.js';
import { nextTurn, runInSlices, UPSERT_POINTS_A_STEP } from '../codec/slices.js';
import type { SnapshotStore } from '../snapshot/snapshot-store.js';
import { decodeEntry } from '../log/record.js';
import type { AckGate } from './ack-gate.js';
import { CollectionMap } from './collection-map.js';
import type { FloatFiles } from '../views/float-file.js';
import { applyEvent, applyEventInSteps, type ApplyResult } from './apply-event.js';
import { AppliedWatch } from './applied-watch.js';
import { throughAliases, touchAliases } from '../aliases.js';
import { ApplyFailedError } from './apply-failure.js';
import { encodeUpsertInSteps } from '../events/codec.js';
import { checkPointsInSteps, validateEvent } from './validate-event.js';
import { graphBuilder } from '../views/graph-builder.js';
import { DEFAULT_WRITE_LIMITS, type WriteLimits } from './write-limits.js';

/** Runs a task after `delayMs`, or as soon as the event loop is free when 0. */
export type Scheduler = (task: () => void, delayMs: number) => void;

// setImmediate exists in Node only; browsers fall back to setTimeout.
const immediate = (globalThis as { setImmediate?: (task: () => void) => void }).setImmediate;

const defaultScheduler: Scheduler = (task, delayMs) => {
  if (delayMs === 0 && immediate) immediate(task);
  else setTimeout(task, delayMs);
};

/** Vectors of one graph sent to the builder's threads at once (about 50 ms of linking on two threads at 128 dimensions). */
const BUILD_BATCH = 256;
/**
 * Background indexing done on this thread (no graph builder, or a graph it cannot take) shares
 * it with requests. While requests come in (one within BUSY_WINDOW_MS) it runs short slices with
 * gaps, taking about a third of the CPU so writes and searches keep their latency; when the
 * service is quiet it takes longer slices back to back.
 */
const BUSY_WINDOW_MS = 50;
const BUSY_SLICE_MS = 2;
const BUSY_GAP_MS = 4;
/**
 * Snapshots and exports are encoded in slices this long (none at shutdown), with a turn of the
 * event loop between them, or, while requests come in, ENCODE_GAP_MS of rest: a thread that is
 * never idle waits behind every other process for the CPU on a loaded machine, and its requests
 * with it.
 */
const SNAPSHOT_SLICE_MS = 1;
const ENCODE_GAP_MS = 2;
const IDLE_SLICE_MS = 8;

/**
 * operation_ids handed out per reservation in the high-water mark. A new reservation is written
 * when half is used, so writes would have to outrun one small fsync by 500,000 operations
 * for an id to pass an unwritten reservation.
 */
const RESERVE_IDS = 1_000_000;

/**
 * Log entries start-up applies between two turns of the event loop, so that health checks and
 * /metrics (replay progress) are answered while a long log replays.
 */
const START_SLICE_ENTRIES = 2_000;

/**
 * The operation_id an event has seen outside this log: an import's file was exported at one, and
 * operation_ids never go below it, so the import is logged above it (0: none).
 */
const idsSeenBy = (event: DbEvent): number => (event.type === 'import_collection' ? (event.exportedAt ?? 0) : 0);

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));

export interface EngineOptions {
  schedule?: Scheduler;
  /** Where snapshots go; without it the engine replays the whole log at start-up. */
  snapshots?: SnapshotStore;
  /** Take a snapshot after this many applied operations (0: only when asked and at close). */
  snapshotEvery?: number;
  /** Take a snapshot once the entries applied since the last one take this many bytes in the log (0: count operations only). */
  snapshotEveryBytes?: number;
  /** Log entries kept from before the newest snapshot, for the replay tool. */
  logRetention?: number;
  /** At most this many bytes of them (a log that holds large writes keeps fewer entries); default: no byte limit. */
  logRetentionBytes?: number;
  /** Told about each snapshot written, or failed. */
  onSnapshot?: (report: { opId: number; ms: number; bytes: number; error?: Error }) => void;
  /** Told about writes as they happen, for metrics. */
  observe?: EngineObserver;
  /**
   * Advance the high-water mark this long after a write is applied (ms; 0: only at snapshots, start
   * and close), so a log that later loses its tail is noticed at start-up.
   */
  markEveryMs?: number;
  /** Told when the high-water mark could not be written (start-up can then prove less). */
  onMarkFailed?: (error: Error) => void;
  /** Start even when the log misses operations known durable: each loss is reported to onLoss, then start-up goes on. */
  acceptLoss?: boolean;
  onLoss?: (problem: LogProblem) => void;
  /** operation_ids reserved in the high-water mark at a time (default 1,000,000). */
  reserveIds?: number;
  /** Serve reads only: every write is a 403 with this message; no snapshot or mark is written. */
  readOnly?: string;
  /** Told how far start-up's replay has come: after each slice of entries, and once at the end. */
  onReplayProgress?: (applied: number, total: number) => void;
  /** Log entries start-up applies between two turns of the event loop (default 2,000). */
  startSliceEntries?: number;
  /** Limits every write is checked against before it is logged. */
  limits?: WriteLimits;
  /** Told once when a logged entry fails to apply (writes stop at it). */
  onApplyFailure?: (failure: ApplyFailedError) => void;
  /** Told about each entry replay passes over because repair --skip set it aside. */
  onSkipped?: (opId: number, note: SkipNote) => void;
  /** Holds each durable entry until replication allows its acknowledgement, and refuses writes on a replica (see ack-gate.ts). */
  gate?: AckGate;
  /** Where the floats of on_disk vectors go (the data dir's); without it they stay in RAM. */
  floatFiles?: FloatFiles;
}

export interface EngineObserver {
  /** An append became durable (its commit fsynced) `ms` after it was handed to the log. */
  appendDurable?(ms: number): void;
  /** A write was applied to the views (replay is not counted). */
  applied?(type: DbEvent['type']): void;
}

export interface Committed {
  opId: number;
  result: ApplyResult;
}

interface Waiter {
  event: DbEvent;
  /** What the entry takes in the log. */
  bytes: number;
  durable: boolean;
  resolve: (c: Committed) => void;
  reject: (e: Error) => void;
}

/**
 * Owns the views and the write path: validate → append to the log → (once durable) apply,
 * strictly in operation_id order, then acknowledge. Replay runs the same apply.
 */
export class Engine {
  readonly collections: Map<string, Collection>;
  /** Wakes readers waiting for an operation to be applied. */
  readonly applied = new AppliedWatch(() => this.appliedUpTo);
  private readonly waiting = new Map<number, Waiter>();
  private appliedUpTo = 0;
  /** An entry is being applied a slice at a time: later entries wait for it. */
  private slicing = false;
  private indexing = false;
  private closed = false;
  private failure: Error | null = null;
  private lastActivity = -Infinity;
  private readonly schedule: Scheduler;
  private sinceSnapshot = 0;
  private bytesSinceSnapshot = 0;
  /** The entry being applied a slice at a time, if any. */
  private sliced: { opId: number; event: DbEvent } | null = null;
  /**
   * A merge import whose slices have begun to change the live state and not finished (also when
   * shutdown cut it short): no snapshot may be taken of such a state.
   */
  private partialMerge: number | null = null;
  private snapshotOpId = 0;
  /** Points waiting for their index in the newest snapshot (taken or loaded): close writes another at the same operation_id once fewer wait. */
  private snapshotPending = 0;
  /** Entries a start-up that accepts loss passes over: there, but not applicable (onLoss was told why). */
  private lostEntries: ReadonlySet<number> = new Set();
  private snapshotting: Promise<number> | null = null;
  /** A snapshot waits for the batches out on other threads (snapshotAfterBatches). */
  private snapshotWaiting = false;
  private markPending = false;
  private reservedThrough = 0;
  private readonly reserveIds: number;

  readonly limits: WriteLimits;

  constructor(readonly log: EventLog, private readonly options: EngineOptions = {}) {
    this.schedule = options.schedule ?? defaultScheduler;
    this.reserveIds = options.reserveIds ?? RESERVE_IDS;
    this.limits = options.limits ?? DEFAULT_WRITE_LIMITS;
    this.collections = new CollectionMap(options.floatFiles ?? null);
  }

  /**
   * Rebuilds every view: from the newest snapshot when there is one, then the log after it, up
   * to operation `until` (the replay tool rebuilds past states; it may also pass over newer snapshots).
   * Answers how many log entries were applied. A log with entries missing after the snapshot
   * (or from the start, with no snapshot) is refused with a LogLossError naming the gap; an entry
   * whose apply throws, with an ApplyFailedError naming it. Entries set aside by repair --skip
   * are passed over (and reported to onSkipped).
   */
  replay(until = Number.MAX_SAFE_INTEGER, snapshotAtMost = until): number {
    this.useSnapshot(snapshotAtMost);
    const problems = findLogProblems(this.log, { base: this.appliedUpTo, until });
    if (problems.length > 0) throw new LogLossError(problems);
    return this.applyLog(until);
  }

  /**
   * Start-up: proves the log holds every operation known durable (entries without holes after the
   * snapshot, up to the high-water mark and the newest snapshot), then replays it. A loss throws a
   * LogLossError naming it, unless `acceptLoss`: then each loss goes to onLoss, the operation_id
   * counter moves above every id seen, and a snapshot of what is left becomes the new base (the
   * log is cut after the last hole), so the next start-up finds nothing missing.
   */
  async start(): Promise<number> {
    const store = this.options.snapshots;
    this.useSnapshot(Number.MAX_SAFE_INTEGER);
    const { problems, reservedThrough } = auditLog(this.log, store, this.appliedUpTo);
    if (problems.length > 0 && !this.options.acceptLoss) throw new LogLossError(problems);
    for (const problem of problems) this.options.onLoss?.(problem);
    this.lostEntries = new Set(problems.flatMap((p) => (p.unapplicable === undefined ? [] : [p.unapplicable])));
    const count = await this.applyLogInSlices();
    if (problems.length > 0) {
      // Above every id that may have been acknowledged, not only those the mark saw durable.
      this.log.reserveThrough(Math.max(reservedThrough, ...problems.map((p) => p.to)));
      this.appliedUpTo = Math.max(this.appliedUpTo, this.log.lastOperationId);
      if (store) {
        await this.snapshot();
        const holes = problems.filter((p) => p.from <= p.to && p.to < this.log.lastOperationId);
        if (holes.length > 0) await this.log.truncateThrough(Math.max(...holes.map((p) => p.to)));
      }
    }
    this.reservedThrough = Math.max(reservedThrough, this.log.lastOperationId + this.reserveIds);
    await this.markDurable();
    return count;
  }

  private useSnapshot(atMost: number): void {
    const snapshot = this.options.snapshots?.loadNewest(atMost, this.options.floatFiles ?? null) ?? null;
    if (!snapshot) return;
    for (const [name, c] of snapshot.collections) this.collections.set(name, c);
    touchAliases();
    this.appliedUpTo = this.snapshotOpId = snapshot.opId;
    this.snapshotPending = this.pendingPoints();
  }

  /** Points waiting to be linked into their index, over every collection. */
  private pendingPoints(): number {
    let n = 0;
    for (const c of this.collections.values()) n += c.pendingCount;
    return n;
  }

  /** Applies the log after the state, up to `until`, passing over holes that start() has accepted. */
  private applyLog(until: number): number {
    const count = this.applyRange(this.appliedUpTo + 1, until, this.log.skippedOperations?.() ?? new Map<number, SkipNote>());
    this.finishLog(until);
    return count;
  }

  /**
   * The state as it was right after operation `until`, rebuilt as replay(until) does (the newest
   * snapshot at or before it, then the log) but a slice of entries at a time, yielding between
   * slices, so a server can rebuild a past state while it answers other requests.
   */
  async rebuild(until: number): Promise<number> {
    this.useSnapshot(until);
    const problems = findLogProblems(this.log, { base: this.appliedUpTo, until });
    if (problems.length > 0) throw new LogLossError(problems);
    return this.applyLogInSlices(until);
  }

  /** The snapshot files the engine writes and starts from (none: it replays the whole log). */
  get snapshotStore(): SnapshotStore | undefined {
    return this.options.snapshots;
  }

  /** applyLog for start-up: a slice of entries at a time, reporting progress and yielding between slices. */
  private async applyLogInSlices(until = Number.MAX_SAFE_INTEGER): Promise<number> {
    const skipped = this.log.skippedOperations?.() ?? new Map<number, SkipNote>();
    const slice = this.options.startSliceEntries ?? START_SLICE_ENTRIES;
    const last = Math.min(until, this.log.lastOperationId);
    const total = idsInUse(this.log, this.appliedUpTo + 1, last);
    let count = 0;
    this.options.onReplayProgress?.(0, total);
    for (;;) {
      const applied = this.applyRange(this.appliedUpTo + 1, last, skipped, slice);
      count += applied;
      if (applied < slice || this.appliedUpTo >= last) break;
      this.options.onReplayProgress?.(count, total);
      await yieldToEventLoop();
    }
    this.finishLog(until);
    this.options.onReplayProgress?.(count, total);
    return count;
  }

  /** Applies the entries from `from` to `to`, at most `limit` of them; answers how many. */
  private applyRange(from: number, to: number, skipped: ReadonlyMap<number, SkipNote>, limit = Number.MAX_SAFE_INTEGER): number {
    let count = 0;
    for (const { opId, event } of this.log.read(from, to)) {
      if (count === limit) break;
      const skip = skipped.get(opId);
      if (skip) this.options.onSkipped?.(opId, skip);
      else if (!this.lostEntries.has(opId)) {
        try {
          applyEvent(this.collections, opId, event);
        } catch (err) {
          throw new ApplyFailedError(opId, event, err as Error);
        }
      }
      this.appliedUpTo = opId;
      count++;
    }
    return count;
  }

  private finishLog(until: number): void {
    if (until >= this.log.lastOperationId) this.appliedUpTo = Math.max(this.appliedUpTo, this.log.lastOperationId);
    this.applied.advance(this.appliedUpTo);
    this.scheduleIndexing();
  }

  /** The operation_id of the newest snapshot written or loaded (0: none). */
  get lastSnapshotOperationId(): number {
    return this.snapshotOpId;
  }

  get lastAppliedOperationId(): number {
    return this.appliedUpTo;
  }

  /** Whether an entry (a large import) is being applied a slice at a time just now. */
  get applyingInSlices(): boolean {
    return this.slicing;
  }

  /**
   * Resolves once no merge import into collection `name` is being applied in slices. A merge
   * changes the live collection a slice at a time; readers that wait here see it whole or not at
   * all. (Create and replace build their collection off to the side: nothing to wait for.)
   */
  async settled(name: string): Promise<void> {
    const s = this.sliced;
    if (s && s.event.type === 'import_collection' && s.event.mode === 'merge' && s.event.name === name) await this.applied.waitFor(s.opId, null);
  }

  /** The first durability or apply failure (an ApplyFailedError); after it the engine takes no writes. */
  get failed(): Error | null {
    return this.failure;
  }

  /** Notes a request, so background indexing yields to the foreground for a while. */
  noteActivity(): void {
    this.lastActivity = performance.now();
  }

  /**
   * Between two slices of a snapshot: none once the writes since it began took a quarter of
   * SERVICE_SNAPSHOT_EVERY operations or bytes of log (the rest is written at once), so the log
   * a snapshot lets go of runs little ahead of it and the disk stays bounded as before.
   */
  private betweenSnapshotSlices(): Promise<void> {
    const every = this.options.snapshotEvery ?? 0;
    const everyBytes = this.options.snapshotEveryBytes ?? 0;
    const behind = (every > 0 && this.sinceSnapshot * 4 >= every) || (everyBytes > 0 && this.bytesSinceSnapshot * 4 >= everyBytes);
    return behind ? Promise.resolve() : this.betweenSlices();
  }

  /** What work done in slices on this thread (snapshots, exports) awaits between slices: see ENCODE_GAP_MS. */
  betweenSlices(): Promise<void> {
    return this.busy() && !this.closed ? new Promise((resolve) => setTimeout(resolve, ENCODE_GAP_MS)) : nextTurn();
  }

  /**
   * Why this engine takes no write now (closing, read-only, a replica, a fenced primary, writes
   * stopped after a failure), or null: submit refuses with it, and an import before reading its
   * body. A write that reaches submit once close() has begun (a request cut off at shutdown, part
   * way through its slices) is refused, so nothing is logged behind the last snapshot's back.
   */
  writeRefusal(): DbError | null {
    if (this.closed) return new DbError(503, 'the server is shutting down: send the write again once it is back');
    if (this.options.readOnly) return new DbError(403, this.options.readOnly);
    const refused = this.options.gate?.refusal();
    if (refused) return refused;
    return this.failure ? this.stoppedError() : null;
  }

  /** Logs the event and applies it once durable. Bad input throws a DbError before anything is logged. */
  submit(given: DbEvent): Promise<Committed> {
    return this.submitChecked(given, null);
  }

  /**
   * submit, for an upsert of many points on the request thread: the checks of its points that
   * read no state run first, a slice at a time (`pause` awaited each time `sliceMs` has passed),
   * so that other requests go on meanwhile; then it is submitted, its points checked again only
   * if their collection is no longer the one they were checked against (dropped and made again
   * meanwhile). It answers, and refuses, as submit does.
   */
  async submitInSlices(given: DbEvent, sliceMs: number, pause: () => Promise<void>): Promise<Committed> {
    const event = throughAliases(this.collections, given);
    if (event.type !== 'upsert_points' || event.points.length <= UPSERT_POINTS_A_STEP || this.writeRefusal()) return this.submitChecked(event, null);
    const c = this.collections.get(event.collection);
    if (!c) return this.submitChecked(event, null);
    await runInSlices(checkPointsInSteps(c, event.points, this.limits), sliceMs, pause);
    const body = await runInSlices(encodeUpsertInSteps(event), sliceMs, pause);
    return this.submitChecked(event, c, body);
  }

  /**
   * submit, an upsert's points checked already against `pointsChecked` (validateEvent), and the
   * event encoded already as `body`, used when the event still names the same collection.
   */
  private submitChecked(given: DbEvent, pointsChecked: Collection | null, body?: Uint8Array): Promise<Committed> {
    const event = throughAliases(this.collections, given);
    this.noteActivity();
    const refused = this.writeRefusal();
    if (refused) return Promise.reject(refused);
    const gate = this.options.gate;
    try {
      validateEvent(this.collections, event, this.limits, pointsChecked);
    } catch (err) {
      return Promise.reject(err);
    }
    const appended = performance.now();
    // An alias made meanwhile in the collection's place sends the write elsewhere: encoded again then.
    const { opId, durable, record, bytes } = this.log.append(event, idsSeenBy(event), event === given ? body : undefined);
    this.reserveAhead(opId);
    if (!gate) return this.applyWhen(opId, event, durable, appended, bytes);
    if (!record) throw new Error('a replicated engine needs a log that hands back its stored records');
    return this.answerBy(gate, opId, this.applyWhen(opId, event, gate.admit(opId, record, durable), appended, bytes));
  }

  /** Applies the entry once `ready` resolves, in operation_id order after the entries before it, and answers with its result. */
  private applyWhen(opId: number, event: DbEvent, ready: Promise<void>, appended: number | null, bytes: number): Promise<Committed> {
    return new Promise<Committed>((resolve, reject) => {
      this.waiting.set(opId, { event, bytes, durable: false, resolve, reject });
      ready.then(
        () => {
          if (appended !== null) this.options.observe?.appendDurable?.(performance.now() - appended);
          const w = this.waiting.get(opId);
          if (w) w.durable = true;
          this.applyDurable();
        },
        (err: Error) => this.fail(err),
      );
    });
  }

  /** The gate's timeout on a request: past it the request is answered, and the entry still applies once admitted. */
  private answerBy(gate: AckGate, opId: number, committed: Promise<Committed>): Promise<Committed> {
    if (gate.ackTimeoutMs === null) return committed;
    const limit = gate.ackTimeoutMs;
    return new Promise<Committed>((resolve, reject) => {
      const timer = setTimeout(() => reject(gate.timeoutError(opId)), limit);
      committed.then(
        (c) => {
          clearTimeout(timer);
          resolve(c);
        },
        (err: Error) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  }

  /**
   * A replica's write path: stores the primary's record under its operation_id in this log
   * (checked by its CRC as it is decoded), then applies it with the same apply code as every
   * other entry, in order. Resolves once it is applied. A streamed import's record comes with
   * the stage its blocks were written to here (finished: durable, its digest checked), committed
   * with the entry.
   */
  applyReplicated(opId: number, record: Uint8Array, stage?: ImportStaging): Promise<void> {
    if (this.failure) return Promise.reject(this.stoppedError());
    if (!this.log.appendRecord) return Promise.reject(new Error('this log cannot store another server\'s records'));
    const event = decodeEntry(opId, record);
    const staged = event.type === 'import_collection' ? event.staged : undefined;
    if ((staged?.stage ?? null) !== (stage?.id ?? null)) throw new Error(`log entry ${opId} ${staged ? `names staged import ${staged.stage}` : 'is no staged import'}, and came with ${stage ? `stage ${stage.id}` : 'no staged blocks'}`);
    if (staged) staged.read = () => this.log.stagedBlocks!(staged.stage, staged.blocks, staged.digest);
    const { durable, bytes } = this.log.appendRecord(opId, record, stage);
    return this.applyWhen(opId, event, durable, null, bytes).then(() => undefined);
  }

  /**
   * The same write path, synchronously, for a log whose appends are durable at once (the
   * in-memory log of the browser library): validate, append, apply, answer.
   */
  submitSync(given: DbEvent): Committed {
    const event = throughAliases(this.collections, given);
    if (!this.log.synchronous) throw new Error('submitSync needs a log whose appends are durable at once');
    if (this.waiting.size > 0) throw new Error('submitSync cannot run while asynchronous writes wait to be applied');
    this.noteActivity();
    if (this.options.readOnly) throw new DbError(403, this.options.readOnly);
    if (this.failure) throw this.stoppedError();
    validateEvent(this.collections, event, this.limits);
    const { opId, bytes } = this.log.append(event, idsSeenBy(event));
    let result: ApplyResult;
    try {
      result = applyEvent(this.collections, opId, event);
    } catch (err) {
      throw this.stopAfterApplyFailure(new ApplyFailedError(opId, event, err as Error));
    }
    this.appliedUpTo = opId;
    this.applied.advance(opId);
    this.sinceSnapshot++;
    this.bytesSinceSnapshot += bytes;
    this.options.observe?.applied?.(event.type);
    this.scheduleIndexing();
    return { opId, result };
  }

  /**
   * Applies, in order, every waiting entry whose durability is confirmed; nothing once writes
   * stopped. An entry that yields (a large import) goes on in slices, and the rest wait for it.
   * Entries wait in operation_id order (they are added as they are appended), so the first is
   * the next to apply, whether or not the ids before it were passed over.
   */
  private applyDurable(): void {
    for (;;) {
      if (this.failure || this.slicing) return;
      const oldest = this.waiting.entries().next();
      if (oldest.done || !oldest.value[1].durable) break;
      const [next, w] = oldest.value;
      this.waiting.delete(next);
      const steps = applyEventInSteps(this.collections, next, w.event);
      const first = this.applyStep(next, w, steps);
      if (!first) return;
      if (!first.done) {
        void this.applyRestInSlices(next, w, steps);
        return;
      }
      this.acknowledge(next, w, first.value);
    }
    this.afterApply();
  }

  /** One step of an entry's apply; undefined when it threw (writes are then stopped). */
  private applyStep(opId: number, w: Waiter, steps: Generator<void, ApplyResult>): IteratorResult<void, ApplyResult> | undefined {
    try {
      return steps.next();
    } catch (err) {
      w.reject(this.stopAfterApplyFailure(new ApplyFailedError(opId, w.event, err as Error)));
      return undefined;
    }
  }

  private async applyRestInSlices(opId: number, w: Waiter, steps: Generator<void, ApplyResult>): Promise<void> {
    this.slicing = true;
    this.sliced = { opId, event: w.event };
    if (w.event.type === 'import_collection' && w.event.mode === 'merge') this.partialMerge = opId;
    try {
      for (;;) {
        await yieldToEventLoop();
        if (this.closed) {
          const stopped = new DbError(503, `the server shut down while operation ${opId} was being applied; it is in the log and applies at the next start`);
          for (const waiter of [w, ...this.waiting.values()]) waiter.reject(stopped);
          this.waiting.clear();
          return;
        }
        const step = this.applyStep(opId, w, steps);
        if (!step) return;
        if (step.done) {
          this.partialMerge = null;
          this.acknowledge(opId, w, step.value);
          break;
        }
      }
    } finally {
      this.slicing = false;
      this.sliced = null;
    }
    this.applyDurable();
  }

  private acknowledge(opId: number, w: Waiter, result: ApplyResult): void {
    this.appliedUpTo = opId;
    this.applied.advance(opId);
    this.sinceSnapshot++;
    this.bytesSinceSnapshot += w.bytes;
    this.options.observe?.applied?.(w.event.type);
    w.resolve({ opId, result });
  }

  private afterApply(): void {
    this.scheduleIndexing();
    this.markSoon();
    if (this.snapshotDue() && !this.snapshotting) void this.snapshot().catch(() => undefined);
  }

  /**
   * A snapshot once the batches being linked on other threads are done (their graphs are not
   * whole until then); no batch starts meanwhile. It holds the state as it is then.
   */
  private snapshotAfterBatches(): Promise<number> {
    this.snapshotWaiting = true;
    const waiting = (async () => {
      try {
        await Promise.all([...this.collections.values()].map((c) => c.settled()));
      } finally {
        this.snapshotWaiting = false;
        this.snapshotting = null;
      }
      return this.snapshot();
    })();
    this.snapshotting = waiting;
    return waiting;
  }

  /** SERVICE_SNAPSHOT_EVERY operations, or SERVICE_SNAPSHOT_EVERY_BYTES of log, since the last snapshot. */
  private snapshotDue(): boolean {
    const every = this.options.snapshotEvery ?? 0;
    const everyBytes = this.options.snapshotEveryBytes ?? 0;
    return (every > 0 && this.sinceSnapshot >= every) || (everyBytes > 0 && this.bytesSinceSnapshot >= everyBytes);
  }

  /**
   * Writes a snapshot of the current state and drops the log entries it makes unneeded (beyond
   * the retention). The state is captured at once, at one operation_id, then encoded straight into
   * the file a slice at a time between event-loop turns, while writes and searches go on; it is
   * made durable and checked after (storage/snapshot/sliced-encoding.md).
   */
  snapshot(): Promise<number> {
    const store = this.options.snapshots;
    if (!store) return Promise.reject(new Error('no snapshot store configured'));
    if (this.options.readOnly) return Promise.reject(new Error(`no snapshot: ${this.options.readOnly}`));
    // After a failed apply the views may hold part of an entry: such a state is never saved.
    if (this.failure) return Promise.reject(new Error(`no snapshot while writes are stopped: ${this.failure.message}`));
    // Taken once the merge is whole (afterApply), or never for this run when shutdown cut it short: it replays at the next start.
    if (this.partialMerge !== null) return Promise.reject(new Error(`no snapshot while merge import ${this.partialMerge} is applied in part`));
    if (this.snapshotting) return this.snapshotting;
    if ([...this.collections.values()].some((c) => c.building)) return this.snapshotAfterBatches();
    const started = performance.now();
    const opId = this.appliedUpTo;
    this.sinceSnapshot = 0;
    this.bytesSinceSnapshot = 0;
    let bytes = 0;
    let capture: SnapshotCapture;
    try {
      capture = captureSnapshot(this.collections, opId);
    } catch (err) {
      // Reported, and not retried until another SERVICE_SNAPSHOT_EVERY operations have passed.
      this.options.onSnapshot?.({ opId, ms: performance.now() - started, bytes: 0, error: err as Error });
      return Promise.reject(err as Error);
    }
    // The graphs link nothing while their links are copied (the first slices): indexing resumes after.
    void capture.copied.then(() => this.scheduleIndexing());
    const pending = this.pendingPoints();
    // Encoded straight into the file: memory holds no encoded copy of the state.
    const written = store.write(opId, async (out) => {
      try {
        bytes = await runInSlices(capture.write(out), this.closed ? Number.POSITIVE_INFINITY : SNAPSHOT_SLICE_MS, () => this.betweenSnapshotSlices());
      } finally {
        capture.release();
      }
    });
    this.snapshotting = (async () => {
      try {
        await written;
        this.snapshotOpId = opId;
        this.snapshotPending = pending;
        await this.markDurable();
        const drop = Math.min(await this.retentionCut(opId), this.options.gate?.truncatableThrough() ?? Number.MAX_SAFE_INTEGER);
        if (drop > 0) await this.log.truncateThrough(drop);
        this.options.onSnapshot?.({ opId, ms: performance.now() - started, bytes });
        return opId;
      } catch (err) {
        this.options.onSnapshot?.({ opId, ms: performance.now() - started, bytes, error: err as Error });
        throw err;
      } finally {
        // Already released once encoded, unless the file could not even be opened.
        capture.release();
        this.snapshotting = null;
        if (this.snapshotDue() && !this.closed) void this.snapshot().catch(() => undefined);
      }
    })();
    return this.snapshotting;
  }

  /** The highest operation_id a snapshot at `opId` lets go of: beyond the retention, in entries and in bytes. */
  private async retentionCut(opId: number): Promise<number> {
    const entries = this.options.logRetention ?? 0;
    const bytes = this.options.logRetentionBytes ?? Number.MAX_SAFE_INTEGER;
    if (!this.log.retentionCut || bytes === Number.MAX_SAFE_INTEGER) return opId - entries;
    return runInSlices(this.log.retentionCut(opId, entries, bytes), this.closed ? Number.POSITIVE_INFINITY : SNAPSHOT_SLICE_MS, () => this.betweenSlices());
  }

  /**
   * Records the highest operation applied (so durable), the newest snapshot and the id reservation,
   * beside the snapshots; failures go to onMarkFailed.
   */
  markDurable(): Promise<void> {
    const store = this.options.snapshots;
    if (!store || this.options.readOnly) return Promise.resolve();
    const mark = { opId: this.appliedUpTo, snapshotOpId: this.snapshotOpId, reservedThrough: this.reservedThrough };
    return store.writeMark(mark).catch((err: Error) => this.options.onMarkFailed?.(err));
  }

  /** Writes a new id reservation once half of the current one is handed out. */
  private reserveAhead(opId: number): void {
    if (!this.options.snapshots || opId <= this.reservedThrough - this.reserveIds / 2) return;
    this.reservedThrough = opId + this.reserveIds;
    void this.markDurable();
  }

  /** One mark write markEveryMs after the first write applied since the last one: at most one small fsync per period. */
  private markSoon(): void {
    const every = this.options.markEveryMs ?? 0;
    if (every <= 0 || this.markPending || this.closed || !this.options.snapshots) return;
    this.markPending = true;
    this.schedule(() => {
      this.markPending = false;
      if (!this.closed) void this.markDurable();
    }, every);
  }

  private stoppedError(): DbError {
    const f = this.failure!;
    const why = f instanceof ApplyFailedError ? `${f.message}; restart the server, and follow what it says` : `a log failure: ${f.message}`;
    return new DbError(503, `writes are stopped after ${why}`);
  }

  /**
   * A logged entry failed to apply: no later entry is applied (order is never broken), every
   * waiting request is answered at once, and no write is taken after. Answers the error for the
   * failed entry's own request.
   */
  private stopAfterApplyFailure(failure: ApplyFailedError): DbError {
    this.failure ??= failure;
    this.options.onApplyFailure?.(failure);
    const later = new DbError(
      503,
      `writes stopped before this one was applied: ${failure.message}. It is in the log and applies at the next start once entry ${failure.opId} is dealt with`,
    );
    for (const w of this.waiting.values()) w.reject(later);
    this.waiting.clear();
    return new DbError(503, `${failure.message}; writes are stopped`);
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

  /**
   * One slice of background indexing: batches of pending vectors go to the graph builder's
   * threads when one is installed (the server's workers), each collection's next batch once its
   * last is done; graphs it cannot take (Dot, small stores) are linked here, a few at a time
   * until the slice's deadline. No batch starts while a snapshot waits for those out.
   */
  private indexSlice(): void {
    if (this.closed) return;
    const builder = this.snapshotWaiting ? null : graphBuilder();
    const deadline = performance.now() + (this.busy() ? BUSY_SLICE_MS : IDLE_SLICE_MS);
    let more = false;
    for (const c of this.collections.values()) {
      if (builder) {
        for (const batch of c.indexElsewhere(builder, BUILD_BATCH)) void batch.then(() => this.scheduleIndexing());
      }
      if (c.building) continue;
      while (c.indexSome(2)) {
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

  /** Links every pending point into its index now (tests, benchmarks, tools: engines without a graph builder). */
  flushIndex(): void {
    for (const c of this.collections.values()) {
      if (c.building || c.copying) throw new Error(`collection "${c.name}" has a batch being linked on other threads, or its graph copied for a snapshot: await indexed() instead`);
      while (c.indexSome(1024));
    }
  }

  /** Resolves once every pending point is linked into its index, batches out on other threads included. */
  async indexed(): Promise<void> {
    for (const c of this.collections.values()) {
      for (;;) {
        await c.settled();
        while (!c.building && c.indexSome(1024));
        if (!c.building && c.pendingCount === 0) break;
      }
    }
  }

  /**
   * Stops indexing, writes a last snapshot when there is news since the previous one (operations
   * applied, or points linked into their index that it holds as waiting: the next start would
   * link them again, minutes for a large load whose last snapshot came before its indexing ended)
   * and the high-water mark, closes the log.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.applied.cancelAll();
    await this.snapshotting?.catch(() => undefined);
    const news = this.appliedUpTo > this.snapshotOpId || this.pendingPoints() < this.snapshotPending;
    if (this.options.snapshots && !this.options.readOnly && !this.failure && news) await this.snapshot().catch(() => undefined);
    await this.markDurable();
    await this.log.close();
    for (const c of this.collections.values()) c.closeFloatFiles();
  }
}
