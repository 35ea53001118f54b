import { checkPointId } from '../../storage/engine/validate-event.js';
import { badRequest } from '../../storage/errors.js';
import type { PointId, PointRecord } from '../../storage/events/types.js';
import type { Filter } from '../filter/types.js';
import { parseOptionalFilter } from '../filter/parse-filter.js';
import { checkBody, fieldName, type FieldNamer } from './check-body.js';
import { UPSERT_POINTS_A_STEP } from '../../storage/codec/slices.js';
import { bodyObject, isObject, type JsonObject } from './fields.js';
import { outputOptions, type OutputOptions } from './output-options.js';
import { pointVectorsFrom } from './vector-input.js';
import { parseUniversalQuery, type UniversalQuery } from './universal-body.js';
import { countBody, deleteBody, retrieveBody, scrollBody, upsertBatchBody, upsertPointsBody, upsertPointsHead } from './schemas/points.js';

/** Names a part of an upserted point after the point, as `point 7: vector[2]`, once its id is known to be good. */
function upsertNamer(points: unknown): FieldNamer {
  return (path) => {
    if (path[0] !== 'points' || typeof path[1] !== 'number' || path.length < 3 || path[2] === 'id' || !Array.isArray(points)) return fieldName(path);
    const id = isObject(points[path[1]]) ? (points[path[1]] as { id?: unknown }).id : undefined;
    try {
      checkPointId(id);
    } catch {
      return fieldName(path);
    }
    return `point ${id}: ${fieldName(path.slice(2))}`;
  };
}

/** Upsert body: `points: [{id, vector, payload?, labels?}]`, or Qdrant's columnar `batch: {ids, vectors, payloads?}`. */
export function parseUpsertBody(body: unknown): PointRecord[] {
  const obj = bodyObject(body);
  if (obj.batch !== undefined) {
    const { ids, vectors, payloads } = checkBody(upsertBatchBody, obj).batch;
    const columns = Array.isArray(vectors) ? { '': vectors } : vectors;
    for (const [name, column] of Object.entries(columns)) {
      if (column.length !== ids.length) throw badRequest(`batch.ids and batch.vectors${name === '' ? '' : `.${name}`} must be non-empty arrays of the same length`);
    }
    if (payloads && payloads.length !== ids.length) throw badRequest('batch.payloads must be an array as long as batch.ids');
    return ids.map((id, i) => ({ id, ...pointVectorsFrom(Object.fromEntries(Object.entries(columns).map(([name, column]) => [name, column[i]!]))), payload: payloads?.[i] ?? {}, labels: [] }));
  }
  if (obj.points === undefined) throw badRequest('points must be a non-empty array of {id, vector, payload} (or send Qdrant\'s batch: {ids, vectors, payloads})');
  return checkedPoints(obj, upsertNamer(obj.points));
}

function checkedPoints(body: JsonObject, name: FieldNamer): PointRecord[] {
  return checkBody(upsertPointsBody, body, name).points.map((p) => ({
    id: p.id,
    ...pointVectorsFrom(p.vector),
    payload: p.payload ?? {},
    labels: p.labels ?? [],
  }));
}

/**
 * parseUpsertBody for the request thread, where a large upsert's checks (about 6 µs a point)
 * would hold up every other request: a list of points is checked UPSERT_POINTS_A_STEP at a time,
 * `pause` awaited each time `sliceMs` has passed. The answer, and the 400 of a bad body, are
 * parseUpsertBody's: each part of the list is checked as the whole would be, errors named by
 * their place in the whole, and its other fields after the points (as the whole body's check
 * names a point's problem before an unknown field).
 */
export async function parseUpsertBodyInSlices(body: unknown, sliceMs: number, pause: () => Promise<void>): Promise<PointRecord[]> {
  const obj = bodyObject(body);
  const points = obj.points;
  if (obj.batch !== undefined || !Array.isArray(points) || points.length <= UPSERT_POINTS_A_STEP) return parseUpsertBody(body);
  const name = upsertNamer(points);
  const records: PointRecord[] = [];
  let deadline = performance.now() + sliceMs;
  for (let from = 0; from < points.length; from += UPSERT_POINTS_A_STEP) {
    const shifted: FieldNamer = (path) => name(typeof path[1] === 'number' ? [path[0]!, path[1] + from, ...path.slice(2)] : path);
    for (const p of checkedPoints({ points: points.slice(from, from + UPSERT_POINTS_A_STEP) }, shifted)) records.push(p);
    if (performance.now() < deadline) continue;
    await pause();
    deadline = performance.now() + sliceMs;
  }
  // The fields around the list, the list (checked above) stood in for by one entry so as not to walk it again.
  checkBody(upsertPointsHead, { ...obj, points: [null] });
  return records;
}

export interface RetrieveRequest extends OutputOptions {
  ids: PointId[];
}

export function parseRetrieveBody(body: unknown): RetrieveRequest {
  const checked = checkBody(retrieveBody, bodyObject(body));
  return { ids: checked.ids, ...outputOptions(checked) };
}

/** Delete Points: the ids listed, or the points a filter matches. */
export function parseDeleteBody(body: unknown): { ids: PointId[] } | { filter: Filter } {
  const { points, filter } = checkBody(deleteBody, bodyObject(body));
  if (points && filter) throw badRequest('send points (an array of ids) or filter, not both');
  if (points) return { ids: points };
  if (filter) return { filter: parseOptionalFilter(filter)! };
  throw badRequest('points (an array of ids) or filter is required');
}

export interface ScrollRequest extends OutputOptions {
  limit: number;
  offset: PointId;
  filter: Filter | null;
  /** Set when the points come in the order of a payload value instead of by id. */
  orderBy: UniversalQuery | null;
}

export function parseScrollBody(body: unknown): ScrollRequest {
  const checked = checkBody(scrollBody, bodyObject(body));
  const base = { limit: checked.limit ?? 10, offset: checked.offset ?? 0, filter: parseOptionalFilter(checked.filter), ...outputOptions(checked) };
  if (checked.order_by === undefined || checked.order_by === null) return { ...base, orderBy: null };
  if (checked.offset !== undefined && checked.offset !== null) throw badRequest('offset pages by id; with order_by, use order_by.start_from');
  const orderBy = parseUniversalQuery({ query: { order_by: checked.order_by }, filter: checked.filter, limit: base.limit, with_payload: checked.with_payload, with_vector: checked.with_vector });
  return { ...base, orderBy };
}

export const parseCountBody = (body: unknown): Filter | null => parseOptionalFilter(checkBody(countBody, bodyObject(body)).filter);
