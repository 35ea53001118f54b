import { valuesAt } from '../../storage/views/payload-paths.js';
import type { Collection } from '../../storage/collection.js';
import type { FieldIndex } from '../../storage/events/types.js';
import { instantOf } from '../../storage/text-tokens.js';
import type { PointId } from '../../storage/point-id.js';
import { geoPointOf, inGeoArea } from './geo.js';
import { textHolds } from './text-match.js';
import type { Bounds, Condition, Filter } from './types.js';

/** A point as a batch's earlier steps leave it, not (or not so) in the store yet. */
export interface PendingPoint {
  id: PointId;
  payload: Record<string, unknown>;
  /** The names of its vectors ("" the unnamed one). */
  vectors: ReadonlySet<string>;
}

export const within = (v: number, c: Bounds): boolean => (c.gt === undefined || v > c.gt) && (c.gte === undefined || v >= c.gte) && (c.lt === undefined || v < c.lt) && (c.lte === undefined || v <= c.lte);

/** The collection's declared payload indexes, by field: a full-text match reads words on a field with a text index, substrings elsewhere. */
type Indexes = ReadonlyMap<string, FieldIndex>;

/**
 * Where a filter is read: a stored point (`col`, `slot`), a pending one, or an element of a
 * nested array (neither; `prefix` the array's key and `[].`, which the indexes name its fields by).
 */
interface Reading {
  col: Collection | null;
  slot: number;
  pending: PendingPoint | null;
  indexes: Indexes;
  prefix: string;
}

/** A filter read against one value (an element of the nested array at `key`) as if it were a payload. */
function matchesValue(f: Filter, value: unknown, key: string, at: Reading): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return matchesPayload(f, value as Record<string, unknown>, { col: null, slot: -1, pending: null, indexes: at.indexes, prefix: `${at.prefix}${key}[].` });
}

/** Whether the point in `slot` has the vector `name` (an unknown name: no point has it). */
function hasVector(col: Collection, slot: number, name: string): boolean {
  const id = col.store.idOf(slot);
  if (name === '') return col.hasUnnamed ? col.store.hasVector[slot] === 1 : (col.multi.get('')?.has(id) ?? false);
  return col.named.get(name)?.store.has(id) ?? col.multi.get(name)?.has(id) ?? (col.sparse.get(name)?.get(id) ?? null) !== null;
}

function holds(c: Condition, payload: Record<string, unknown> | null, at: Reading): boolean {
  const { col, slot, pending } = at;
  switch (c.kind) {
    case 'has_id':
      if (pending) return c.ids.has(pending.id);
      return col !== null && c.ids.has(col.store.idOf(slot));
    case 'has_vector':
      if (pending) return pending.vectors.has(c.name);
      return col !== null && hasVector(col, slot, c.name);
    case 'nested':
      return matchesPayload(c.filter, payload, at);
    default:
      break;
  }
  const values = valuesAt(payload, c.path);
  switch (c.kind) {
    case 'match':
      return values.includes(c.value);
    case 'match_any':
      return values.some((v) => c.values.has(v as never));
    case 'match_except':
      return !values.some((v) => c.values.has(v as never));
    case 'range':
      if (c.datetime) return values.some((v) => {
        const ms = instantOf(v);
        return ms !== null && within(ms, c);
      });
      return values.some((v) => typeof v === 'number' && within(v, c));
    case 'match_text': {
      const index = at.indexes.get(at.prefix + c.key);
      return values.some((v) => typeof v === 'string' && textHolds(c, v, index));
    }
    case 'geo':
      return values.some((v) => {
        const p = geoPointOf(v);
        return p !== null && inGeoArea(c.area, p);
      });
    case 'values_count':
      return within(values.filter((v) => v !== null).length, c);
    case 'nested_array':
      return values.some((v) => matchesValue(c.filter, v, c.key, at));
    case 'is_empty':
      return values.every((v) => v === null);
    case 'is_null':
      return values.includes(null);
  }
}

function matchesPayload(f: Filter, payload: Record<string, unknown> | null, at: Reading): boolean {
  for (const c of f.must) if (!holds(c, payload, at)) return false;
  for (const c of f.mustNot) if (holds(c, payload, at)) return false;
  if (f.minShould) {
    let n = 0;
    for (const c of f.minShould.conditions) if (holds(c, payload, at)) n++;
    if (n < f.minShould.minCount) return false;
  }
  if (f.should.length === 0) return true;
  for (const c of f.should) if (holds(c, payload, at)) return true;
  return false;
}

export function matchesFilter(f: Filter, col: Collection, slot: number): boolean {
  return matchesPayload(f, col.store.payloads[slot] ?? null, { col, slot, pending: null, indexes: col.fieldIndexes, prefix: '' });
}

/** Whether a point of the collection, as a batch's earlier steps leave it, matches the filter. */
export function matchesPendingPoint(f: Filter, col: Collection, point: PendingPoint): boolean {
  return matchesPayload(f, point.payload, { col: null, slot: -1, pending: point, indexes: col.fieldIndexes, prefix: '' });
}
