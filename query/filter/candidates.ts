import type { Collection } from '../../storage/collection.js';
import { ShardedSet } from '../../storage/views/sharded.js';
import type { Filter } from './types.js';

/**
 * A superset of the slots that can match, from the payload index: the smallest set named by
 * a `must` equality (match value / any), a full-text match on a field with a text index, or
 * has_id. Null when no `must` condition is indexable.
 */
export function candidateSlots(filter: Filter, c: Collection): ReadonlySet<number> | null {
  let best: ReadonlySet<number> | null = null;
  const consider = (set: ReadonlySet<number>): void => {
    if (best === null || set.size < best.size) best = set;
  };
  for (const cond of filter.must) {
    if (cond.kind === 'match') consider(c.payloadIndex.lookup(cond.path.join('.'), cond.value));
    else if (cond.kind === 'match_any') {
      const union = new ShardedSet<number>();
      for (const v of cond.values) for (const s of c.payloadIndex.lookup(cond.path.join('.'), v)) union.add(s);
      consider(union);
    } else if (cond.kind === 'match_text') {
      const slots = c.payloadIndex.textLookup(cond.key, cond.tokens);
      if (slots) consider(slots);
    } else if (cond.kind === 'has_id') {
      const slots = new ShardedSet<number>();
      for (const id of cond.ids) {
        const slot = c.store.slotOf(id);
        if (slot >= 0) slots.add(slot);
      }
      consider(slots);
    }
  }
  return best;
}
