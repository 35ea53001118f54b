import { badRequest } from '../../storage/errors.js';
import type { Payload, PointRecord } from '../../storage/events/types.js';
import { parseOptionalFilter } from '../filter/parse-filter.js';
import type { VectorQuery } from '../search/vector-search.js';
import { bodyObject, isObject, optionalInt, optionalNumber, pointIdField, vectorField, type JsonObject } from './fields.js';
import { outputOptions, type OutputOptions } from './output-options.js';

export const MAX_LIMIT = 10_000;
export const MAX_EF = 10_000;
export const DEFAULT_EF = 100;

function payloadField(raw: unknown, where: string): Payload {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) throw badRequest(`${where} must be a JSON object`);
  return raw;
}

function labelsField(raw: unknown, where: string): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || !raw.every((l) => typeof l === 'string' && l.length > 0)) {
    throw badRequest(`${where} must be an array of non-empty strings`);
  }
  return raw as string[];
}


/** Upsert body: `points: [{id, vector, payload?, labels?}]`, or Qdrant's columnar `batch: {ids, vectors, payloads?}`. */
export function parseUpsertBody(body: unknown): PointRecord[] {
  const obj = bodyObject(body);
  if (isObject(obj.batch)) {
    const { ids, vectors, payloads } = obj.batch;
    if (!Array.isArray(ids) || !Array.isArray(vectors) || ids.length !== vectors.length || ids.length === 0) {
      throw badRequest('batch.ids and batch.vectors must be non-empty arrays of the same length');
    }
    if (payloads !== undefined && payloads !== null && (!Array.isArray(payloads) || payloads.length !== ids.length)) {
      throw badRequest('batch.payloads must be an array as long as batch.ids');
    }
    return ids.map((id, i) => ({
      id: pointIdField(id, `batch.ids[${i}]`),
      vector: vectorField(vectors[i], `batch.vectors[${i}]`),
      payload: payloadField(Array.isArray(payloads) ? payloads[i] : undefined, `batch.payloads[${i}]`),
      labels: [],
    }));
  }
  if (!Array.isArray(obj.points) || obj.points.length === 0) throw badRequest('points must be a non-empty array of {id, vector, payload}');
  return obj.points.map((p: unknown, i: number) => {
    if (!isObject(p)) throw badRequest(`points[${i}] must be an object {id, vector, payload}`);
    const id = pointIdField(p.id, `points[${i}].id`);
    return {
      id,
      vector: vectorField(p.vector, `point ${id}: vector`),
      payload: payloadField(p.payload, `point ${id}: payload`),
      labels: labelsField(p.labels, `point ${id}: labels`),
    };
  });
}

export function parseIdList(raw: unknown, where: string): number[] {
  if (!Array.isArray(raw)) throw badRequest(`${where} must be an array of point ids`);
  return raw.map((id, i) => pointIdField(id, `${where}[${i}]`));
}

export interface SearchRequest extends VectorQuery, OutputOptions {}

/**
 * A search body. `vectorKey` is `query` for Vector Search and `vector` for Qdrant's search and
 * batch entries; `ef` may come as `ef`, `params.ef` or Qdrant's `params.hnsw_ef`.
 */
export function parseSearchBody(raw: unknown, vectorKey: 'query' | 'vector', within = ''): SearchRequest {
  const obj: JsonObject = within ? (isObject(raw) ? raw : badRequestOf(`${within} must be an object`)) : bodyObject(raw);
  const where = within ? `${within}.` : '';
  let vectorRaw = obj[vectorKey];
  if (isObject(vectorRaw) && Array.isArray(vectorRaw.nearest)) vectorRaw = vectorRaw.nearest;
  if (vectorRaw === undefined) throw badRequest(`${where}${vectorKey} is required: the query vector as an array of numbers`);
  const params = obj.params;
  if (params !== undefined && params !== null && !isObject(params)) throw badRequest(`${where}params must be an object`);
  const paramEf = isObject(params) ? (params.hnsw_ef ?? params.ef) : undefined;
  const ef = optionalInt({ ef: obj.ef ?? paramEf }, 'ef', DEFAULT_EF, 1, MAX_EF, `${where}ef`);
  return {
    vector: vectorField(vectorRaw, `${where}${vectorKey}`),
    limit: optionalInt(obj, 'limit', 10, 1, MAX_LIMIT, `${where}limit`),
    offset: optionalInt(obj, 'offset', 0, 0, MAX_LIMIT, `${where}offset`),
    ef,
    filter: parseOptionalFilter(obj.filter, `${where}filter`),
    scoreThreshold: optionalNumber(obj, 'score_threshold'),
    ...outputOptions(obj),
  };
}

function badRequestOf(message: string): never {
  throw badRequest(message);
}
