import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { GraphWalker } from '../query/search/graph-walker.js';
import type { GraphBuilder } from '../storage/views/graph-builder.js';
import { HnswIndex, type GraphLayout } from '../storage/views/hnsw.js';
import { READER_SLOTS } from '../storage/views/point-store.js';
import type { QuantizedLayout, QuantizedVectors } from '../storage/views/quantized-vectors.js';
import type { SharedWalksRequest, Walk, WorkerAnswer, WorkerRequest } from './walk-messages.js';

/** The most workers: each reads in a query area of its own (READER_SLOTS, the main thread's is 0). */
export const MAX_SEARCH_WORKERS = READER_SLOTS - 1;
/** How long walks go out after one found other requests in flight (see SearchPool.inPlaceWhen). */
const SHARED_MS = 20;

/** Prepared nodes in one link message: the workers share a batch to link a chunk at a time. */
const LINK_CHUNK = 32;

/** A worker that stopped while walking (or refused a walk); the request answers a 500 with its request id. */
export class SearchWorkerError extends Error {}

interface Waiting {
  resolve(answer: WorkerAnswer): void;
  reject(err: Error): void;
}

/** One worker thread, the answers it owes and the layouts it holds. */
class PoolWorker {
  thread!: Worker;
  readonly waiting = new Map<number, Waiting>();
  /**
   * The layout this worker last received for each graph, and for its quantized codes; weakly, so
   * that layouts replaced (vectors moved into a file or back, codes made anew) do not keep the
   * memory they name alive on this thread: the collection that follows such a change frees it.
   */
  readonly sent = new Map<number, WeakRef<GraphLayout>>();
  readonly sentCodes = new Map<number, WeakRef<QuantizedLayout>>();
  /** The node it holds while linking (-1: none), and the graph it links: let go of if it dies. */
  readonly holding = new Int32Array(new SharedArrayBuffer(4)).fill(-1);
  linking: GraphLayout | null = null;
  /** Walks it answered (tests: how the walks of a shared request were taken). */
  walked = 0;
  /** Where requests go, each followed by a ring of the doorbell the worker waits on (search-worker.ts). */
  private port!: MessagePort;
  private readonly doorbell = new Int32Array(new SharedArrayBuffer(4));

  /** `shared`: the walks of shared requests (SearchPool.share), answered by whichever worker took each. */
  constructor(
    readonly readerSlot: number,
    private readonly shared: Map<number, Waiting>,
    private readonly onStopped: (w: PoolWorker, thread: Worker, err: Error) => void,
  ) {
    this.start();
  }

  start(): void {
    this.sent.clear();
    this.sentCodes.clear();
    this.linking = null;
    Atomics.store(this.holding, 0, -1);
    this.port?.close();
    const { port1, port2 } = new MessageChannel();
    const thread = new Worker(new URL('./search-worker.js', import.meta.url), {
      workerData: { readerSlot: this.readerSlot, holding: this.holding, doorbell: this.doorbell, port: port2 },
      transferList: [port2],
    });
    thread.unref();
    port1.unref();
    this.port = port1;
    port1.on('message', (answers: WorkerAnswer[]) => {
      for (const a of answers) {
        const w = this.waiting.get(a.id) ?? this.shared.get(a.id);
        if (!w) continue;
        if (!this.waiting.delete(a.id)) this.shared.delete(a.id);
        if ('slots' in a) this.walked++;
        w.resolve(a);
      }
    });
    // A crash fires 'error' and then 'exit': the first replaces the thread, the second finds it replaced.
    thread.on('error', (err) => this.onStopped(this, thread, err));
    thread.on('exit', (code) => this.onStopped(this, thread, new Error(`exited with code ${code}`)));
    this.thread = thread;
  }

  post(m: WorkerRequest): void {
    this.port.postMessage(m);
    Atomics.add(this.doorbell, 0, 1);
    Atomics.notify(this.doorbell, 0);
  }

  /** Sends a message and answers its answer. */
  ask(id: number, m: WorkerRequest): Promise<WorkerAnswer> {
    return new Promise<WorkerAnswer>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.post(m);
    });
  }
}

