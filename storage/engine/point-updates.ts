import type { Collection } from '../collection.js';
import { badRequest, notFound, type DbError } from '../errors.js';
import type { Payload, PointId, PointRecord, PointUpdate, UpdatePointsEvent } from '../events/types.js';
import { deletePayloadAt, setPayloadAt } from './payload-paths.js';

/** What a point is after the updates so far: its payload and labels, and whether it has a vector. */
interface Simulated {
  payload: Payload;
  labels: readonly string[];
  hasVector: boolean;
}

/**
 * Plays the updates over the collection's current points without changing them: the state each
 * touched point ends in (null: deleted), or the first reason the batch cannot apply (a point that
 * does not exist, a vector of the wrong size). Validation runs it before the append, and apply
 * again (points may have changed in between), so apply is all or nothing.
 */
export function simulateUpdates(c: Collection, updates: readonly PointUpdate[]): { error: DbError | null; touched: Map<PointId, Simulated | null> } {
  const touched = new Map<PointId, Simulated | null>();
  const current = (id: PointId): Simulated | null => {
    if (touched.has(id)) return touched.get(id)!;
    const slot = c.store.slotOf(id);
    return slot < 0 ? null : { payload: c.store.payloads[slot] ?? {}, labels: c.store.labels[slot]!, hasVector: c.store.hasVector[slot] === 1 };
  };
  const existing = (id: PointId): Simulated | DbError => current(id) ?? notFound(`no point with id ${id} found in collection "${c.name}"`);
  const size = c.config.size;
  for (const u of updates) {
    switch (u.op) {
      case 'upsert':
        for (const p of u.points) {
          if (p.vector && p.vector.length !== size) return { error: badRequest(`point ${p.id}: vector has ${p.vector.length} dimensions, collection "${c.name}" expects ${size}`), touched };
          touched.set(p.id, { payload: p.payload, labels: p.labels, hasVector: p.vector !== null });
        }
        break;
      case 'delete':
        for (const id of u.ids) touched.set(id, null);
        break;
      case 'update_vectors':
        for (const p of u.points) {
          const s = existing(p.id);
          if (!('payload' in s)) return { error: s, touched };
          if (p.vector.length !== size) return { error: badRequest(`point ${p.id}: vector has ${p.vector.length} dimensions, collection "${c.name}" expects ${size}`), touched };
          touched.set(p.id, { ...s, hasVector: true });
        }
        break;
      default:
        for (const id of u.ids) {
          const s = existing(id);
          if (!('payload' in s)) return { error: s, touched };
          touched.set(id, { ...s, payload: nextPayload(s, u), hasVector: u.op === 'delete_vectors' ? false : s.hasVector });
        }
    }
  }
  return { error: null, touched };
}

function nextPayload(s: Simulated, u: Exclude<PointUpdate, { op: 'upsert' | 'delete' | 'update_vectors' }>): Payload {
  switch (u.op) {
    case 'set_payload':
      return setPayloadAt(s.payload, u.payload, u.key);
    case 'overwrite_payload':
      return u.payload;
    case 'delete_payload':
      return u.keys.reduce(deletePayloadAt, s.payload);
    case 'clear_payload':
      return {};
    case 'delete_vectors':
      return s.payload;
  }
}

/** Applies the updates in order; the caller has simulated them against this state. */
export function applyUpdates(c: Collection, event: UpdatePointsEvent): number {
  let changed = 0;
  for (const u of event.updates) {
    switch (u.op) {
      case 'upsert':
        c.upsert(u.points);
        changed += u.points.length;
        break;
      case 'delete':
        for (const id of u.ids) if (c.remove(id)) changed++;
        break;
      case 'update_vectors':
      case 'delete_vectors': {
        const points: PointRecord[] = (u.op === 'update_vectors' ? u.points : u.ids.map((id) => ({ id, vector: null }))).map(({ id, vector }) => {
          const slot = c.store.slotOf(id);
          return { id, vector, payload: c.store.payloads[slot] ?? {}, labels: [...c.store.labels[slot]!] };
        });
        c.upsert(points);
        changed += points.length;
        break;
      }
      default:
        for (const id of u.ids) {
          const slot = c.store.slotOf(id);
          const s = { payload: c.store.payloads[slot] ?? {}, labels: c.store.labels[slot]!, hasVector: c.store.hasVector[slot] === 1 };
          c.setPayload(id, nextPayload(s, u), [...s.labels]);
          changed++;
        }
    }
  }
  return changed;
}
