import { ByteWriter } from '../codec/byte-writer.js';
import { crc32 } from '../codec/crc32.js';
import { nextTurn } from '../codec/slices.js';
import type { Collection } from '../collection.js';
import { writeConfig, writeEdge, writeFieldIndexes, writePoint } from '../events/codec.js';
import type { MultiVector, PointId, PointRecord, SparseVector } from '../events/types.js';
import { BLOCK, BLOCK_HEADER, block, preamble } from './format.js';

const POINTS_PER_BLOCK = 1000;
const EDGES_PER_BLOCK = 10_000;
/** Points, or edges, encoded between two chances to let other work in (a fraction of a millisecond's work). */
const RECORDS_PER_PIECE = 100;
/** How long an export's stream encodes before the event loop gets a turn. */
const STREAM_SLICE_MS = 1;

export interface CollectionExport {
  pointCount: number;
  edgeCount: number;
  dimension: number;
  /** The file, a block at a time, encoded as it is read; reading it to the end releases the pin. */
  chunks(): Generator<Uint8Array>;
  /**
   * The same blocks, encoded a slice at a time, awaiting `pause` between slices (by default a
   * turn of the event loop; the server's engine rests longer while requests come in), so a large
   * export shares the thread with requests; the end releases the pin.
   */
  stream(pause?: () => Promise<void>): AsyncGenerator<Uint8Array>;
  /** Releases the pin (idempotent): call it when the reader goes away early. */
  release(): void;
}

/**
 * Each point's sparse vectors or multivectors by name at capture (vectors are replaced, never
 * changed in place; a multivector's matrix is a view of floats that never change); null when it has none.
 */
function atCapture<V>(fields: ReadonlyMap<string, { get(id: PointId): V | null }>, ids: (slot: number) => PointId, slots: Int32Array): (Record<string, V> | null)[] | null {
  if (fields.size === 0) return null;
  return Array.from(slots, (slot) => {
    let out: Record<string, V> | null = null;
    for (const [name, field] of fields) {
      const v = field.get(ids(slot));
      if (v) (out ??= {})[name] = v;
    }
    return out;
  });
}

/**
 * Encodes one block's records through a writer with room for the block's header at its front,
 * yielding after every RECORDS_PER_PIECE of them (a pause: nothing to send yet), then the framed
 * block: the same bytes as format.ts's block(), without copying the payload again.
 */
function* framed(type: number, count: number, sizeHint: number, each: (w: ByteWriter, k: number) => void): Generator<Uint8Array | null> {
  const w = new ByteWriter(BLOCK_HEADER + sizeHint).u8(type).u32(0).u32(0).u32(count);
  for (let k = 0; k < count; k++) {
    each(w, k);
    if ((k + 1) % RECORDS_PER_PIECE === 0) yield null;
  }
  const bytes = w.finish();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view.setUint32(1, bytes.length - BLOCK_HEADER, true);
  view.setUint32(5, crc32(bytes, BLOCK_HEADER), true);
  yield bytes;
}

/**
 * A point-in-time export that streams: at the start it notes each live point's slot, payload and
 * labels (payloads and labels are replaced, never changed in place) and copies the edge columns,
 * and pins the collection so no slot is reused until the export ends; vectors are then read
 * from their slots a block at a time, so memory does not grow with the file. `operationId` is the
 * exporting database's newest (0: none to give) and `logHead` its log's head hash (hex, '' when
 * none), both written in the header: the hash names the history the file was taken from.
 * See storage/snapshot/sliced-encoding.md for why what is read later is the state at the start.
 */
export function exportCollection(c: Collection, operationId = 0, logHead = ''): CollectionExport {
  const { store } = c;
  const slots = store.sortedSlots();
  const payloads = store.payloads.slice(0, store.slotCount);
  const labels = store.labels.slice(0, store.slotCount);
  const named = [...c.named.values()];
  // Each named vector's slot per point (-1: none); pinned like the collection's own slots.
  const namedSlots = named.map((field) => Int32Array.from(slots, (slot) => field.store.slotOf(store.idOf(slot))));
  const sparse = atCapture<SparseVector>(c.sparse, (slot) => store.idOf(slot), slots);
  const multi = atCapture<MultiVector>(c.multi, (slot) => store.idOf(slot), slots);
  const edges = c.graph.captureEdges();
  const indexes = Object.fromEntries(c.fieldIndexes);
  const settings = JSON.stringify(c.settings);
  const { name, config } = c;
  c.pin();
  let pinned = true;
  const release = (): void => {
    if (pinned) c.unpin();
    pinned = false;
  };
  const writeRecord = (w: ByteWriter, i: number): void => {
    const slot = slots[i]!;
    const record: PointRecord = { id: store.idOf(slot), vector: store.hasVector[slot] ? store.vectorOf(slot) : null, payload: payloads[slot]!, labels: [...labels[slot]!] };
    named.forEach((field, k) => {
      const own = namedSlots[k]![i]!;
      if (own >= 0) (record.named ??= {})[field.name] = field.store.vectorOf(own);
    });
    const own = sparse?.[i];
    if (own) record.sparse = own;
    const matrices = multi?.[i];
    if (matrices) record.multi = matrices;
    writePoint(w, record);
  };
  /** The file's blocks, with a null between pieces of work where a reader may pause. */
  function* pieces(): Generator<Uint8Array | null> {
    try {
      yield preamble();
      const header = new ByteWriter(128).str(name);
      writeConfig(header, config);
      yield block(BLOCK.header, header.f64(slots.length).f64(edges.count).f64(operationId).str(settings).str(logHead).finish());
      const declared = new ByteWriter(64);
      writeFieldIndexes(declared, indexes);
      yield block(BLOCK.indexes, declared.finish());
      let blocks = 2;
      for (let i = 0; i < slots.length; i += POINTS_PER_BLOCK) {
        const count = Math.min(POINTS_PER_BLOCK, slots.length - i);
        yield* framed(BLOCK.points, count, 64 + count * (store.dim * 4 + 64), (w, k) => writeRecord(w, i + k));
        blocks++;
      }
      for (let i = 0; i < edges.count; i += EDGES_PER_BLOCK) {
        const count = Math.min(EDGES_PER_BLOCK, edges.count - i);
        yield* framed(BLOCK.edges, count, 64 + count * 40, (w, k) => writeEdge(w, edges.edge(i + k)));
        blocks++;
      }
      yield block(BLOCK.trailer, new ByteWriter(24).f64(slots.length).f64(edges.count).u32(blocks).finish());
    } finally {
      release();
    }
  }
  return {
    release,
    pointCount: slots.length,
    edgeCount: edges.count,
    dimension: config.size,
    *chunks() {
      for (const piece of pieces()) if (piece) yield piece;
    },
    async *stream(pause = nextTurn) {
      let deadline = performance.now() + STREAM_SLICE_MS;
      for (const piece of pieces()) {
        if (piece) yield piece;
        if (performance.now() < deadline) continue;
        await pause();
        deadline = performance.now() + STREAM_SLICE_MS;
      }
    },
  };
}
