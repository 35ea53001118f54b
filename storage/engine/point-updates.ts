import type { Collection } from '../collection.js';
import { badRequest, notFound, type DbError } from '../errors.js';
import type { Payload, PointId, PointRecord, PointUpdate, SparseVector, UpdatePointsEvent } from '../events/types.js';
import { splitDense, vectorsProblem } from './check-vectors.js';
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
  for (const u of updates) {
    switch (u.op) {
      case 'upsert':
        for (const p of u.points) {
          const problem = vectorsProblem(c.config, c.name, p.id, p);
          if (problem) return { error: badRequest(problem), touched };
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
          const given = splitDense(p.dense);
          const problem = vectorsProblem(c.config, c.name, p.id, { ...given, sparse: p.sparse });
          if (problem) return { error: badRequest(problem), touched };
          touched.set(p.id, { ...s, hasVector: s.hasVector || given.vector !== undefined });
        }
        break;
      default:
        for (const id of u.ids) {
          const s = existing(id);
          if (!('payload' in s)) return { error: s, touched };
          touched.set(id, { ...s, payload: nextPayload(s, u), hasVector: u.op === 'delete_vectors' && u.names.includes('') ? false : s.hasVector });
        }
    }
  }
  return { error: null, touched };
}

/** A point as it is, with the vectors given set and the vectors named in `deleted` taken away. */
function withVectors(c: Collection, id: PointId, dense: Record<string, Float32Array>, sparse: Record<string, SparseVector>, deleted: readonly string[]): PointRecord {
  const slot = c.store.slotOf(id);
  const given = splitDense(dense);
  const kept = c.otherVectors(id);
  const named: Record<string, Float32Array> = { ...kept.named, ...given.named };
  const sparseNow: Record<string, SparseVector> = { ...kept.sparse, ...sparse };
  for (const name of deleted) {
    delete named[name];
    delete sparseNow[name];
  }
  const current = c.store.hasVector[slot] ? Float32Array.from(c.store.vectorOf(slot)) : null;
  const vector = deleted.includes('') ? null : (given.vector ?? current);
  return { id, vector, payload: c.store.payloads[slot] ?? {}, labels: [...c.store.labels[slot]!], named, sparse: sparseNow };
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
        const changes = u.op === 'update_vectors' ? u.points : u.ids.map((id) => ({ id, dense: {}, sparse: {}, deleted: u.names }));
        const points = changes.map((change) => withVectors(c, change.id, change.dense, change.sparse, 'deleted' in change ? change.deleted : []));
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
