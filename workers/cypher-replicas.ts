import { Worker, type TransferListItem } from 'node:worker_threads';
import type { Query } from '../query/cypher/ast.js';
import { CypherError } from '../query/cypher/errors.js';
import { QUERY_TIMEOUT_MS, type GuardOptions } from '../query/cypher/guard.js';
import { searchesVectors } from '../query/cypher/query-kind.js';
import { resolveParameters } from '../query/cypher/resolved-values.js';
import type { Value } from '../query/cypher/values.js';
import type { TraverseRequest } from '../query/api/graph-body.js';
import type { CypherResultText } from '../query/api/graph-json.js';
import type { CypherResult } from '../query/cypher/run-query.js';
import type { Engine } from '../storage/engine/engine.js';
import { DbError } from '../storage/errors.js';
import { writeSnapshotInSlices } from '../storage/snapshot/snapshot-codec.js';
import { headAfter, hex } from '../storage/log/chain.js';
import type { ExportingAnswer, ExportMessage, LoadedAnswer, ReloadAnswer, OpenMessage, PullMessage, QueryMessage, ReplicaAnswer, ReplicaData, ReplicaRequest, ResultAnswer, RowsAnswer, TraverseAnswer, TraverseMessage } from './replica-messages.js';
import { ReplicaCursor } from './replica-cursor.js';
import { RemoteExport } from './remote-export.js';
import { StateSender } from './state-stream.js';

/** The most Cypher replicas (SERVICE_CYPHER_WORKERS): each holds a whole copy of the views. */
export const MAX_CYPHER_WORKERS = 16;
/** A replica's state is encoded on the request thread in slices this long, resting between them as snapshots do (Engine.betweenSlices). */
const STATE_SLICE_MS = 1;

/** A replica's state stopped being sent: the replica was replaced or the replicas closed meanwhile. */
class StateAbandoned extends Error {}

/** Thrown between two slices of a read on the request thread that a free replica takes over (CypherReplicas.runHereUntilFree). */
class TakenOver extends Error {}

/** A replica that stopped (crashed, ran out of memory, was replaced) while it owed an answer: the request answers 500 with its request id. */
export class CypherReplicaError extends Error {}

type Answered = ResultAnswer | TraverseAnswer | RowsAnswer | ExportingAnswer;

interface Owed {
  request: QueryMessage | TraverseMessage | OpenMessage | PullMessage | ExportMessage;
  /** `by`: the replica that answered (a request sent back by a retiring replica is answered by another). */
  resolve(answer: Answered, by: Replica): void;
  reject(err: Error): void;
}

/** One replica thread, the answers it owes and the cursors it holds open (Bolt reads between two pulls). */
class Replica {
  thread!: Worker;
  readonly owed = new Map<number, Owed>();
  readonly cursors = new Map<number, ReplicaCursor>();
  /** Exports it is sending, by request id. */
  readonly exports = new Map<number, RemoteExport>();
  /** The thread has its state (it answered 'loaded'); until then a query sent would wait for it. */
  loaded = false;
  /** Told when the thread has its state. */
  private readonly whenLoaded: (() => void)[] = [];

  /** Nothing owed, no cursor open, no export being sent: a retiring replica can be stopped. */
  get idle(): boolean {
    return this.owed.size === 0 && this.cursors.size === 0 && this.exports.size === 0;
  }

  constructor(
    private readonly onAnswer: (r: Replica, a: ReplicaAnswer) => void,
    private readonly onStopped: (r: Replica, thread: Worker, err: Error) => void,
    private readonly data: ReplicaData,
  ) {}

  /** Resolves once the thread has its state. */
  ready(): Promise<void> {
    return this.loaded ? Promise.resolve() : new Promise((resolve) => this.whenLoaded.push(resolve));
  }

  markLoaded(): void {
    this.loaded = true;
    for (const resolve of this.whenLoaded.splice(0)) resolve();
  }

