import { ByteWriter } from '../codec/byte-writer.js';
import type { Collection } from '../collection.js';
import { writeConfig, writeEdge, writeFieldIndexes, writePoint } from '../events/codec.js';
import type { EdgeRecord, Payload, PointId } from '../events/types.js';
import { BLOCK, block, preamble } from './format.js';

const POINTS_PER_BLOCK = 1000;
const EDGES_PER_BLOCK = 10_000;

interface PinnedPoint {
  id: PointId;
  slot: number;
  payload: Payload;
  labels: readonly string[];
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
  for (const slot of store.sortedSlots()) {
    points.push({ id: store.idOf(slot), slot, payload: store.payloads[slot]!, labels: store.labels[slot]! });
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
          for (const p of part) {
            writePoint(w, { id: p.id, vector: store.hasVector[p.slot] ? store.vectorOf(p.slot) : null, payload: p.payload, labels: [...p.labels] });
          }
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
