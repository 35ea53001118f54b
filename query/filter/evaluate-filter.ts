import { valuesAt } from '../../storage/views/payload-paths.js';
import type { PointStore } from '../../storage/views/point-store.js';
import type { Condition, Filter } from './types.js';

function holds(c: Condition, store: PointStore, slot: number): boolean {
  switch (c.kind) {
    case 'has_id':
      return c.ids.has(store.idOf(slot));
    case 'nested':
      return matchesFilter(c.filter, store, slot);
    default:
      break;
  }
  const values = valuesAt(store.payloads[slot] ?? null, c.path);
  switch (c.kind) {
    case 'match':
      return values.includes(c.value);
    case 'match_any':
      return values.some((v) => c.values.has(v as never));
    case 'match_except':
      return !values.some((v) => c.values.has(v as never));
    case 'range':
      return values.some(
        (v) =>
          typeof v === 'number' &&
          (c.gt === undefined || v > c.gt) &&
          (c.gte === undefined || v >= c.gte) &&
          (c.lt === undefined || v < c.lt) &&
          (c.lte === undefined || v <= c.lte),
      );
    case 'is_empty':
      return values.every((v) => v === null);
    case 'is_null':
      return values.includes(null);
  }
}

export function matchesFilter(f: Filter, store: PointStore, slot: number): boolean {
  for (const c of f.must) if (!holds(c, store, slot)) return false;
  for (const c of f.mustNot) if (holds(c, store, slot)) return false;
  if (f.should.length === 0) return true;
  for (const c of f.should) if (holds(c, store, slot)) return true;
  return false;
}
