import { checkPointId } from '../../storage/engine/validate-event.js';
import { badRequest } from '../../storage/errors.js';
import type { Direction } from '../../storage/views/graph-store.js';
import { canonicalUuid, type PointId } from '../../storage/point-id.js';
import { checkBody } from './check-body.js';
import { bodyObject, type JsonObject } from './fields.js';
import { edgeBody, graphQueryBody, traverseBody } from './schemas/graph.js';

export const DIRECTIONS: readonly Direction[] = ['outgoing', 'incoming', 'both'];

/** `from_id`, or its alias `source_id`; naming both with different values is a 400. */
function aliased(a: PointId | undefined, b: PointId | undefined, name: string, alias: string): PointId {
  if (a === undefined && b === undefined) throw badRequest(`${name} (or ${alias}) is required`);
  if (a !== undefined && b !== undefined && a !== b) throw badRequest(`${name} and ${alias} name different points; send one of them`);
  return (a ?? b)!;
}

export interface EdgeRequest {
  from: PointId;
  to: PointId;
  relation: string;
  weight: number;
}

export function parseEdgeBody(body: unknown): EdgeRequest {
  const edge = checkBody(edgeBody, bodyObject(body));
  return {
    from: aliased(edge.from_id, edge.source_id, 'from_id', 'source_id'),
    to: aliased(edge.to_id, edge.target_id, 'to_id', 'target_id'),
    relation: edge.relation,
    weight: edge.weight ?? 1,
  };
}

/** A point id from a path segment: decimal digits, or a UUID (hyphenated or 32 hex digits). */
export function parsePointIdParam(raw: string): PointId {
  const id = /^\d{1,16}$/.test(raw) ? Number(raw) : (canonicalUuid(raw) ?? NaN);
  try {
    checkPointId(id);
  } catch {
    throw badRequest(`invalid point id "${raw.slice(0, 40)}": ids are integers from 0 to ${Number.MAX_SAFE_INTEGER} or UUIDs`);
  }
  return id;
}

export function parseDirection(raw: unknown): Direction {
  if (raw === undefined) return 'outgoing';
  if (typeof raw !== 'string' || !DIRECTIONS.includes(raw as Direction)) throw badRequest(`direction must be one of ${DIRECTIONS.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as Direction;
}

export interface TraverseRequest {
  start: PointId;
  maxDepth: number;
  relations: Set<string> | null;
}

export function parseTraverseBody(body: unknown): TraverseRequest {
  const { start_id, max_depth, relations } = checkBody(traverseBody, bodyObject(body));
  return { start: start_id, maxDepth: max_depth, relations: relations ? new Set(relations) : null };
}

export interface GraphQueryRequest {
  query: string;
  parameters: JsonObject;
}

/** `query` and its parameters, under `parameters` or `params` (DECISIONS accepts both). */
export function parseGraphQueryBody(body: unknown): GraphQueryRequest {
  const { query, parameters, params } = checkBody(graphQueryBody, bodyObject(body));
  if (parameters && params && JSON.stringify(parameters) !== JSON.stringify(params)) {
    throw badRequest('parameters and params are two names for the same object; send one of them');
  }
  return { query, parameters: parameters ?? params ?? {} };
}
