import type { Collection } from '../../storage/collection.js';
import { PendingUpdates } from '../../storage/engine/point-updates.js';
import { badRequest } from '../../storage/errors.js';
import type { PointId, PointRecord, PointUpdate } from '../../storage/events/types.js';
import { parseJsonPath } from '../../storage/json-path.js';
import { matchesFilter, matchesPendingPoint } from '../filter/evaluate-filter.js';
import { parseOptionalFilter } from '../filter/parse-filter.js';
import type { Filter } from '../filter/types.js';
import { forEachMatchingSlot } from '../search/matching-slots.js';
import { checkBody } from './check-body.js';
import { bodyObject } from './fields.js';
import { parseUpsertBody } from './points-body.js';
import { pointVectorsFrom } from './vector-input.js';
import { batchUpdateBody, deletePayloadBody, deleteVectorsBody, overwritePayloadBody, pointsSelectorBody, setPayloadBody, updateVectorsBody } from './schemas/point-updates.js';

/**
 * Qdrant's point update bodies as the updates of one logged event. A filter (and an upsert's
 * update_filter) is resolved to the ids it matches before the append, so the log names the
 * points and a replay does the same whatever the apply code's filters would say then. In a
 * batch each step's filter is resolved against the points as the steps before it leave them
 * (PendingUpdates plays them over the collection without changing it), as Qdrant applies a
 * batch's operations in order; the batch stays one event, applied whole.
 */

interface Selector {
  points?: PointId[] | null;
  filter?: unknown;
}

/** The ids of the points the filter matches once the pending updates are played. */
function idsMatching(c: Collection, pending: PendingUpdates, filter: Filter | null): PointId[] {
  const ids: PointId[] = [];
  forEachMatchingSlot(c, filter, (slot) => {
    const id = c.store.idOf(slot);
    if (!pending.touched.has(id)) ids.push(id);
  });
  for (const [id, point] of pending.touched) if (point && (!filter || matchesPendingPoint(filter, c, { id, ...point }))) ids.push(id);
  return ids;
}

function selectedIds(c: Collection, pending: PendingUpdates, s: Selector, where: string): PointId[] {
  if (s.points && s.filter) throw badRequest(`${where}send points (an array of ids) or filter, not both`);
  if (s.points) return s.points;
  if (s.filter === undefined || s.filter === null) throw badRequest(`${where}points (an array of ids) or filter is required`);
  return idsMatching(c, pending, parseOptionalFilter(s.filter, `${where}filter`));
}

/** A payload key (Qdrant's JSON path), refused when it is not one. */
function checkedPath(key: string, where: string): string {
  if (parseJsonPath(key) === null) throw badRequest(`${where} "${key}" is not a JSON path: write a.b, a[0].b or a[].b, and quote a key with other characters than letters, digits, _ and - ("my key".b)`);
  return key;
}

/** Whether a point is absent, or matches the filter, as the pending updates leave it (Qdrant's update_filter). */
function absentOrMatching(c: Collection, pending: PendingUpdates, filter: Filter, id: PointId): boolean {
  if (pending.touched.has(id)) {
    const now = pending.touched.get(id);
    return !now || matchesPendingPoint(filter, c, { id, ...now });
  }
  const slot = c.store.slotOf(id);
  return slot < 0 || matchesFilter(filter, c, slot);
}

/**
 * An upsert with Qdrant's update_filter: a point that exists (as the pending updates leave it)
 * and does not match keeps its state, so it leaves the upsert; new points are written whatever
 * the filter says.
 */
export function conditionalUpsert(c: Collection, pending: PendingUpdates, points: PointRecord[], filter: Filter | null): PointRecord[] {
  return filter ? points.filter((p) => absentOrMatching(c, pending, filter, p.id)) : points;
}

/** An upsert body's update_filter (checked with the body), or null. */
export const updateFilterOf = (raw: unknown, where = ''): Filter | null => parseOptionalFilter(bodyObject(raw).update_filter, `${where}update_filter`);

type Kind = 'set_payload' | 'overwrite_payload' | 'delete_payload' | 'clear_payload' | 'update_vectors' | 'delete_vectors' | 'delete';

function updateOf(c: Collection, pending: PendingUpdates, kind: Kind, raw: unknown, where = ''): PointUpdate {
  const body = bodyObject(raw);
  switch (kind) {
    case 'set_payload': {
      const b = checkBody(setPayloadBody, body);
      return { op: kind, ids: selectedIds(c, pending, b, where), payload: b.payload, key: b.key === undefined || b.key === null ? null : checkedPath(b.key, `${where}key`) };
    }
    case 'overwrite_payload': {
      // Qdrant takes a key here and leaves it unread: the whole payload is replaced.
      const b = checkBody(overwritePayloadBody, body);
      return { op: kind, ids: selectedIds(c, pending, b, where), payload: b.payload };
    }
    case 'delete_payload': {
      const b = checkBody(deletePayloadBody, body);
      return { op: kind, ids: selectedIds(c, pending, b, where), keys: b.keys.map((key, i) => checkedPath(key, `${where}keys[${i}]`)) };
    }
    case 'clear_payload':
    case 'delete':
      return { op: kind, ids: selectedIds(c, pending, checkBody(pointsSelectorBody, body), where) };
    case 'delete_vectors': {
      const b = checkBody(deleteVectorsBody, body);
      return { op: kind, ids: selectedIds(c, pending, b, where), names: [...new Set(b.vector)] };
    }
    case 'update_vectors': {
      const b = checkBody(updateVectorsBody, body);
      // update_filter: a point that does not match keeps its vectors; a missing one is still refused.
      const onlyIf = updateFilterOf(body, where);
      return {
        op: kind,
        points: b.points
          .filter((p) => !onlyIf || absentOrMatching(c, pending, onlyIf, p.id))
          .map((p) => {
            const given = pointVectorsFrom(p.vector);
            return { id: p.id, dense: { ...(given.vector ? { '': given.vector } : {}), ...given.named }, sparse: given.sparse ?? {}, ...(given.multi ? { multi: given.multi } : {}) };
          }),
      };
    }
  }
}

/** One call's update: set, overwrite, delete or clear payload, update or delete vectors. */
export function parsePointUpdate(c: Collection, kind: Exclude<Kind, 'delete'>, raw: unknown): PointUpdate[] {
  return [updateOf(c, new PendingUpdates(c), kind, raw)];
}

/** POST /points/batch: its operations, in order, as the updates of one event; each step's filter sees the steps before it. */
export function parseBatchUpdate(c: Collection, raw: unknown): PointUpdate[] {
  const { operations } = checkBody(batchUpdateBody, bodyObject(raw));
  const pending = new PendingUpdates(c);
  return operations.map((op, i) => {
    const [kind, inner] = Object.entries(op)[0]! as [Kind | 'upsert', unknown];
    const where = `operations[${i}].${kind}.`;
    const update: PointUpdate =
      kind === 'upsert' ? { op: 'upsert', points: conditionalUpsert(c, pending, parseUpsertBody(inner), updateFilterOf(inner, where)) } : updateOf(c, pending, kind, inner, where);
    // The step cannot apply (a missing point, a wrong vector): the event's check would refuse it the same way.
    const error = pending.play(update);
    if (error) throw error;
    return update;
  });
}
