import type { Collection } from '../../storage/collection.js';
import { valuesAt } from '../../storage/views/payload-paths.js';
import type { Filter } from '../filter/types.js';
import { forEachMatchingSlot } from './matching-slots.js';

export interface FacetHit {
  value: string | number | boolean;
  count: number;
}

/** How many of the points a filter admits hold each value at a key (a point counts once per value), most first. */
export function facetCounts(c: Collection, key: string, filter: Filter | null, limit: number): FacetHit[] {
  const counts = new Map<string | number | boolean, number>();
  const path = key.split('.').map((part) => part.replace(/\[\]$/, ''));
  forEachMatchingSlot(c, filter, (slot) => {
    const seen = new Set<unknown>();
    for (const v of valuesAt(c.store.payloads[slot] ?? null, path)) {
      if ((typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') || seen.has(v)) continue;
      seen.add(v);
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
  });
  return [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (String(a.value) < String(b.value) ? -1 : String(a.value) > String(b.value) ? 1 : 0))
    .slice(0, limit);
}