  start(): void {
    this.loaded = false;
    const thread = new Worker(new URL('./cypher-replica-thread.js', import.meta.url), { workerData: this.data });
    thread.unref();
    thread.on('message', (a: ReplicaAnswer) => this.onAnswer(this, a));
    // A crash fires 'error' and then 'exit': the first replaces the thread, the second finds it replaced.
    thread.on('error', (err) => this.onStopped(this, thread, err));
    thread.on('exit', (code) => this.onStopped(this, thread, new Error(`exited with code ${code}`)));
    this.thread = thread;
  }

  post(m: ReplicaRequest, transfer: TransferListItem[] = []): void {
    this.thread.postMessage(m, transfer);
  }
}

/**
 * The Cypher read replicas (cypher-replica.md): worker threads that each hold a copy of the
 * views, built from a snapshot the main thread encodes and kept current with every log entry the
 * main thread applies, forwarded in operation_id order. A read-only query goes to the replica
 * with the fewest queries in flight, with the operation_id applied when it arrived, which the
 * replica waits for (read your own writes). When every replica is busy, or still loading its
 * state, and the request thread runs no Cypher query, the query runs there instead (in slices),
 * so two long queries use two cores even with one replica, and the first reads do not wait for a
 * copy of every view. The replicas start with the first query sent to them; a replica
 * that stops fails the queries it owed and is replaced by a new copy. Once one has loaded,
 * exports and collection snapshots are encoded there too (`export`).
 */
export class CypherReplicas {
  private readonly replicas: Replica[] = [];
  /** Replicas a new copy has replaced (after a staged import): they finish what they have begun, then stop. */
  private readonly retiring = new Set<Replica>();
  private nextQuery = 1;
  /** The newest operation_id sent to the replicas. */
  private forwarded = 0;
  private started = false;
  private closed = false;
  /** Queries and walks answered by the replicas, exports begun on them, replicas replaced after stopping (metrics, tests). */
  answered = 0;
  exported = 0;
  replaced = 0;
  /** Read queries running on the request thread now. */
  inPlace = 0;
  /** The bytes of the state last sent whole to a replica (tests). */
  stateBytes = 0;
  /** Why the views could not be sent to a replica: the replicas are then stopped, and every query runs on the request thread. */
  failure: Error | null = null;

  constructor(
    private readonly engine: Engine,
    readonly size: number,
    /** Told once if the replicas are stopped for good (see `failure`). */
    private readonly onGiveUp: (err: Error) => void = () => {},
    /** The data dir: where a replica keeps the floats of vectors on disk (null: in RAM). */
    private readonly dataDir: string | null = null,
  ) {
    if (!Number.isInteger(size) || size < 0 || size > MAX_CYPHER_WORKERS) throw new RangeError(`Cypher replicas number 0 to ${MAX_CYPHER_WORKERS}, not ${size}`);
  }

  /** Bolt reads held open on the replicas between two pulls. */
  get cursorsOpen(): number {
    return [...this.replicas, ...this.retiring].reduce((n, r) => n + r.cursors.size, 0);
  }

  /** Exports being sent by the replicas. */
  get exportsOpen(): number {
    return [...this.replicas, ...this.retiring].reduce((n, r) => n + r.exports.size, 0);
  }

  /** Queries and walks sent to the replicas and not answered yet. */
  get inFlight(): number {
    return [...this.replicas, ...this.retiring].reduce((n, r) => n + r.owed.size, 0);
  }

  /**
   * Runs a compiled read-only query on a replica; null when it runs on the request thread
   * instead (no replicas, a query that searches the HNSW index, or the overflow rule above).
   */
  run(collection: string, query: Query, text: string, parameters: Record<string, unknown>, limits: GuardOptions): Promise<CypherResultText> | null {
    if (this.size === 0 || this.closed || searchesVectors(query)) return null;
    const replica = this.leastBusy();
    if (this.takenHere(replica)) return null;
    const limited = { timeoutMs: limits.timeoutMs, memoryBytes: limits.memoryBytes };
    return this.ask(replica, (id, after) => ({ type: 'query', id, collection, text, parameters, after, limits: limited })).then((a) => {
      const { columns, rowsJson, rowCount, nodesScanned } = a as ResultAnswer;
      return { columns, rowsJson, rowCount, nodesScanned };
    });
  }

