import type { Collection } from '../../storage/collection.js';
import { badRequest } from '../../storage/errors.js';
import type { PointId, PointUpdate } from '../../storage/events/types.js';
import { parseOptionalFilter } from '../filter/parse-filter.js';
import { forEachMatchingSlot } from '../search/matching-slots.js';
import { checkBody } from './check-body.js';
import { bodyObject } from './fields.js';
import { parseUpsertBody } from './points-body.js';
import { pointVectorsFrom } from './vector-input.js';
import { batchUpdateBody, deletePayloadBody, deleteVectorsBody, overwritePayloadBody, pointsSelectorBody, setPayloadBody, updateVectorsBody } from './schemas/point-updates.js';

/**
 * Qdrant's point update bodies as the updates of one logged event. A filter is resolved to the
 * ids it matches now, before the append, so the log names the points and a replay does the same.
 */

interface Selector {
  points?: PointId[] | null;
  filter?: unknown;
}

function selectedIds(c: Collection, s: Selector, where: string): PointId[] {
  if (s.points && s.filter) throw badRequest(`${where}send points (an array of ids) or filter, not both`);
  if (s.points) return s.points;
  if (s.filter === undefined || s.filter === null) throw badRequest(`${where}points (an array of ids) or filter is required`);
  const ids: PointId[] = [];
  forEachMatchingSlot(c, parseOptionalFilter(s.filter, `${where}filter`), (slot) => ids.push(c.store.idOf(slot)));
  return ids;
}

type Kind = 'set_payload' | 'overwrite_payload' | 'delete_payload' | 'clear_payload' | 'update_vectors' | 'delete_vectors' | 'delete';

function updateOf(c: Collection, kind: Kind, raw: unknown, where = ''): PointUpdate {
  const body = bodyObject(raw);
  switch (kind) {
    case 'set_payload': {
      const b = checkBody(setPayloadBody, body);
      return { op: kind, ids: selectedIds(c, b, where), payload: b.payload, key: b.key ?? null };
    }
    case 'overwrite_payload': {
      const b = checkBody(overwritePayloadBody, body);
      return { op: kind, ids: selectedIds(c, b, where), payload: b.payload };
    }
    case 'delete_payload': {
      const b = checkBody(deletePayloadBody, body);
      return { op: kind, ids: selectedIds(c, b, where), keys: b.keys };
    }
    case 'clear_payload':
    case 'delete':
      return { op: kind, ids: selectedIds(c, checkBody(pointsSelectorBody, body), where) };
    case 'delete_vectors': {
      const b = checkBody(deleteVectorsBody, body);
      return { op: kind, ids: selectedIds(c, b, where), names: [...new Set(b.vector)] };
    }
    case 'update_vectors':
      return {
        op: kind,
        points: checkBody(updateVectorsBody, body).points.map((p) => {
          const given = pointVectorsFrom(p.vector);
          return { id: p.id, dense: { ...(given.vector ? { '': given.vector } : {}), ...given.named }, sparse: given.sparse ?? {} };
        }),
      };
  }
}

/** One call's update: set, overwrite, delete or clear payload, update or delete vectors. */
export function parsePointUpdate(c: Collection, kind: Exclude<Kind, 'delete'>, raw: unknown): PointUpdate[] {
  return [updateOf(c, kind, raw)];
}

/** POST /points/batch: its operations, in order, as the updates of one event. */
export function parseBatchUpdate(c: Collection, raw: unknown): PointUpdate[] {
  const { operations } = checkBody(batchUpdateBody, bodyObject(raw));
  return operations.map((op, i) => {
    const [kind, inner] = Object.entries(op)[0]! as [Kind | 'upsert', unknown];
    if (kind === 'upsert') return { op: 'upsert', points: parseUpsertBody(inner) };
    return updateOf(c, kind, inner, `operations[${i}].${kind}.`);
  });
}
