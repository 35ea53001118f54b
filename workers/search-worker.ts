import { parentPort, workerData } from 'node:worker_threads';
import { HnswIndex, type GraphLayout } from '../storage/views/hnsw.js';
import { PointStore } from '../storage/views/point-store.js';
import { VectorSpace } from '../storage/views/vector-space.js';
import type { Walk, WalkAnswer, WorkerRequest } from './walk-messages.js';

/**
 * A search worker: walks HNSW graphs that the main thread writes, reading their shared arrays
 * through readers made from each graph's layout (hnsw-sharing.md), in its own query area.
 */
const { readerSlot } = workerData as { readerSlot: number };
const port = parentPort!;
const readers = new Map<number, HnswIndex>();
let keys = new Float64Array(64);
let slots = new Int32Array(64);

function attach(layout: GraphLayout): HnswIndex {
  const store = new PointStore(layout.store.dim, 0, undefined, { layout: layout.store, slot: readerSlot });
  return HnswIndex.reader(new VectorSpace(store, layout.metric), layout);
}

function walk(m: Walk): Int32Array<ArrayBuffer> {
  let reader = readers.get(m.graph);
  if (m.layout) {
    reader = attach(m.layout);
    readers.set(m.graph, reader);
  }
  if (!reader) throw new Error(`graph ${m.graph} was never sent to this worker`);
  if (keys.length < m.k) {
    keys = new Float64Array(m.k);
    slots = new Int32Array(m.k);
  }
  const n = reader.search(m.query, m.k, m.ef, null, keys, slots, null);
  return slots.slice(0, n);
}

port.on('message', (m: WorkerRequest) => {
  if (m.type === 'forget') {
    readers.delete(m.graph);
    return;
  }
  const answers: WalkAnswer[] = [];
  const moved: ArrayBuffer[] = [];
  for (const w of m.walks) {
    try {
      const found = walk(w);
      answers.push({ id: w.id, slots: found });
      moved.push(found.buffer);
    } catch (err) {
      answers.push({ id: w.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  }
  port.postMessage(answers, moved);
});
