import { valuesAt } from '../../storage/views/payload-paths.js';
import type { PointStore } from '../../storage/views/point-store.js';
import { instantOf, textTokens } from '../../storage/text-tokens.js';
import type { Bounds, Condition, Filter } from './types.js';

export const within = (v: number, c: Bounds): boolean => (c.gt === undefined || v > c.gt) && (c.gte === undefined || v >= c.gte) && (c.lt === undefined || v < c.lt) && (c.lte === undefined || v <= c.lte);

/** A filter read against one value (an element of a nested array) as if it were a payload. */
function matchesValue(f: Filter, value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return matchesPayload(f, value as Record<string, unknown>, null);
}

function holds(c: Condition, payload: Record<string, unknown> | null, store: PointStore | null, slot: number): boolean {
  switch (c.kind) {
    case 'has_id':
      return store !== null && c.ids.has(store.idOf(slot));
    case 'nested':
      return matchesPayload(c.filter, payload, store, slot);
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

function matchesPayload(f: Filter, payload: Record<string, unknown> | null, store: PointStore | null, slot = -1): boolean {
  for (const c of f.must) if (!holds(c, payload, store, slot)) return false;
  for (const c of f.mustNot) if (holds(c, payload, store, slot)) return false;
  if (f.minShould) {
    let n = 0;
    for (const c of f.minShould.conditions) if (holds(c, payload, store, slot)) n++;
    if (n < f.minShould.minCount) return false;
  }
  if (f.should.length === 0) return true;
  for (const c of f.should) if (holds(c, payload, store, slot)) return true;
  return false;
}

export function matchesFilter(f: Filter, store: PointStore, slot: number): boolean {
  return matchesPayload(f, store.payloads[slot] ?? null, store, slot);
}
