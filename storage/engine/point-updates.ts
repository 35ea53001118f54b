import type { Collection } from '../collection.js';
import { badRequest, notFound, type DbError } from '../errors.js';
import type { MultiVector, Payload, PointId, PointRecord, PointUpdate, SparseVector, UpdatePointsEvent } from '../events/types.js';
import { splitDense, vectorsProblem } from './check-vectors.js';
import { deletePayloadAt, deletePayloadAtDotted, setPayloadAt, setPayloadAtDotted } from './payload-paths.js';

/** What a point is after the updates so far: its payload and labels, and the vectors it has ("" the unnamed one). */
export interface Simulated {
  payload: Payload;
  labels: readonly string[];
  vectors: ReadonlySet<string>;
}

/** The names of the vectors a point has now. */
function vectorsNow(c: Collection, id: PointId, slot: number): Set<string> {
  const names = new Set<string>();
  if (c.hasUnnamed && c.store.hasVector[slot] === 1) names.add('');
  for (const [name, space] of c.named) if (space.store.has(id)) names.add(name);
  for (const [name, vectors] of c.sparse) if (vectors.get(id)) names.add(name);
  for (const [name, vectors] of c.multi) if (vectors.has(id)) names.add(name);
  return names;
}

const vectorNamesOf = (p: PointRecord): Set<string> =>
  new Set([...(p.vector !== null ? [''] : []), ...Object.keys(p.named ?? {}), ...Object.keys(p.sparse ?? {}), ...Object.keys(p.multi ?? {})]);

/**
 * The collection's points as a batch's updates leave them, played one update at a time over the
 * current points without changing them: `touched` holds the state each touched point is in so
 * far (null: deleted). A batch's parser reads it between its steps, so that a step's filter
 * sees what the steps before it did (query/api/point-updates-body.ts).
 */
export class PendingUpdates {
  readonly touched = new Map<PointId, Simulated | null>();

  constructor(private readonly c: Collection) {}

  /** A point as the updates so far leave it (null: absent). */
  current(id: PointId): Simulated | null {
    if (this.touched.has(id)) return this.touched.get(id)!;
    const { store } = this.c;
    const slot = store.slotOf(id);
    return slot < 0 ? null : { payload: store.payloads[slot] ?? {}, labels: store.labels[slot]!, vectors: vectorsNow(this.c, id, slot) };
  }

  /** Plays one update: null, or the reason it cannot apply (a point that does not exist, a vector of the wrong size). */
  play(u: PointUpdate): DbError | null {
    const { c, touched } = this;
    const existing = (id: PointId): Simulated | DbError => this.current(id) ?? notFound(`no point with id ${id} found in collection "${c.name}"`);
    switch (u.op) {
      case 'upsert':
        for (const p of u.points) {
          const problem = vectorsProblem(c.config, c.name, p.id, p);
          if (problem) return badRequest(problem);
          touched.set(p.id, { payload: p.payload, labels: p.labels, vectors: vectorNamesOf(p) });
        }
        return null;
      case 'delete':
        for (const id of u.ids) touched.set(id, null);
        return null;
      case 'update_vectors':
        for (const p of u.points) {
          const s = existing(p.id);
          if (!('payload' in s)) return s;
          const given = splitDense(p.dense);
          const problem = vectorsProblem(c.config, c.name, p.id, { ...given, sparse: p.sparse, multi: p.multi });
          if (problem) return badRequest(problem);
          touched.set(p.id, { ...s, vectors: new Set([...s.vectors, ...Object.keys(p.dense), ...Object.keys(p.sparse), ...Object.keys(p.multi ?? {})]) });
        }
        return null;
      default:
        for (const id of u.ids) {
          const s = existing(id);
          if (!('payload' in s)) return s;
          const vectors = u.op === 'delete_vectors' ? new Set([...s.vectors].filter((name) => !u.names.includes(name))) : s.vectors;
          touched.set(id, { ...s, payload: nextPayload(s, u), vectors });
        }
        return null;
    }
  }
}

/**
 * Plays the updates over the collection's current points without changing them: the state each
 * touched point ends in (null: deleted), or the first reason the batch cannot apply. Validation
 * runs it before the append, and apply again (points may have changed in between), so apply is
 * all or nothing.
 */
export function simulateUpdates(c: Collection, updates: readonly PointUpdate[]): { error: DbError | null; touched: Map<PointId, Simulated | null> } {
  const pending = new PendingUpdates(c);
  for (const u of updates) {
    const error = pending.play(u);
    if (error) return { error, touched: pending.touched };
  }
  return { error: null, touched: pending.touched };
}

/** A point as it is, with the vectors given set and the vectors named in `deleted` taken away. */
function withVectors(c: Collection, id: PointId, dense: Record<string, Float32Array>, sparse: Record<string, SparseVector>, multi: Record<string, MultiVector>, deleted: readonly string[]): PointRecord {
  const slot = c.store.slotOf(id);
  const given = splitDense(dense);
  const kept = c.otherVectors(id);
  const named: Record<string, Float32Array> = { ...kept.named, ...given.named };
  const sparseNow: Record<string, SparseVector> = { ...kept.sparse, ...sparse };
  const multiNow: Record<string, MultiVector> = { ...kept.multi, ...multi };
  for (const name of deleted) {
    delete named[name];
    delete sparseNow[name];
    delete multiNow[name];
  }
  const current = c.store.hasVector[slot] ? Float32Array.from(c.store.vectorOf(slot)) : null;
  const vector = deleted.includes('') ? null : (given.vector ?? current);
  return { id, vector, payload: c.store.payloads[slot] ?? {}, labels: [...c.store.labels[slot]!], named, sparse: sparseNow, multi: multiNow };
}

function nextPayload(s: Pick<Simulated, 'payload'>, u: Exclude<PointUpdate, { op: 'upsert' | 'delete' | 'update_vectors' }>): Payload {
  switch (u.op) {
    case 'set_payload':
      return (u.dottedKeys ? setPayloadAtDotted : setPayloadAt)(s.payload, u.payload, u.key);
    case 'overwrite_payload':
      return u.payload;
    case 'delete_payload':
      return u.keys.reduce(u.dottedKeys ? deletePayloadAtDotted : deletePayloadAt, s.payload);
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
        const changes = u.op === 'update_vectors' ? u.points : u.ids.map((id) => ({ id, dense: {}, sparse: {}, multi: {}, deleted: u.names }));
        const points = changes.map((change) => withVectors(c, change.id, change.dense, change.sparse, change.multi ?? {}, 'deleted' in change ? change.deleted : []));
        c.upsert(points);
        changed += points.length;
        break;
      }
      default:
        for (const id of u.ids) {
          const slot = c.store.slotOf(id);
          const labels = [...c.store.labels[slot]!];
          c.setPayload(id, nextPayload({ payload: c.store.payloads[slot] ?? {} }, u), labels);
          changed++;
        }
    }
  }
  return changed;
}
