import type { Collection } from '../collection.js';
import { badRequest, conflict, notFound } from '../errors.js';
import type { CollectionConfig, DbEvent, EdgeRecord, ImportCollectionEvent, PointRecord } from '../events/types.js';

export const MAX_POINT_ID = Number.MAX_SAFE_INTEGER;
const NAME_PATTERN = /^[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,254}$/;

export function checkCollectionName(name: string): void {
  if (!NAME_PATTERN.test(name)) {
    throw badRequest(`invalid collection name "${name.slice(0, 64)}": use 1 to 255 characters from A-Z a-z 0-9 _ - . not starting with "."`);
  }
}

export function checkPointId(id: unknown): asserts id is number {
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > MAX_POINT_ID) {
    throw badRequest(`invalid point id ${JSON.stringify(id) ?? String(id)}: ids are integers from 0 to ${MAX_POINT_ID}`);
  }
}

export function requireCollection(collections: ReadonlyMap<string, Collection>, name: string): Collection {
  const c = collections.get(name);
  if (!c) throw notFound(`collection "${name}" not found`);
  return c;
}

function checkPoint(name: string, size: number, p: PointRecord): void {
  checkPointId(p.id);
  if (p.vector) {
    if (p.vector.length !== size) {
      throw badRequest(`point ${p.id}: vector has ${p.vector.length} dimensions, collection "${name}" expects ${size}`);
    }
    for (let i = 0; i < p.vector.length; i++) {
      if (!Number.isFinite(p.vector[i])) throw badRequest(`point ${p.id}: vector element ${i} is not a finite 32-bit float`);
    }
  }
  if (p.payload === null || typeof p.payload !== 'object' || Array.isArray(p.payload)) {
    throw badRequest(`point ${p.id}: payload must be a JSON object`);
  }
  for (const label of p.labels) {
    if (typeof label !== 'string' || label.length === 0) throw badRequest(`point ${p.id}: labels must be non-empty strings`);
  }
}

function checkWeight(weight: number): void {
  if (typeof weight !== 'number' || !Number.isFinite(weight)) throw badRequest(`weight must be a finite number, got ${weight}`);
}

function checkEdgeFields(e: EdgeRecord): void {
  if (typeof e.relation !== 'string' || e.relation.length === 0 || e.relation.length > 255) {
    throw badRequest('relation must be a non-empty string of at most 255 characters');
  }
  checkWeight(e.weight);
}

export function checkConfig(c: CollectionConfig): void {
  const int = (v: number, lo: number, hi: number) => Number.isInteger(v) && v >= lo && v <= hi;
  if (!int(c.size, 1, 65536) || !int(c.m, 2, 128) || !int(c.m0, c.m, 512) || !int(c.efConstruct, 4, 4096) || !(c.ml > 0 && c.ml <= 10)) {
    throw badRequest(`invalid collection config: ${JSON.stringify(c)}`);
  }
}

function checkImport(collections: ReadonlyMap<string, Collection>, event: ImportCollectionEvent): void {
  checkCollectionName(event.name);
  checkConfig(event.config);
  const target = collections.get(event.name);
  if (event.mode === 'create' && target) throw conflict(`collection "${event.name}" already exists`);
  if (event.mode === 'merge') {
    if (!target) throw notFound(`collection "${event.name}" not found: merge needs an existing collection`);
    if (target.config.size !== event.config.size) {
      throw badRequest(`dimension mismatch: the file holds ${event.config.size}-dimensional vectors, collection "${event.name}" has ${target.config.size}`);
    }
  }
  const ids = new Set<number>();
  for (const p of event.points) {
    checkPoint(event.name, event.config.size, p);
    ids.add(p.id);
  }
  for (const e of event.edges) {
    checkEdgeFields(e);
    for (const id of [e.from, e.to]) {
      checkPointId(id);
      if (!ids.has(id) && !(event.mode === 'merge' && target!.store.has(id))) throw badRequest(`an edge names point ${id}, which is not in the file`);
    }
  }
}

/**
 * Checks an event against the current state before it is logged, so that what reaches the
 * log applies whole. Throws a DbError (4xx) naming what is wrong.
 */
export function validateEvent(collections: ReadonlyMap<string, Collection>, event: DbEvent): void {
  switch (event.type) {
    case 'create_collection':
      checkCollectionName(event.name);
      if (collections.has(event.name)) throw conflict(`collection "${event.name}" already exists`);
      return;
    case 'delete_collection':
      requireCollection(collections, event.name);
      return;
    case 'upsert_points': {
      const c = requireCollection(collections, event.collection);
      for (const p of event.points) checkPoint(c.name, c.config.size, p);
      if (c.store.usedSlots + event.points.length > c.store.maxSlots) {
        throw badRequest(`collection "${c.name}" is full: it holds at most ${c.store.maxSlots} vectors of dimension ${c.config.size}`);
      }
      return;
    }
    case 'delete_points':
      requireCollection(collections, event.collection);
      for (const id of event.ids) checkPointId(id);
      return;
    case 'upsert_edge': {
      const c = requireCollection(collections, event.collection);
      for (const id of [event.from, event.to]) {
        checkPointId(id);
        if (!c.store.has(id)) throw notFound(`point ${id} not found in collection "${c.name}"`);
      }
      checkEdgeFields(event);
      return;
    }
    case 'import_collection':
      checkImport(collections, event);
      return;
    case 'graph_write': {
      const c = requireCollection(collections, event.collection);
      for (const change of event.changes) {
        if (change.kind === 'create_node' || change.kind === 'update_node') checkPoint(c.name, c.config.size, change.point);
        else if (change.kind === 'set_node') checkPoint(c.name, c.config.size, { id: change.id, vector: null, payload: change.payload, labels: change.labels });
        else if (change.kind === 'create_edge') {
          checkPointId(change.edge.from);
          checkPointId(change.edge.to);
          checkEdgeFields(change.edge);
        } else if (change.kind === 'update_edge') checkWeight(change.weight);
        else checkPointId(change.id);
      }
      return;
    }
  }
}