  /**
   * Opens a compiled read-only query as a cursor on a replica (Bolt's auto-commit reads), by the
   * rule of `run`: answers once its first `first` rows are made (an error in them rejects), then
   * the cursor gives the rest a batch at a time; null when it runs on the request thread.
   */
  open(collection: string, query: Query, text: string, parameters: Record<string, Value>, limits: GuardOptions, first: number): Promise<ReplicaCursor> | null {
    if (this.size === 0 || this.closed || searchesVectors(query)) return null;
    const replica = this.leastBusy();
    if (this.takenHere(replica)) return null;
    const limited = { timeoutMs: limits.timeoutMs, memoryBytes: limits.memoryBytes };
    const resolved = resolveParameters(parameters);
    const sentAt = performance.now();
    return new Promise<ReplicaCursor>((resolve, reject) => {
      this.send(replica, (id, after) => ({ type: 'open', id, collection, text, parameters: resolved, after, limits: limited, first }), {
        resolve: (a, by) => {
          const rows = a as RowsAnswer;
          const id = rows.id;
          const cursor = new ReplicaCursor(rows.columns ?? [], rows, { pull: (n) => this.pull(by, id, n), close: () => this.closeCursor(by, id) }, limits.timeoutMs ?? QUERY_TIMEOUT_MS, sentAt);
          if (!rows.exhausted) by.cursors.set(id, cursor);
          resolve(cursor);
        },
        reject,
      });
    });
  }

  private pull(r: Replica, id: number, n: number): Promise<RowsAnswer> {
    if (!r.cursors.has(id)) return Promise.reject(new CypherReplicaError('the Cypher replica holding the result stopped'));
    const request: PullMessage = { type: 'pull', id, n };
    return new Promise((resolve, reject) => {
      r.owed.set(id, { request, resolve: (a) => resolve(a as RowsAnswer), reject });
      r.post(request);
    });
  }

  /** Lets a cursor go on its replica; a pull still unanswered answers no rows (its answer, if any, is dropped). */
  private closeCursor(r: Replica, id: number): void {
    if (!r.cursors.delete(id)) return;
    const pulling = r.owed.get(id);
    r.owed.delete(id);
    pulling?.resolve({ type: 'rows', id, rows: [], exhausted: true }, r);
    r.post({ type: 'close', id });
    this.stopIfRetired(r);
  }

  /**
   * A breadth-first walk on a replica, answered as JSON text (traverseJson's); null without
   * replicas. A walk runs in one go, so it always goes to a replica, which takes it between two
   * slices of whatever query it runs.
   */
  traverse(collection: string, request: TraverseRequest): Promise<string> | null {
    if (this.size === 0 || this.closed) return null;
    return this.ask(this.leastBusy(), (id, after) => ({ type: 'traverse', id, collection, request, after })).then((a) => (a as TraverseAnswer).json);
  }

  /**
   * An export of a collection (export-writer.ts) encoded on a replica, answered once it has begun
   * there, taken at an operation at or after the one applied now (read your own writes); null when
   * no replica has its state, so that the request thread encodes it. An export does not start the
   * replicas: each holds a copy of the views, a cost a database that only exports (a backup now
   * and then) should not pay; they start with the first read-only query. `logHead`: the header names the log's head hash at that operation; `digest`: the
   * replica hashes the bytes (SHA-256) as it sends them. The reader must take the chunks to the
   * end or call `release`.
   */
  export(collection: string, options: { logHead: boolean; digest: boolean }): Promise<RemoteExport> | null {
    if (this.size === 0 || this.closed) return null;
    const loaded = this.replicas.filter((r) => r.loaded);
    if (loaded.length === 0) return null;
    const replica = loaded.reduce((a, b) => (b.owed.size + b.exports.size < a.owed.size + a.exports.size ? b : a));
    return new Promise<RemoteExport>((resolve, reject) => {
      this.send(replica, (id, after) => ({ type: 'export', id, collection, after, ...options }), {
        resolve: (a, by) => {
          const { id, pointCount, edgeCount, dimension, operationId, logHead } = a as ExportingAnswer;
          const remote = new RemoteExport(
            pointCount,
            edgeCount,
            dimension,
            operationId,
            logHead,
            (bytes) => by.post({ type: 'export-taken', id, bytes }),
            () => {
              by.exports.delete(id);
              by.post({ type: 'export-close', id });
              this.stopIfRetired(by);
            },
          );
          by.exports.set(id, remote);
          this.exported++;
          resolve(remote);
        },
        reject,
      });
    });
  }

