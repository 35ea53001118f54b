import type { Collection } from '../../storage/collection.js';
import { ShardedSet } from '../../storage/views/sharded.js';
import { instantOf } from '../../storage/text-tokens.js';
import { within } from './evaluate-filter.js';
import { isTextIndex, keepsPhrases } from './text-match.js';
import type { Condition, Filter } from './types.js';

/** A field's values are read one by one for a range only while they are this share of the points at most. */
const RANGE_DISTINCT_SHARE = 1 / 8;

/** The slots a `must` range on a field declared integer, float or datetime admits, from the index's distinct values; null where reading them would not pay. */
function rangeSlots(cond: Extract<Condition, { kind: 'range' }>, c: Collection): ReadonlySet<number> | null {
  const declared = c.fieldIndexes.get(cond.key)?.type;
  if (declared !== 'integer' && declared !== 'float' && declared !== 'datetime') return null;
  const path = cond.path.join('.');
  if (c.payloadIndex.distinctValues(path) > Math.max(1, c.store.liveCount * RANGE_DISTINCT_SHARE)) return null;
  return c.payloadIndex.lookupWhere(path, (v) => {
    if (!cond.datetime) return typeof v === 'number' && within(v, cond);
    const ms = instantOf(v);
    return ms !== null && within(ms, cond);
  });
}

/**
 * The slots a `must` full-text match admits, from the field's text index (words: every one of
 * the query's for text and phrase, one at least for text_any; none for a phrase on an index
 * without positions, which matches nothing); null without a text index (a substring match, read
 * from the payloads) or while it is being built.
 */
function textSlots(cond: Extract<Condition, { kind: 'match_text' }>, c: Collection): ReadonlySet<number> | null {
  const index = c.fieldIndexes.get(cond.key);
  if (!isTextIndex(index)) return null;
  if (cond.mode === 'phrase' && !keepsPhrases(index)) return new Set();
  return c.payloadIndex.textLookup(cond.key, cond.tokens, cond.mode === 'text_any' ? 'some' : 'every');
}

/**
 * A superset of the slots that can match, from the payload index: the smallest set named by
 * a `must` equality (match value / any), a full-text match on a field with a text index, a
 * range on a field declared integer, float or datetime (by its distinct values, while they are
 * few), or has_id. Null when no `must` condition is indexable.
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
      const slots = textSlots(cond, c);
      if (slots) consider(slots);
    } else if (cond.kind === 'range') {
      const slots = rangeSlots(cond, c);
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