/** A walk asked for in this turn of the main thread, sent at its end (SearchPool.send). */
interface TurnWalk {
  walk: Walk;
  waiting: Waiting;
}

/** Walkers for a pool of `size` on a machine of `cores`: all but one core's worth, at least one. */
export function walkersFor(size: number, cores: number): number {
  return Math.max(1, Math.min(size, cores - 1));
}

/**
 * The search workers (SERVICE_WORKERS): the walks asked for in one turn of the main thread go
 * out at its end, a lone one to the walker with the fewest in flight, several (a batch search,
 * a query's prefetches, requests read together) to every worker, which take them one at a time
 * until none is left; batches of nodes to link are shared out between all of them, a chunk at a
 * time. A lone walk that reaches a worker busy with either is walked between two of their walks
 * or nodes (search-worker.ts takeLoneWalks), so that a large batch search or link batch does not
 * hold up the searches of other requests for as long as it runs. A worker that dies fails the
 * walks it took or owed (a search answers 500 naming its request id; a batch is linked on the
 * main thread), has the node it held let go of, and is replaced at once. Graphs are known to workers by a number; one the main thread lets go of is
 * forgotten by every worker, so its shared arrays can be freed.
 */
export class SearchPool implements GraphWalker, GraphBuilder {
  private readonly workers: PoolWorker[] = [];
  /** Walks of shared requests not answered yet, by walk id. */
  private readonly sharedWaiting = new Map<number, Waiting>();
  /** The walks asked for in this turn, sent at its end, and the layouts they read, by graph. */
  private turn: TurnWalk[] = [];
  private turnLayouts = new Map<number, { layout: GraphLayout; codes: QuantizedLayout | null }>();
  private readonly graphIds = new WeakMap<HnswIndex, number>();
  private readonly released = new FinalizationRegistry<number>((graph) => {
    this.forget(graph);
    this.sentMemory.delete(graph);
  });
  /** Per graph, the memories of the store and of the codes whose layouts went out last (weakly: they must not keep them alive). */
  private readonly sentMemory = new Map<number, { store: WeakRef<WebAssembly.Memory>; codes: WeakRef<WebAssembly.Memory> | null }>();
  private nextGraph = 1;
  private nextRequest = 1;
  private closed = false;
  /** Walks answered, nodes linked (and of them by a lone worker reading lists in place), and workers replaced after stopping (metrics, tests). */
  walks = 0;
  linked = 0;
  linkedInPlace = 0;
  replaced = 0;
  /** Times the workers were told to let go of their readers of a graph whose floats or codes moved (vectorsMoved, or found so by a walk; tests). */
  forgotten = 0;
  /** Tests: called with a worker right before a walk or a link is sent to it. */
  onDispatch: ((thread: Worker) => void) | null = null;
  /**
   * When set and answering true while no walk is out, the first walk asked for in a turn is left
   * to the caller, who walks in place (the server: its request is the only one in flight,
   * SERVICE_WORKERS_IDLE_IN_PLACE). Handing a lone walk over costs more than it saves: the
   * message, a worker's wake-up and the answer's turn of the event loop (a lone client got 1.4x
   * the searches a second with no workers). The rest of the turn's walks (a batch, a query's
   * prefetches) still go to the workers. A request walked in place runs from its first byte to
   * its answer in one turn of the event loop, before the requests waiting on other connections
   * are even read, so under several clients each would find itself alone and every walk would
   * stay here, the workers idle: so while `probeWhen` says other clients may be waiting (the
   * server: requests came on several connections lately), every `probeEvery`-th walk that would
   * stay goes out all the same, and while it is out the waiting requests are read and find
   * others in flight. Once a walk has found others in flight, walks go out for SHARED_MS, and
   * keep going out while requests keep overlapping; a lone client's walks stay here again once
   * they stop.
   */
  inPlaceWhen: (() => boolean) | null = null;
  /** See inPlaceWhen; null: never. */
  probeWhen: (() => boolean) | null = null;
  /** See inPlaceWhen (0: no walk goes out that inPlaceWhen would leave in place; tests). */
  probeEvery = 8;
  private lone = 0;
  /** When a walk last found other requests in flight (performance.now()). */
  private sharedAt = -Infinity;
  /** Walks left to the caller by inPlaceWhen (metrics, tests). */
  walksInPlace = 0;
  private walksOut = 0;
  private inPlaceThisTurn = false;