  /**
   * Whether the request thread takes a read rather than `replica`, the least busy: when that one
   * is busy, or still loading its state (the first queries would wait for a copy of every view:
   * seconds for a large database), and no read runs on the request thread.
   */
  private takenHere(replica: Replica): boolean {
    return (replica.owed.size > 0 || !replica.loaded) && this.inPlace === 0;
  }

  /** Starts the replicas if they have not started, and resolves once every one has its state (tests, benchmarks). */
  async ready(): Promise<void> {
    if (this.size === 0 || this.closed) return;
    if (!this.started) this.start();
    await Promise.all(this.replicas.map((r) => r.ready()));
  }

  /** The replica with the fewest requests in flight, one that has its state first (starting the replicas with the first). */
  private leastBusy(): Replica {
    if (!this.started) this.start();
    let replica = this.replicas[0]!;
    for (const r of this.replicas) if (r.owed.size < replica.owed.size || (r.owed.size === replica.owed.size && r.loaded && !replica.loaded)) replica = r;
    return replica;
  }

  /** Sends a request made with its id and the operation_id applied now; answers its answer. */
  private ask(replica: Replica, make: (id: number, after: number) => QueryMessage | TraverseMessage): Promise<Answered> {
    return new Promise((resolve, reject) => this.send(replica, make, { resolve, reject }));
  }

  private send(replica: Replica, make: (id: number, after: number) => QueryMessage | TraverseMessage | OpenMessage | ExportMessage, answer: Omit<Owed, 'request'>): void {
    const id = this.nextQuery++;
    const request = make(id, this.engine.lastAppliedOperationId);
    replica.owed.set(id, { request, ...answer });
    replica.post(request);
  }

  /** A retiring replica stops once it owes nothing and holds no cursor. */
  private stopIfRetired(r: Replica): void {
    if (this.retiring.has(r) && r.idle) void r.thread.terminate();
  }

  /** Runs a read query on the request thread, counted in `inPlace`. */
  async inPlaceRun<T>(work: () => Promise<T>): Promise<T> {
    this.inPlace++;
    try {
      return await work();
    } finally {
      this.inPlace--;
    }
  }

  /**
   * Runs a read query on the request thread (as inPlaceRun), where it came because the replicas
   * were loading or busy, with `pause` between its slices. If, between two slices, a replica has
   * its state and nothing to do, the query stops here and runs again there, with what is left of
   * its time (a read leaves nothing to undo): a long query sent first after start-up holds the
   * request thread only while the replicas load. Answers the result made here, or the replica's.
   */
  async runHereUntilFree(
    collection: string,
    query: Query,
    text: string,
    parameters: Record<string, unknown>,
    limits: GuardOptions,
    here: (pause: () => Promise<void>) => Promise<CypherResult>,
    pause: () => Promise<void>,
  ): Promise<{ here: CypherResult } | { there: CypherResultText }> {
    const started = performance.now();
    const timeoutMs = limits.timeoutMs ?? QUERY_TIMEOUT_MS;
    const movable = !searchesVectors(query);
    const free = (): boolean => !this.closed && this.replicas.some((r) => r.loaded && r.owed.size === 0);
    const pauseOrMove = async (): Promise<void> => {
      if (movable && free() && performance.now() - started < timeoutMs) throw new TakenOver();
      await pause();
    };
    try {
      return { here: await this.inPlaceRun(() => here(pauseOrMove)) };
    } catch (err) {
      if (!(err instanceof TakenOver)) throw err;
    }
    const there = this.run(collection, query, text, parameters, { ...limits, timeoutMs: Math.max(1, timeoutMs - (performance.now() - started)) });
    if (there) return { there: await there };
    // Another request's read took the free replica meanwhile: this one starts again here.
    return { here: await this.inPlaceRun(() => here(pause)) };
  }

