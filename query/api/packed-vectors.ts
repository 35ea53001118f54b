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

/** A place that holds a vector: a field of an object, or an element of a list. */
type Spot = [holder: Record<string, unknown> | unknown[], key: string | number];

/**
 * Packs the vectors of `body` in place, all into one buffer (each vector a view of it: one
 * buffer to transfer and to take back, not one per vector); answers that buffer, to be
 * transferred with the body, or none.
 */
export function packVectors(body: unknown): ArrayBuffer[] {
  const spots: Spot[] = [];
  let total = 0;
  forEachSpot(body, (holder, key) => {
    const n = numbersIn((holder as Record<string | number, unknown>)[key]);
    if (n === 0) return;
    spots.push([holder, key]);
    total += n;
  });
  if (spots.length === 0) return [];
  const arena = new Float64Array(total);
  let at = 0;
  for (const [holder, key] of spots) {
    const values = (holder as Record<string | number, unknown>)[key] as number[];
    const vector = arena.subarray(at, (at += values.length));
    for (let i = 0; i < values.length; i++) vector[i] = values[i]!;
    (holder as Record<string | number, unknown>)[key] = vector;
  }
  return [arena.buffer];
}

/** Calls `visit` with each place of `body` that may hold a vector (see above). */
function forEachSpot(body: unknown, visit: (...spot: Spot) => void): void {
  if (!isRecord(body)) return;
  pointSpots(body, visit);
  const operations = body.operations;
  if (Array.isArray(operations)) {
    for (const op of operations) {
      if (!isRecord(op)) continue;
      if (isRecord(op.upsert)) pointSpots(op.upsert, visit);
      if (isRecord(op.update_vectors)) pointSpots(op.update_vectors, visit);
    }
  }
  const searches = body.searches;
  if (Array.isArray(searches)) {
    for (const search of searches) {
      if (!isRecord(search)) continue;
      field(search, 'vector', visit);
      if (isRecord(search.vector)) field(search.vector, 'vector', visit);
      field(search, 'query', visit);
    }
  }
}

/** `points[i].vector` (one vector or a map of names) and `batch.vectors` (a list, or a map of names to lists). */
function pointSpots(holder: Record<string, unknown>, visit: (...spot: Spot) => void): void {
  const points = holder.points;
  if (Array.isArray(points)) {
    for (const point of points) {
      if (!isRecord(point)) continue;
      field(point, 'vector', visit);
      if (isRecord(point.vector)) for (const name of Object.keys(point.vector)) field(point.vector, name, visit);
    }
  }
  const batch = holder.batch;
  if (!isRecord(batch)) return;
  const vectors = batch.vectors;
  if (Array.isArray(vectors)) elements(vectors, visit);
  else if (isRecord(vectors)) for (const list of Object.values(vectors)) if (Array.isArray(list)) elements(list, visit);
}

function elements(list: unknown[], visit: (...spot: Spot) => void): void {
  for (let i = 0; i < list.length; i++) visit(list, i);
}

/** holder[key], when present (a key absent stays absent: the bodies' checks refuse fields they do not know). */
function field(holder: Record<string, unknown>, key: string, visit: (...spot: Spot) => void): void {
  if (Object.hasOwn(holder, key)) visit(holder, key);
}

/** The length of a non-empty array of numbers alone; 0 for anything else (left as sent). */
function numbersIn(value: unknown): number {
  if (!Array.isArray(value)) return 0;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'number') return 0;
  return value.length;
}

/** A JSON object (a vector packed already is not one). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !ArrayBuffer.isView(value);
}
