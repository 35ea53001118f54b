import { ByteWriter } from '../codec/byte-writer.js';
import type { Collection } from '../collection.js';
import { writeConfig, writeEdge, writeFieldIndexes, writePoint } from '../events/codec.js';
import type { EdgeRecord, Payload, PointId, PointRecord, SparseVector } from '../events/types.js';
import { BLOCK, block, preamble } from './format.js';

const POINTS_PER_BLOCK = 1000;
const EDGES_PER_BLOCK = 10_000;

interface PinnedPoint {
  id: PointId;
  slot: number;
  payload: Payload;
  labels: readonly string[];
  /** Its sparse vectors (never changed in place, so kept as they are at the start). */
  sparse: Record<string, SparseVector> | undefined;
}

export interface CollectionExport {
  pointCount: number;
  edgeCount: number;
  dimension: number;
  /** The file, a block at a time; reading it to the end releases the pin. */
  chunks(): Generator<Uint8Array>;
  /** Releases the pin (idempotent): call it when the reader goes away early. */
  release(): void;
}

/** A point's sparse vectors, or undefined when it has none. */
function sparseOf(c: Collection, id: PointId): Record<string, SparseVector> | undefined {
  let out: Record<string, SparseVector> | undefined;
  for (const [name, field] of c.sparse) {
    const v = field.get(id);
    if (v) (out ??= {})[name] = v;
  }
  return out;
}

/**
 * A point-in-time export that streams: at the start it notes each live point's slot, payload and
 * labels (payloads and labels are replaced, never changed in place) and copies the edge list,
 * and pins the collection so no slot is reused until the export ends; vectors are then read
 * from their slots a block at a time, so memory does not grow with the file. `operationId` is the
 * exporting database's newest (0: none to give) and `logHead` its log's head hash (hex, '' when
 * none), both written in the header: the hash names the history the file was taken from.
 */
export function exportCollection(c: Collection, operationId = 0, logHead = ''): CollectionExport {
  const { store } = c;
  const points: PinnedPoint[] = [];
  const named = [...c.named.values()];
  // Each named vector's slot per point (-1: none); pinned like the collection's own slots.
  const namedSlots = named.map(() => new Int32Array(store.liveCount));
  for (const slot of store.sortedSlots()) {
    const id = store.idOf(slot);
    named.forEach((field, k) => (namedSlots[k]![points.length] = field.store.slotOf(id)));
    points.push({ id, slot, payload: store.payloads[slot]!, labels: store.labels[slot]!, sparse: sparseOf(c, id) });
  }
  const edges: EdgeRecord[] = c.graph.allEdges();
  const indexes = Object.fromEntries(c.fieldIndexes);
  const settings = JSON.stringify(c.settings);
  c.pin();
  let pinned = true;
  const release = (): void => {
    if (pinned) c.unpin();
    pinned = false;
  };
  return {
    release,
    pointCount: points.length,
    edgeCount: edges.length,
    dimension: c.config.size,
    *chunks() {
      try {
        yield preamble();
        const header = new ByteWriter(128).str(c.name);
        writeConfig(header, c.config);
        yield block(BLOCK.header, header.f64(points.length).f64(edges.length).f64(operationId).str(settings).str(logHead).finish());
        const declared = new ByteWriter(64);
        writeFieldIndexes(declared, indexes);
        yield block(BLOCK.indexes, declared.finish());
        let blocks = 2;
        for (let i = 0; i < points.length; i += POINTS_PER_BLOCK) {
          const part = points.slice(i, i + POINTS_PER_BLOCK);
          const w = new ByteWriter(64 + part.length * (store.dim * 4 + 64)).u32(part.length);
          part.forEach((p, j) => {
            const record: PointRecord = { id: p.id, vector: store.hasVector[p.slot] ? store.vectorOf(p.slot) : null, payload: p.payload, labels: [...p.labels] };
            named.forEach((field, k) => {
              const own = namedSlots[k]![i + j]!;
              if (own >= 0) (record.named ??= {})[field.name] = field.store.vectorOf(own);
            });
            if (p.sparse) record.sparse = p.sparse;
            writePoint(w, record);
          });
          yield block(BLOCK.points, w.finish());
          blocks++;
        }
        for (let i = 0; i < edges.length; i += EDGES_PER_BLOCK) {
          const part = edges.slice(i, i + EDGES_PER_BLOCK);
          const w = new ByteWriter(64 + part.length * 40).u32(part.length);
          for (const e of part) writeEdge(w, e);
          yield block(BLOCK.edges, w.finish());
          blocks++;
        }
        yield block(BLOCK.trailer, new ByteWriter(24).f64(points.length).f64(edges.length).u32(blocks).finish());
      } finally {
        release();
      }
    },
  };
}