  /** The replica threads (tests stop one to see it replaced); empty until the first query. */
  threads(): Worker[] {
    return this.replicas.map((r) => r.thread);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.replicas, ...this.retiring].map((r) => r.thread.terminate()));
  }

  private start(): void {
    this.started = true;
    this.forwarded = this.engine.lastAppliedOperationId;
    for (let i = 0; i < this.size; i++) this.replicas.push(this.newReplica());
    void this.forward();
  }

  private newReplica(): Replica {
    const r = new Replica(
      (replica, a) => this.answer(replica, a),
      (replica, thread, err) => this.stopped(replica, thread, err),
      { dataDir: this.dataDir },
    );
    this.launch(r);
    return r;
  }

  /**
   * Starts a replica's thread and sends it the state: captured once the views are whole, then
   * encoded in slices, so requests go on meanwhile (the entries applied after the capture reach
   * the replica before its state, and it keeps them for after it).
   */
  private launch(r: Replica): void {
    r.start();
    const thread = r.thread;
    const abandoned = (): boolean => this.closed || r.thread !== thread;
    void this.whole()
      .then(async () => {
        if (abandoned()) return;
        const opId = this.engine.lastAppliedOperationId;
        const sender = new StateSender();
        r.post({ type: 'state', opId, head: this.headAt(opId), stream: sender.stream }, [sender.stream.port]);
        // Without the HNSW graphs' links: queries that walk a graph run on the request thread.
        const links = false;
        try {
          await writeSnapshotInSlices(this.engine.collections, opId, sender, STATE_SLICE_MS, async () => {
            await this.engine.betweenSlices();
            await sender.room(abandoned);
            if (abandoned()) throw new StateAbandoned();
          }, links);
          sender.end(null);
          this.stateBytes = sender.sent;
        } catch (err) {
          sender.end((err as Error).message);
          if (!(err instanceof StateAbandoned)) throw err;
        }
      })
      .catch((err: Error) => this.giveUp(err));
  }

  /** The log's chain hash at `opId` in hex (null for a log that keeps none): the head's, unless entries were logged after it. */
  private headAt(opId: number): string | null {
    const { log } = this.engine;
    if (log.headHash === undefined) return null;
    if (opId === log.lastOperationId) return log.headHash;
    for (const { record } of log.readRaw(opId, opId)) return hex(headAfter(record));
    return log.headHash;
  }

  /** The views could not be encoded for a replica (as a snapshot would fail): no replica can start, so none runs. */
  private giveUp(err: Error): void {
    if (this.closed) return;
    this.failure = err;
    this.closed = true;
    this.onGiveUp(err);
    for (const r of [...this.replicas, ...this.retiring]) {
      const owed = [...r.owed.values()];
      r.owed.clear();
      for (const o of owed) o.reject(new CypherReplicaError(`the views could not be sent to a Cypher replica: ${err.message}`));
      void r.thread.terminate();
    }
  }

  /**
   * Resolves at a moment the views are whole: no import applied in slices half way, no HNSW batch
   * being linked on the search workers (as the engine's own snapshots wait). The caller encodes
   * them in the same turn.
   */
  private async whole(): Promise<void> {
    for (;;) {
      const building = [...this.engine.collections.values()].filter((c) => c.building);
      if (building.length === 0 && !this.engine.applyingInSlices) return;
      await Promise.all(building.map((c) => c.settled()));
      if (this.engine.applyingInSlices) await this.engine.applied.waitFor(this.engine.lastAppliedOperationId + 1, null);
    }
  }

  /**
   * Sends every entry the engine applies to the replicas, as its stored record, in the turn it
   * was applied (batched: the entries applied together go in one message). The log keeps every
   * entry until a snapshot well after it lets it go, so each is still there when read here.
   */
  private async forward(): Promise<void> {
    while (!this.closed) {
      const reached = await this.engine.applied.waitFor(this.forwarded + 1, null);
      if (!reached || this.closed) return;
      const upTo = this.engine.lastAppliedOperationId;
      const entries: [number, Uint8Array][] = [];
      for (const { opId, record } of this.engine.log.readRaw(this.forwarded + 1, upTo)) entries.push([opId, record]);
      this.forwarded = upTo;
      if (entries.length > 0) for (const r of this.replicas) r.post({ type: 'entries', entries });
    }
  }

  private answer(r: Replica, a: ReplicaAnswer): void {
    if (a.type === 'loaded') return r.markLoaded();
    if (a.type === 'reload') return this.retire(r);
    if (r.exports.has(a.id)) return this.exportAnswer(r, a);
    // The rest of an export the reader let go.
    if (a.type === 'chunk' || a.type === 'export-end') return;
    const owed = r.owed.get(a.id);
    if (!owed) return;
    r.owed.delete(a.id);
    // A cursor that ended, or met an error (the replica let it go then), is no longer held there.
    if ((a.type === 'rows' && a.exhausted) || a.type === 'refused' || a.type === 'failed') r.cursors.delete(a.id);
    this.stopIfRetired(r);
    if (a.type === 'retry' && this.closed) {
      owed.reject(new CypherReplicaError('the Cypher replicas stopped before the query could run'));
    } else if (a.type === 'retry') {
      // Not begun on a replica that stopped applying entries: the new copy (already in its place) takes it.
      const to = this.leastBusy();
      to.owed.set(a.id, owed);
      to.post(owed.request);
    } else if (a.type === 'result' || a.type === 'traversed' || a.type === 'rows' || a.type === 'exporting') {
      // Queries and walks (a cursor once, at its first rows); an export is counted in `exported`.
      if (a.type === 'result' || a.type === 'traversed' || (a.type === 'rows' && a.columns)) this.answered++;
      owed.resolve(a, r);
    } else if (a.type === 'refused') {
      const c = a.cypher;
      owed.reject(c ? new CypherError(c.kind, c.detail, a.message, c.position) : new DbError(a.code, a.message));
    } else {
      owed.reject(new CypherReplicaError(`a Cypher replica failed to run the query: ${a.error}`));
    }
  }

  /** A chunk, the end or a failure of an export under way (chunks of one the reader let go are not routed here). */
  private exportAnswer(r: Replica, a: Exclude<ReplicaAnswer, LoadedAnswer | ReloadAnswer>): void {
    const remote = r.exports.get(a.id)!;
    if (a.type === 'chunk') return remote.push(a.bytes);
    r.exports.delete(a.id);
    this.stopIfRetired(r);
    if (a.type === 'export-end') remote.end(a.sha256);
    else remote.fail(new CypherReplicaError(`a Cypher replica failed to export the collection: ${a.type === 'failed' ? a.error : a.type === 'refused' ? a.message : a.type}`));
  }

  /**
   * A new copy takes the place of a replica that met an entry it cannot apply from its record
   * (it finishes what it has begun, sends the rest back to be retried, then is stopped).
   */
  private retire(r: Replica): void {
    const at = this.replicas.indexOf(r);
    if (at < 0 || this.closed) return;
    this.replicas[at] = this.newReplica();
    this.retiring.add(r);
    this.stopIfRetired(r);
  }

  private stopped(r: Replica, thread: Worker, err: Error): void {
    if (thread !== r.thread) return;
    const owed = [...r.owed.values()];
    r.owed.clear();
    for (const o of owed) o.reject(new CypherReplicaError(`the Cypher replica stopped: ${err.message}`));
    for (const cursor of r.cursors.values()) cursor.fail(new CypherReplicaError(`the Cypher replica holding the result stopped: ${err.message}`));
    r.cursors.clear();
    for (const remote of r.exports.values()) remote.fail(new CypherReplicaError(`the Cypher replica sending the export stopped: ${err.message}`));
    r.exports.clear();
    if (this.retiring.delete(r) || this.closed) return;
    this.replaced++;
    this.launch(r);
  }
}
