import { receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { HnswIndex, type GraphLayout } from '../storage/views/hnsw.js';
import { PointStore } from '../storage/views/point-store.js';
import { VectorSpace } from '../storage/views/vector-space.js';
import { quantizedReader, type QuantizedLayout } from '../storage/views/quantized-vectors.js';
import type { QueryDistance } from '../storage/views/hnsw.js';
import type { Walk, WorkerAnswer, WorkerRequest } from './walk-messages.js';
import { collectGarbage } from '../storage/floats/collect-garbage.js';

/**
 * A search worker: walks HNSW graphs that the main thread writes, and links batches of prepared
 * nodes into them beside the other workers, through readers made from each graph's layout
 * (hnsw-sharing.md), in its own query area. `holding` names the node it holds while linking.
 * Requests come on `port`, each announced by a ring of `doorbell` (search-pool.ts): the worker
 * waits on the doorbell rather than in an event loop, and spins a moment before it sleeps, so a
 * request that follows soon is taken at once. This halves the round trip of a walk.
 */
const { readerSlot, holding, doorbell, port } = workerData as { readerSlot: number; holding: Int32Array; doorbell: Int32Array; port: MessagePort };
/** Checks of the doorbell before the worker sleeps on it: a few microseconds (spinning longer takes the cores the request thread needs). */
const SPINS = 1_000;
interface Reader {
  index: HnswIndex;
  store: PointStore;
  codes: QueryDistance | null;
}
const readers = new Map<number, Reader>();
let keys = new Float64Array(64);
let slots = new Int32Array(64);

/** The reader of a graph, made anew when a layout comes along (its codes' reader then too). */
function readerOf(graph: number, layout: GraphLayout | undefined): Reader {
  if (layout) {
    const store = new PointStore(layout.store.dim, 0, layout.store.segmentSlots, { layout: layout.store, slot: readerSlot });
    const reader = { index: HnswIndex.reader(new VectorSpace(store, layout.metric), layout, holding), store, codes: null };
    const replaced = readers.has(graph);
    readers.set(graph, reader);
    // The old reader's arrays are shared: most grew in place and are the new one's too, but one
    // that was copied (hnsw-sharing.md rule 1), as large as the graph, stays alive through this
    // thread's reference until it collects, which, allocating little, it would not do for a long
    // time. Layouts are replaced a few dozen times a load.
    if (replaced) collectGarbage();
    return reader;
  }
  const reader = readers.get(graph);
  if (!reader) throw new Error(`graph ${graph} was never sent to this worker`);
  return reader;
}

function codesOf(reader: Reader, layout: QuantizedLayout | undefined): QueryDistance {
  if (layout) reader.codes = quantizedReader(reader.store, layout, readerSlot);
  if (!reader.codes) throw new Error('the quantized codes of this graph were never sent to this worker');
  return reader.codes;
}

function walk(m: Walk): Int32Array<ArrayBuffer> {
  const reader = readerOf(m.graph, m.layout);
  const codes = m.quantized ? codesOf(reader, m.codes) : null;
  if (keys.length < m.k) {
    keys = new Float64Array(m.k);
    slots = new Int32Array(m.k);
  }
  const allow = m.allow;
  const admit = allow ? (slot: number) => (allow[slot >>> 5]! & (1 << (slot & 31))) !== 0 : null;
  const n = reader.index.search(m.query, m.k, m.ef, admit, keys, slots, codes);
  return slots.slice(0, n);
}

const failure = (id: number, err: unknown): WorkerAnswer => ({ id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });

function handle(m: WorkerRequest): void {
  if (m.type === 'forget') {
    // The graph's arrays may be large and let go of by every other thread: free them now.
    if (readers.delete(m.graph)) collectGarbage();
    return;
  }
  if (m.type === 'link') {
    let answer: WorkerAnswer = { id: m.id, linked: true, inPlace: m.alone };
    try {
      const { index } = readerOf(m.graph, m.layout);
      index.othersWrite = !m.alone;
      try {
        for (const slot of m.slots) {
          index.linkPrepared(slot);
          takeLoneWalks();
        }
      } finally {
        index.othersWrite = true;
      }
    } catch (err) {
      answer = failure(m.id, err);
    }
    port.postMessage([answer]);
    return;
  }
  if (m.type === 'walk') {
    const { answers, moved } = walkAll([m.walk], null);
    port.postMessage(answers, moved);
    return;
  }
  let unready: unknown = null;
  try {
    for (const g of m.graphs) {
      const reader = readerOf(g.graph, g.layout);
      if (g.codes) codesOf(reader, g.codes);
    }
  } catch (err) {
    unready = err;
  }
  const { answers, moved } = walkAll(m.walks, m.claims, unready);
  // Even having taken none: the pool counts each worker of a shared request out (search-pool.ts).
  answers.push({ id: m.id, drained: true });
  port.postMessage(answers, moved);
}

/** Walks each walk (with `claims`, each this worker takes first): the slots found, or what failed. */
function walkAll(walks: Walk[], claims: Int32Array | null, unready: unknown = null): { answers: WorkerAnswer[]; moved: ArrayBuffer[] } {
  const answers: WorkerAnswer[] = [];
  const moved: ArrayBuffer[] = [];
  for (let i = 0; i < walks.length; i++) {
    if (claims) takeLoneWalks();
    if (claims && Atomics.compareExchange(claims, i, 0, readerSlot) !== 0) continue;
    const w = walks[i]!;
    try {
      if (unready) throw unready;
      const found = walk(w);
      answers.push({ id: w.id, slots: found });
      moved.push(found.buffer);
    } catch (err) {
      answers.push(failure(w.id, err));
    }
  }
  return { answers, moved };
}

/**
 * Requests read while a long one was handled (a shared request's walks, a batch to link) that
 * could not go ahead of it: handled after it, in the order they came.
 */
const deferred: WorkerRequest[] = [];

const nextRequest = (): WorkerRequest | undefined => deferred.shift() ?? (receiveMessageOnPort(port)?.message as WorkerRequest | undefined);

/**
 * Called between two walks of a shared request and between two nodes of a batch to link: a lone
 * walk sent since (another request's search) is walked now, not after the whole of a large batch
 * search or link batch, so that one large request does not hold up every other search for as
 * long as it runs. Only a walk that needs no new layout or codes goes ahead, and only while
 * nothing read before it waits: the worker's readers are then the ones the pool knows it holds.
 * Any other request waits, in order, for the long one to end (a new layout, a forget, another
 * shared request or link batch, and every request read after one of them).
 */
function takeLoneWalks(): void {
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
    const request = m.message as WorkerRequest;
    if (deferred.length === 0 && request.type === 'walk' && walksNow(request.walk)) handle(request);
    else deferred.push(request);
  }
}

function walksNow(w: Walk): boolean {
  const reader = readers.get(w.graph);
  return reader !== undefined && w.layout === undefined && w.codes === undefined && (!w.quantized || reader.codes !== null);
}

for (;;) {
  const rung = Atomics.load(doorbell, 0);
  for (let m = nextRequest(); m; m = nextRequest()) handle(m);
  for (let i = 0; i < SPINS && Atomics.load(doorbell, 0) === rung; i++);
  Atomics.wait(doorbell, 0, rung);
}
