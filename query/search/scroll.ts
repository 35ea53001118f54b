import type { PointId } from '../../storage/point-id.js';
import type { Collection } from '../../storage/collection.js';
import { matchesFilter } from '../filter/evaluate-filter.js';
import type { Filter } from '../filter/types.js';

export interface ScrollPage {
  slots: number[];
  /** The id of the first point of the next page, or null on the last page. */
  nextOffset: PointId | null;
}

/** Points in ascending id order (integers, then UUIDs) from `offset` (inclusive), up to `limit` that pass the filter. */
export function scrollCollection(c: Collection, offset: PointId, limit: number, filter: Filter | null): ScrollPage {
  const { store } = c;
  const sorted = store.sortedSlots();
  const slots: number[] = [];
  for (let i = store.lowerBound(offset); i < sorted.length; i++) {
    const slot = sorted[i]!;
    if (filter && !matchesFilter(filter, c, slot)) continue;
    if (slots.length === limit) return { slots, nextOffset: store.idOf(slot) };
    slots.push(slot);
  }
  return { slots, nextOffset: null };
}
