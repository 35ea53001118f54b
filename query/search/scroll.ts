import type { Collection } from '../../storage/collection.js';
import { matchesFilter } from '../filter/evaluate-filter.js';
import type { Filter } from '../filter/types.js';

export interface ScrollPage {
  slots: number[];
  /** The id of the first point of the next page, or null on the last page. */
  nextOffset: number | null;
}

function lowerBound(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Points in ascending id order from `offset` (inclusive), up to `limit` that pass the filter. */
export function scrollCollection(c: Collection, offset: number, limit: number, filter: Filter | null): ScrollPage {
  const { store } = c;
  const ids = store.sortedIds();
  const slots: number[] = [];
  for (let i = lowerBound(ids, offset); i < ids.length; i++) {
    const slot = store.slotOf(ids[i]!);
    if (filter && !matchesFilter(filter, store, slot)) continue;
    if (slots.length === limit) return { slots, nextOffset: ids[i]! };
    slots.push(slot);
  }
  return { slots, nextOffset: null };
}