  /**
   * `size` workers link nodes into graphs; a lone walk goes to the first `walkers` of them (all
   * by default). The server leaves the request thread a core of its own (walkersFor): it parses,
   * checks and answers every search, and a walker beyond the other cores only takes turns with it.
   * Several walks asked for in one turn (the searches of one batch request, a query's
   * prefetches) go to all `size`: their requests wait for them, so the core is theirs meanwhile.
   */
  constructor(readonly size: number, readonly walkers = size) {
    if (!Number.isInteger(size) || size < 1 || size > MAX_SEARCH_WORKERS) throw new RangeError(`a search pool has 1 to ${MAX_SEARCH_WORKERS} workers, not ${size}`);
    if (!Number.isInteger(walkers) || walkers < 1 || walkers > size) throw new RangeError(`a search pool of ${size} walks on 1 to ${size} of its workers, not ${walkers}`);
    for (let i = 0; i < size; i++) this.workers.push(new PoolWorker(i + 1, this.sharedWaiting, (w, thread, err) => this.stopped(w, thread, err)));
  }

  walk(index: HnswIndex, query: Float32Array, k: number, ef: number, codes: QuantizedVectors | null, onCodes: boolean, allow: Uint32Array | null = null): Promise<Int32Array> | null {
    if (this.closed) return null;
    const layout = index.layout();
    const codesLayout = codes?.layout() ?? null;
    // A walk on floats that are on disk reads the file, which only this thread has open.
    if (!layout || (onCodes && !codesLayout) || (!onCodes && layout.store.onDisk)) return null;
    if (this.inPlaceWhen && this.stayHere(this.inPlaceWhen())) {
      this.walksInPlace++;
      this.inPlaceThisTurn = true;
      queueMicrotask(() => (this.inPlaceThisTurn = false));
      return null;
    }
    const walk: Walk = { id: this.nextRequest++, graph: this.graphId(index), query, k, ef, quantized: onCodes };
    if (allow) walk.allow = allow;
    const codesRead = onCodes ? codesLayout : null;
    // The walks sent together read one layout of each graph: one that changed in this turn (a
    // write grew the store between two searches) sends the walks before it first.
    let read = this.turnLayouts.get(walk.graph);
    if (read && (read.layout !== layout || (codesRead && read.codes && read.codes !== codesRead))) {
      this.send();
      read = undefined;
    }
    this.turnLayouts.set(walk.graph, { layout, codes: codesRead ?? read?.codes ?? null });
    // Vectors that moved (into a file, or codes made anew or dropped): every worker lets go of the
    // old memory now (with a full collection of its own), not at its next walk. This thread holds
    // it nowhere but weakly, and the change's own collection (FloatFiles.released) freed it here:
    // a second one now would hold up this search, for the whole heap (a second or so at a million points).
    const sent = this.sentMemory.get(walk.graph);
    const codesMemory = codesLayout?.memories[0] ?? null;
    if (!sent || sent.store.deref() !== layout.store.memories[0] || (sent.codes?.deref() ?? null) !== codesMemory) {
      if (sent) {
        this.forgotten++;
        this.forget(walk.graph);
      }
      this.sentMemory.set(walk.graph, { store: new WeakRef(layout.store.memories[0]!), codes: codesMemory && new WeakRef(codesMemory) });
    }
    this.walksOut++;
    const answered = new Promise<WorkerAnswer>((resolve, reject) => {
      if (this.turn.push({ walk, waiting: { resolve, reject } }) === 1) queueMicrotask(() => this.send());
    });
    return answered.then(
      (a) => {
        this.walksOut--;
        if (!('slots' in a)) throw new SearchWorkerError(`a search worker could not walk the graph: ${'error' in a ? a.error : 'no answer'}`);
        this.walks++;
        return a.slots;
      },
      (err: unknown) => {
        this.walksOut--;
        throw err;
      },
    );
  }

