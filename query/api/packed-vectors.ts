import { isObject } from './fields.js';

/**
 * A large body parsed off the request thread comes back by structured clone, which rebuilds an
 * array of numbers element by element on the request thread, and then the check, the
 * conversion to float32 and the garbage collector all walk it again. So the vectors of the bodies
 * that carry many (upserts, vector updates, batches of updates, batch searches and queries) are
 * packed into Float64Arrays where they are parsed: lossless (a JSON number is a double), copied
 * whole, and accepted as they are by the checks and parsers that take vectors, which read typed
 * arrays as the browser library passes them.
 *
 * Only the places those bodies hold vectors are packed, never a payload (whose arrays must stay
 * arrays), and only arrays of numbers alone: anything else stays as sent, for the checks to name.
 * The places, from the body's root:
 * - `points[i].vector` and each `points[i].vector[name]` (upsert, update vectors);
 * - `batch.vectors[j]` and each `batch.vectors[name][j]` (upsert in columns);
 * - the same under `operations[i].upsert` and `operations[i].update_vectors` (batch of updates);
 * - `searches[i].vector`, `searches[i].vector.vector` and `searches[i].query` (batch search, batch query).
 */

/** Packs the vectors of `body` in place; answers the buffers made, to be transferred with it. */
export function packVectors(body: unknown): ArrayBuffer[] {
  const made: ArrayBuffer[] = [];
  if (!isRecord(body)) return made;
  packPoints(body, made);
  const operations = body.operations;
  if (Array.isArray(operations)) {
    for (const op of operations) {
      if (!isRecord(op)) continue;
      if (isRecord(op.upsert)) packPoints(op.upsert, made);
      if (isRecord(op.update_vectors)) packPoints(op.update_vectors, made);
    }
  }
  const searches = body.searches;
  if (Array.isArray(searches)) {
    for (const search of searches) {
      if (!isRecord(search)) continue;
      pack(search, 'vector', made);
      if (isRecord(search.vector)) pack(search.vector, 'vector', made);
      pack(search, 'query', made);
    }
  }
  return made;
}

/** `points[i].vector` (one vector or a map of names) and `batch.vectors` (a list, or a map of names to lists). */
function packPoints(holder: Record<string, unknown>, made: ArrayBuffer[]): void {
  const points = holder.points;
  if (Array.isArray(points)) {
    for (const point of points) {
      if (!isRecord(point)) continue;
      pack(point, 'vector', made);
      if (isRecord(point.vector)) for (const name of Object.keys(point.vector)) pack(point.vector, name, made);
    }
  }
  const batch = holder.batch;
  if (!isRecord(batch)) return;
  const vectors = batch.vectors;
  if (Array.isArray(vectors)) packList(vectors, made);
  else if (isRecord(vectors)) for (const list of Object.values(vectors)) if (Array.isArray(list)) packList(list, made);
}

function packList(list: unknown[], made: ArrayBuffer[]): void {
  for (let i = 0; i < list.length; i++) {
    const out = packed(list[i]);
    if (out) list[i] = adopt(out, made);
  }
}

/** Packs holder[key] when it is a vector (a key absent stays absent: the bodies' checks refuse fields they do not know). */
function pack(holder: Record<string, unknown>, key: string, made: ArrayBuffer[]): void {
  if (!Object.hasOwn(holder, key)) return;
  const out = packed(holder[key]);
  if (out) holder[key] = adopt(out, made);
}

function adopt(out: Float64Array, made: ArrayBuffer[]): Float64Array {
  made.push(out.buffer as ArrayBuffer);
  return out;
}

/** A non-empty array of numbers as a Float64Array of the same values; null for anything else. */
function packed(value: unknown): Float64Array | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const out = new Float64Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const x: unknown = value[i];
    if (typeof x !== 'number') return null;
    out[i] = x;
  }
  return out;
}

/** A JSON object (a vector packed already is not one). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !ArrayBuffer.isView(value);
}
