import type { Collection } from '../../storage/collection.js';
import { LIVE } from '../../storage/views/point-store.js';
import { candidateSlots } from '../filter/candidates.js';
import { matchesFilter } from '../filter/evaluate-filter.js';
import type { Filter } from '../filter/types.js';

/** Calls visit for every live slot the filter admits, using the payload index where it can. */
export function forEachMatchingSlot(c: Collection, filter: Filter | null, visit: (slot: number) => void): void {
  const { store } = c;
  const candidates = filter ? candidateSlots(filter, c) : null;
  if (candidates) {
    for (const slot of candidates) if (store.state[slot] === LIVE && matchesFilter(filter!, c, slot)) visit(slot);
    return;
  }
  for (let slot = 0; slot < store.slotCount; slot++) {
    if (store.state[slot] === LIVE && (!filter || matchesFilter(filter, c, slot))) visit(slot);
  }
}

export function countMatching(c: Collection, filter: Filter | null): number {
  if (!filter) return c.store.liveCount;
  let n = 0;
  forEachMatchingSlot(c, filter, () => n++);
  return n;
}