  /** Sends the walks asked for in this turn: a lone one to the least busy walker, several to every worker to share. */
  private send(): void {
    const turn = this.turn;
    const layouts = this.turnLayouts;
    if (turn.length === 0) return;
    this.turn = [];
    this.turnLayouts = new Map();
    if (this.closed) {
      for (const t of turn) t.waiting.reject(new SearchWorkerError('the search pool is closed'));
      return;
    }
    if (turn.length > 1) return this.share(turn, layouts);
    const { walk, waiting } = turn[0]!;
    const { layout, codes } = layouts.get(walk.graph)!;
    let worker = this.workers[0]!;
    for (let i = 1; i < this.walkers; i++) if (this.workers[i]!.waiting.size < worker.waiting.size) worker = this.workers[i]!;
    walk.layout = this.layoutFor(worker, walk.graph, layout);
    if (codes && this.codesFor(worker, walk.graph, codes)) walk.codes = codes;
    this.onDispatch?.(worker.thread);
    worker.waiting.set(walk.id, waiting);
    worker.post({ type: 'walk', walk });
  }

  /**
   * Sends the turn's walks to every worker, each taking the next one nobody has taken
   * (SharedWalksRequest), so that none waits on a worker held up elsewhere. Once every worker
   * has drained the request or stopped, a walk still unanswered (taken by a worker that stopped
   * before answering, or by none: all of them stopped) fails.
   */
  private share(turn: TurnWalk[], graphs: Map<number, { layout: GraphLayout; codes: QuantizedLayout | null }>): void {
    const id = this.nextRequest++;
    const claims = new Int32Array(new SharedArrayBuffer(4 * turn.length));
    // The queries in one shared buffer: every worker is sent views of it, not copies.
    let floats = 0;
    for (const t of turn) floats += t.walk.query.length;
    const queries = new Float32Array(new SharedArrayBuffer(4 * floats));
    let at = 0;
    const walks = turn.map(({ walk, waiting }) => {
      queries.set(walk.query, at);
      this.sharedWaiting.set(walk.id, waiting);
      return { ...walk, query: queries.subarray(at, (at += walk.query.length)) };
    });
    let working = this.workers.length;
    let stopped: Error | null = null;
    const drained = (err: Error | null): void => {
      stopped = err ?? stopped;
      if (--working > 0) return;
      // Each worker has drained the request or stopped: what is left was taken by one that stopped, or by none.
      const left = walks.filter((w) => this.sharedWaiting.has(w.id));
      if (left.length === 0) return;
      const failure = stopped ?? new SearchWorkerError('no search worker walked it');
      for (const w of left) this.failShared(w.id, failure);
    };
    for (const worker of this.workers) {
      const mine: SharedWalksRequest['graphs'] = [];
      for (const [graph, { layout, codes }] of graphs) {
        const entry: SharedWalksRequest['graphs'][number] = { graph };
        const sentLayout = this.layoutFor(worker, graph, layout);
        if (sentLayout) entry.layout = sentLayout;
        if (codes && this.codesFor(worker, graph, codes)) entry.codes = codes;
        mine.push(entry);
      }
      this.onDispatch?.(worker.thread);
      worker.ask(id, { type: 'shared', id, graphs: mine, walks, claims }).then(
        (a) => drained('error' in a ? new SearchWorkerError(a.error) : null),
        (err: Error) => drained(err),
      );
    }
  }

  private failShared(walk: number, err: Error): void {
    const waiting = this.sharedWaiting.get(walk);
    if (!waiting) return;
    this.sharedWaiting.delete(walk);
    waiting.reject(err);
  }

