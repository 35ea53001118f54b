import { badRequest } from '../../storage/errors.js';
import type { Direction } from '../../storage/views/graph-store.js';
import { MAX_TRAVERSE_DEPTH } from '../graph/traverse.js';
import { bodyObject, pointIdField, type JsonObject } from './fields.js';

const DIRECTIONS: readonly Direction[] = ['outgoing', 'incoming', 'both'];


/** `from_id`, or its alias `source_id`; naming both with different values is a 400. */
function aliased(obj: JsonObject, name: string, alias: string): number {
  const a = obj[name];
  const b = obj[alias];
  if (a === undefined && b === undefined) throw badRequest(`${name} (or ${alias}) is required`);
  if (a !== undefined && b !== undefined && a !== b) throw badRequest(`${name} and ${alias} name different points; send one of them`);
  return pointIdField(a ?? b, a !== undefined ? name : alias);
}

export interface EdgeRequest {
  from: number;
  to: number;
  relation: string;
  weight: number;
}

export function parseEdgeBody(body: unknown): EdgeRequest {
  const obj = bodyObject(body);
  const from = aliased(obj, 'from_id', 'source_id');
  const to = aliased(obj, 'to_id', 'target_id');
  const { relation, weight } = obj;
  if (typeof relation !== 'string' || relation.length === 0) throw badRequest('relation is required: a non-empty string such as "KNOWS"');
  if (weight !== undefined && weight !== null && (typeof weight !== 'number' || !Number.isFinite(weight))) {
    throw badRequest(`weight must be a finite number, got ${JSON.stringify(weight)}`);
  }
  return { from, to, relation, weight: typeof weight === 'number' ? weight : 1 };
}

/** A point id from a path segment: decimal digits only. */
export function parsePointIdParam(raw: string): number {
  if (!/^\d{1,16}$/.test(raw)) throw badRequest(`invalid point id "${raw.slice(0, 40)}": ids are integers from 0 to ${Number.MAX_SAFE_INTEGER}`);
  return pointIdField(Number(raw), 'point id');
}

export function parseDirection(raw: unknown): Direction {
  if (raw === undefined) return 'outgoing';
  if (typeof raw !== 'string' || !DIRECTIONS.includes(raw as Direction)) throw badRequest(`direction must be one of ${DIRECTIONS.join(', ')}`);
  return raw as Direction;
}

export interface TraverseRequest {
  start: number;
  maxDepth: number;
  relations: Set<string> | null;
}

export function parseTraverseBody(body: unknown): TraverseRequest {
  const obj = bodyObject(body);
  if (obj.start_id === undefined) throw badRequest('start_id is required');
  const start = pointIdField(obj.start_id, 'start_id');
  const depth = obj.max_depth;
  if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 0 || depth > MAX_TRAVERSE_DEPTH) {
    throw badRequest(`max_depth is required: an integer from 0 to ${MAX_TRAVERSE_DEPTH}, got ${JSON.stringify(depth)}`);
  }
  const rel = obj.relations;
  if (rel !== undefined && rel !== null && (!Array.isArray(rel) || !rel.every((r) => typeof r === 'string'))) {
    throw badRequest('relations must be an array of relation names, or null for all');
  }
  return { start, maxDepth: depth, relations: Array.isArray(rel) ? new Set(rel as string[]) : null };
}

export interface GraphQueryRequest {
  query: string;
  parameters: JsonObject;
}

/** `query` and its parameters, under `parameters` or `params` (DECISIONS accepts both). */
export function parseGraphQueryBody(body: unknown): GraphQueryRequest {
  const obj = bodyObject(body);
  if (typeof obj.query !== 'string' || obj.query.trim() === '') throw badRequest('query is required: a Cypher text such as "MATCH (n) RETURN n LIMIT 10"');
  const { parameters, params } = obj;
  if (parameters !== undefined && params !== undefined && JSON.stringify(parameters) !== JSON.stringify(params)) {
    throw badRequest('parameters and params are two names for the same object; send one of them');
  }
  const given = parameters ?? params ?? {};
  if (given === null || typeof given !== 'object' || Array.isArray(given)) throw badRequest('parameters must be a JSON object mapping names to values');
  return { query: obj.query, parameters: given as JsonObject };
}
