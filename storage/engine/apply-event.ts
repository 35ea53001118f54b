import { Collection } from '../collection.js';
import { conflict, notFound, type DbError } from '../errors.js';
import type { DbEvent } from '../events/types.js';

export interface ApplyResult {
  /** Set when the state no longer allowed the event (a concurrent change won the race): it was a no-op. */
  error?: DbError;
  /** How many things the event changed (points upserted or deleted, collections dropped). */
  changed: number;
}

/**
 * The one apply path, used live and at replay: deterministic in (state, opId, event), total
 * (never throws on a validated event), and all or nothing.
 */
export function applyEvent(collections: Map<string, Collection>, opId: number, event: DbEvent): ApplyResult {
  switch (event.type) {
    case 'create_collection':
      if (collections.has(event.name)) return { changed: 0, error: conflict(`collection "${event.name}" already exists`) };
      collections.set(event.name, new Collection(event.name, event.config, opId));
      return { changed: 1 };
    case 'delete_collection':
      return { changed: collections.delete(event.name) ? 1 : 0 };
    case 'upsert_points': {
      const c = collections.get(event.collection);
      if (!c) return { changed: 0, error: notFound(`collection "${event.collection}" not found`) };
      c.upsert(event.points);
      return { changed: event.points.length };
    }
    case 'delete_points': {
      const c = collections.get(event.collection);
      if (!c) return { changed: 0, error: notFound(`collection "${event.collection}" not found`) };
      let changed = 0;
      for (const id of event.ids) if (c.remove(id)) changed++;
      return { changed };
    }
  }
}