  /** Whether this walk is left to the caller (see inPlaceWhen), `alone` saying whether its request is the only one in flight. */
  private stayHere(alone: boolean): boolean {
    const now = performance.now();
    if (!alone) this.sharedAt = now;
    if (!alone || this.walksOut > 0 || this.inPlaceThisTurn || now - this.sharedAt < SHARED_MS) return false;
    return this.probeEvery === 0 || !this.probeWhen?.() || ++this.lone % this.probeEvery !== 0;
  }

  link(index: HnswIndex, slots: Int32Array): Promise<void> | null {
    if (this.closed) return null;
    const layout = index.layout();
    if (!layout || layout.store.onDisk) return null;
    const graph = this.graphId(index);
    const alone = this.workers.length === 1;
    let next = 0;
    const share = async (worker: PoolWorker): Promise<void> => {
      while (next < slots.length) {
        const chunk = slots.slice(next, (next += LINK_CHUNK));
        const id = this.nextRequest++;
        // The store may have grown since the last chunk: its arrays, not the graph's, are then new.
        const current = index.layout()!;
        worker.linking = current;
        this.onDispatch?.(worker.thread);
        const a = await worker.ask(id, { type: 'link', id, graph, layout: this.layoutFor(worker, graph, current), slots: chunk, alone });
        worker.linking = null;
        if ('error' in a) throw new SearchWorkerError(`a search worker could not link nodes into the graph: ${a.error}`);
        this.linked += chunk.length;
        if ('inPlace' in a && a.inPlace) this.linkedInPlace += chunk.length;
      }
    };
    return Promise.allSettled(this.workers.map(share)).then((results) => {
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    });
  }

  /** GraphBuilder.vectorsMoved: every worker holding a reader of this graph lets go of it now (and collects). */
  vectorsMoved(index: HnswIndex): void {
    const graph = this.graphIds.get(index);
    if (graph === undefined) return;
    this.sentMemory.delete(graph);
    // Readers come from walks and from links alike (a lone client's graph may have been linked here and never walked).
    if (!this.workers.some((w) => w.sent.has(graph))) return;
    this.forgotten++;
    this.forget(graph);
  }

  /** Walks each worker answered, in the order of threads() (tests). */
  walkedBy(): number[] {
    return this.workers.map((w) => w.walked);
  }

  /** The worker threads (tests stop one to see it replaced). */
  threads(): Worker[] {
    return this.workers.map((w) => w.thread);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.thread.terminate()));
  }

  /** The layout to send along, when the worker's copy of this graph's is not it. */
  private layoutFor(worker: PoolWorker, graph: number, layout: GraphLayout): GraphLayout | undefined {
    if (worker.sent.get(graph)?.deref() === layout) return undefined;
    worker.sent.set(graph, new WeakRef(layout));
    // A new layout makes the worker a new reader, which needs the codes again.
    worker.sentCodes.delete(graph);
    return layout;
  }

  /** Whether the codes' layout must go along: the worker's copy of this graph's is not it (sent after layoutFor). */
  private codesFor(worker: PoolWorker, graph: number, codes: QuantizedLayout): boolean {
    if (worker.sentCodes.get(graph)?.deref() === codes) return false;
    worker.sentCodes.set(graph, new WeakRef(codes));
    return true;
  }

  private graphId(index: HnswIndex): number {
    let id = this.graphIds.get(index);
    if (id === undefined) {
      id = this.nextGraph++;
      this.graphIds.set(index, id);
      this.released.register(index, id);
    }
    return id;
  }

  private forget(graph: number): void {
    for (const w of this.workers) {
      w.sentCodes.delete(graph);
      if (w.sent.delete(graph)) w.post({ type: 'forget', graph });
    }
  }

  private stopped(w: PoolWorker, thread: Worker, err: Error): void {
    if (thread !== w.thread) return;
    const held = Atomics.load(w.holding, 0);
    if (w.linking && held >= 0) HnswIndex.release(w.linking, held);
    const owed = [...w.waiting.values()];
    w.waiting.clear();
    for (const walk of owed) walk.reject(new SearchWorkerError(`the search worker stopped: ${err.message}`));
    if (this.closed) return;
    this.replaced++;
    w.start();
  }
}
