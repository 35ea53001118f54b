import type { DbEvent, PointId, PointRecord } from '../../storage/events/types.js';
import type { LogEntry } from '../../storage/log/event-log.js';
import { importItems } from '../../storage/engine/import-chunks.js';

/** Typed arrays (vectors, sparse indices) as JSON arrays; everything else as JSON has it. */
const plain = (_key: string, value: unknown): unknown => (value instanceof Float32Array || value instanceof Uint32Array ? Array.from(value) : value);

/** The collection an entry changes: `collection`, or `name` for the collection-level events; null for none. */
export function collectionOf(event: DbEvent): string | null {
  const e = event as unknown as { collection?: unknown; name?: unknown };
  if (typeof e.collection === 'string') return e.collection;
  return typeof e.name === 'string' ? e.name : null;
}

/** The point ids an entry names (for a Cypher write: the nodes it creates, changes or deletes). */
export function idsOf(event: DbEvent): PointId[] {
  switch (event.type) {
    case 'upsert_points':
      return event.points.map((p) => p.id);
    case 'import_collection':
      return [...importItems(event, 'points')].flatMap((points) => points.map((p) => p.id));
    case 'delete_points':
      return event.ids;
    case 'upsert_edge':
      return event.from === event.to ? [event.from] : [event.from, event.to];
    case 'graph_write':
      return event.changes.flatMap((c) => (c.kind === 'create_node' || c.kind === 'update_node' ? [c.point.id] : c.kind === 'set_node' || c.kind === 'delete_node' ? [c.id] : []));
    case 'update_points':
      return [...new Set(event.updates.flatMap((u) => ('points' in u ? u.points.map((p) => p.id) : u.ids)))];
    default:
      return [];
  }
}

function pointJson(p: PointRecord): string {
  return JSON.stringify({ id: p.id, vector: p.vector, payload: p.payload, labels: p.labels, named: p.named, sparse: p.sparse, multi: p.multi }, plain);
}

/** A list written a piece at a time (one per slice of items): "[", items joined by commas, "]". */
function* listPieces<T>(slices: Iterable<readonly T[]>, write: (item: T) => string): Generator<string> {
  yield '[';
  let first = true;
  for (const items of slices) {
    if (items.length === 0) continue;
    yield (first ? '' : ',') + items.map(write).join(',');
    first = false;
  }
  yield ']';
}

/**
 * One log entry as one line of JSON, in pieces: {operation_id, collection, kind, ids, data},
 * where data holds the event's own fields (vectors as arrays). An import's points and edges go
 * out a thousand at a time, so memory does not grow with the file.
 */
export function* changePieces({ opId, event }: LogEntry): Generator<string> {
  const { type, ...fields } = event;
  const data = fields as Record<string, unknown>;
  delete data.collection;
  if (type !== 'import_collection') delete data.name;
  const head = `{"operation_id":${opId},"collection":${JSON.stringify(collectionOf(event))},"kind":${JSON.stringify(type)},"ids":`;
  if (event.type !== 'import_collection') {
    yield `${head}${JSON.stringify(idsOf(event))},"data":${JSON.stringify(data, plain)}}`;
    return;
  }
  // Three passes over a streamed import's blocks: held open for all of them, so a snapshot that drops the entry meanwhile does not cut the line short.
  const held = event.staged?.open?.();
  const source = held ? { ...event, staged: { ...event.staged!, read: () => held.read() } } : event;
  try {
    yield head;
    yield* listPieces(importItems(source, 'points'), (p) => JSON.stringify(p.id));
    yield `,"data":{"mode":${JSON.stringify(event.mode)},"config":${JSON.stringify(event.config)},"points":`;
    yield* listPieces(importItems(source, 'points'), pointJson);
    yield ',"edges":';
    yield* listPieces(importItems(source, 'edges'), (e) => JSON.stringify(e));
    yield `,"indexes":${JSON.stringify(event.indexes ?? {})},"settings":${JSON.stringify(event.settings ?? {})},"exportedAt":${event.exportedAt ?? 0}}}`;
  } finally {
    held?.close();
  }
}
