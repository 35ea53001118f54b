import { Worker } from 'node:worker_threads';
import type { GraphWalker } from '../query/search/graph-walker.js';
import type { GraphLayout, HnswIndex } from '../storage/views/hnsw.js';
import { READER_SLOTS } from '../storage/views/point-store.js';
import type { Walk, WalkAnswer, WorkerRequest } from './walk-messages.js';

/** The most workers: each reads in a query area of its own (READER_SLOTS, the main thread's is 0). */
export const MAX_SEARCH_WORKERS = READER_SLOTS - 1;

/** A worker that stopped while walking (or refused a walk); the request answers a 500 with its request id. */
export class SearchWorkerError extends Error {}

interface Waiting {
  resolve(slots: Int32Array): void;
  reject(err: Error): void;
}

/** One worker thread, the walks it owes and the layouts it holds. */
class PoolWorker {
  thread!: Worker;
  readonly waiting = new Map<number, Waiting>();
  /** The layout this worker last received for each graph. */
  readonly sent = new Map<number, GraphLayout>();
  /** Walks given to it in this turn of the main thread, sent together at its end. */
  private outbox: Walk[] = [];

  constructor(readonly readerSlot: number, private readonly onStopped: (w: PoolWorker, thread: Worker, err: Error) => void) {
    this.start();
  }

  start(): void {
    this.sent.clear();
    const thread = new Worker(new URL('./search-worker.js', import.meta.url), { workerData: { readerSlot: this.readerSlot } });
    thread.unref();
    thread.on('message', (answers: WalkAnswer[]) => {
      for (const a of answers) {
        const w = this.waiting.get(a.id);
        if (!w) continue;
        this.waiting.delete(a.id);
        if ('slots' in a) w.resolve(a.slots);
        else w.reject(new SearchWorkerError(`a search worker could not walk the graph: ${a.error}`));
      }
    });
    // A crash fires 'error' and then 'exit': the first replaces the thread, the second finds it replaced.
    thread.on('error', (err) => this.onStopped(this, thread, err));
    thread.on('exit', (code) => this.onStopped(this, thread, new Error(`exited with code ${code}`)));
    this.thread = thread;
  }

  post(m: WorkerRequest): void {
    this.thread.postMessage(m);
  }

  /** Queues a walk; the turn's walks go out in one message (one wake-up of the worker, one answer). */
  send(walk: Walk): void {
    if (this.outbox.push(walk) > 1) return;
    queueMicrotask(() => {
      const walks = this.outbox;
      this.outbox = [];
      this.post({ type: 'walks', walks });
    });
  }
}

/**
 * The search workers (SERVICE_WORKERS): graph walks go to the worker with the fewest in
 * flight. A worker that dies fails the walks it owed (their requests answer 500 naming the
 * request id) and is replaced at once. Graphs are known to workers by a number; one the main
 * thread lets go of is forgotten by every worker, so its shared arrays can be freed.
 */
export class SearchPool implements GraphWalker {
  private readonly workers: PoolWorker[] = [];
  private readonly graphIds = new WeakMap<HnswIndex, number>();
  private readonly released = new FinalizationRegistry<number>((graph) => this.forget(graph));
  private nextGraph = 1;
  private nextRequest = 1;
  private closed = false;
  /** Walks answered by a worker, and workers replaced after stopping (metrics, tests). */
  walks = 0;
  replaced = 0;
  /** Tests: called with a walk's worker right before the walk is sent to it. */
  onDispatch: ((thread: Worker) => void) | null = null;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1 || size > MAX_SEARCH_WORKERS) throw new RangeError(`a search pool has 1 to ${MAX_SEARCH_WORKERS} workers, not ${size}`);
    for (let i = 0; i < size; i++) this.workers.push(new PoolWorker(i + 1, (w, thread, err) => this.stopped(w, thread, err)));
  }

  walk(index: HnswIndex, query: Float32Array, k: number, ef: number): Promise<Int32Array> | null {
    if (this.closed) return null;
    const layout = index.layout();
    if (!layout) return null;
    const graph = this.graphId(index);
    let worker = this.workers[0]!;
    for (const w of this.workers) if (w.waiting.size < worker.waiting.size) worker = w;
    const message: Walk = { id: this.nextRequest++, graph, query, k, ef };
    if (worker.sent.get(graph) !== layout) {
      message.layout = layout;
      worker.sent.set(graph, layout);
    }
    return new Promise<Int32Array>((resolve, reject) => {
      worker.waiting.set(message.id, {
        resolve: (slots) => {
          this.walks++;
          resolve(slots);
        },
        reject,
      });
      this.onDispatch?.(worker.thread);
      worker.send(message);
    });
  }

  /** The worker threads (tests stop one to see it replaced). */
  threads(): Worker[] {
    return this.workers.map((w) => w.thread);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.thread.terminate()));
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
      if (w.sent.delete(graph)) w.post({ type: 'forget', graph });
    }
  }

  private stopped(w: PoolWorker, thread: Worker, err: Error): void {
    if (thread !== w.thread) return;
    const owed = [...w.waiting.values()];
    w.waiting.clear();
    for (const walk of owed) walk.reject(new SearchWorkerError(`the search worker stopped while walking the graph: ${err.message}`));
    if (this.closed) return;
    this.replaced++;
    w.start();
  }
}
