import { valuesAt } from '../../storage/views/payload-paths.js';
import type { Collection } from '../../storage/collection.js';
import { instantOf, textTokens } from '../../storage/text-tokens.js';
import type { PointId } from '../../storage/point-id.js';
import type { Bounds, Condition, Filter } from './types.js';

/** A point as a batch's earlier steps leave it, not (or not so) in the store yet. */
export interface PendingPoint {
  id: PointId;
  payload: Record<string, unknown>;
  /** The names of its vectors ("" the unnamed one). */
  vectors: ReadonlySet<string>;
}

export const within = (v: number, c: Bounds): boolean => (c.gt === undefined || v > c.gt) && (c.gte === undefined || v >= c.gte) && (c.lt === undefined || v < c.lt) && (c.lte === undefined || v <= c.lte);

/** A filter read against one value (an element of a nested array) as if it were a payload. */
function matchesValue(f: Filter, value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return matchesPayload(f, value as Record<string, unknown>, null, -1, null);
}

/** Whether the point in `slot` has the vector `name` (an unknown name: no point has it). */
function hasVector(col: Collection, slot: number, name: string): boolean {
  if (name === '') return col.hasUnnamed && col.store.hasVector[slot] === 1;
  const id = col.store.idOf(slot);
  return col.named.get(name)?.store.has(id) ?? (col.sparse.get(name)?.get(id) ?? null) !== null;
}

function holds(c: Condition, payload: Record<string, unknown> | null, col: Collection | null, slot: number, pending: PendingPoint | null): boolean {
  switch (c.kind) {
    case 'has_id':
      if (pending) return c.ids.has(pending.id);
      return col !== null && c.ids.has(col.store.idOf(slot));
    case 'has_vector':
      if (pending) return pending.vectors.has(c.name);
      return col !== null && hasVector(col, slot, c.name);
    case 'nested':
      return matchesPayload(c.filter, payload, col, slot, pending);
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
    case 'match_text':
      return values.some((v) => {
        if (typeof v !== 'string') return false;
        const have = new Set(textTokens(v));
        return c.tokens.every((t) => have.has(t));
      });
    case 'values_count':
      return within(values.filter((v) => v !== null).length, c);
    case 'nested_array':
      return values.some((v) => matchesValue(c.filter, v));
    case 'is_empty':
      return values.every((v) => v === null);
    case 'is_null':
      return values.includes(null);
  }
}

function matchesPayload(f: Filter, payload: Record<string, unknown> | null, col: Collection | null, slot: number, pending: PendingPoint | null): boolean {
  for (const c of f.must) if (!holds(c, payload, col, slot, pending)) return false;
  for (const c of f.mustNot) if (holds(c, payload, col, slot, pending)) return false;
  if (f.minShould) {
    let n = 0;
    for (const c of f.minShould.conditions) if (holds(c, payload, col, slot, pending)) n++;
    if (n < f.minShould.minCount) return false;
  }
  if (f.should.length === 0) return true;
  for (const c of f.should) if (holds(c, payload, col, slot, pending)) return true;
  return false;
}

export function matchesFilter(f: Filter, col: Collection, slot: number): boolean {
  return matchesPayload(f, col.store.payloads[slot] ?? null, col, slot, null);
}

/** Whether a point as a batch's earlier steps leave it matches the filter. */
export function matchesPendingPoint(f: Filter, point: PendingPoint): boolean {
  return matchesPayload(f, point.payload, null, -1, point);
}
