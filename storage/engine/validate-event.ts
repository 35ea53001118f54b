import type { Collection } from '../collection.js';
import { badRequest, conflict, notFound } from '../errors.js';
import type { DbEvent, PointRecord } from '../events/types.js';

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

function checkPoint(c: Collection, p: PointRecord): void {
  checkPointId(p.id);
  if (p.vector) {
    if (p.vector.length !== c.config.size) {
      throw badRequest(`point ${p.id}: vector has ${p.vector.length} dimensions, collection "${c.name}" expects ${c.config.size}`);
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
      for (const p of event.points) checkPoint(c, p);
      if (c.store.usedSlots + event.points.length > c.store.maxSlots) {
        throw badRequest(`collection "${c.name}" is full: it holds at most ${c.store.maxSlots} vectors of dimension ${c.config.size}`);
      }
      return;
    }
    case 'delete_points':
      requireCollection(collections, event.collection);
      for (const id of event.ids) checkPointId(id);
      return;
  }
}
