import type { Collection } from '../../storage/collection.js';
import { nextTurn, runInSlices, type Sliced } from '../../storage/codec/slices.js';
import { LIVE } from '../../storage/views/point-store.js';
import { candidateSlots } from './candidates.js';
import { matchesFilter } from './evaluate-filter.js';
import type { Condition, Filter } from './types.js';

/** Filters whose matches are kept per collection (the most recently used). */
const KEPT = 8;
/** The times a filter is searched before its matches are made. */
const KEEP_AFTER = 2;
/** Filters searched fewer times than that, counted per collection (the most recent). */
const COUNTED = 64;
/** Slots a kept filter reads again to catch up: this share of the slots (and this many at least); past it, it is made anew. */
const CATCH_UP_SHARE = 1 / 16;
const CATCH_UP_LEAST = 1024;
/** Slots read between two checks of the clock while matches are made. */
const SLOTS_PER_STEP = 1024;
const BUILD_SLICE_MS = 1;

/** A filter's matches as bits over the collection's slots, current up to `mark` in its payload journal. */
interface Kept {
  filter: Filter;
  bits: Uint32Array;
  /** The bits set: the live points that match. */
  count: number;
  mark: number;
  epoch: number;
}

/** Filters whose matches could not be made, over every collection (a metric). */
let failures = 0;
export const filterBitsFailures = (): number => failures;

const newWords = (words: number): Uint32Array => new Uint32Array(typeof SharedArrayBuffer === 'function' ? new SharedArrayBuffer(words * 4) : new ArrayBuffer(words * 4));

/** Room for the collection's slots and a half more (one word at least). */
const wordsFor = (c: Collection): number => Math.max(1, Math.ceil((c.store.slotCount * 1.5) / 32));

/** Whether a filter reads only payloads and ids, which the payload journal follows (a vector's presence is not). */
function followable(f: Filter): boolean {
  const ok = (c: Condition): boolean => (c.kind === 'has_vector' ? false : c.kind === 'nested' || c.kind === 'nested_array' ? followable(c.filter) : true);
  return [...f.must, ...f.should, ...f.mustNot, ...(f.minShould?.conditions ?? [])].every(ok);
}

/** Keys made, by filter object: a search asks for its filter's key more than once. */
const keys = new WeakMap<Filter, string>();

/** A filter as text, the same for the same filter (its sets written as lists in their order). */
export function filterKey(f: Filter): string {
  let key = keys.get(f);
  if (key === undefined) keys.set(f, (key = JSON.stringify(f, (_, v: unknown) => (v instanceof Set ? { set: [...v] } : typeof v === 'bigint' ? `${v}n` : v))));
  return key;
}

/**
 * The matches of the filters a collection is searched with again and again (a tenant's id, a
 * category), as bits over its slots in shared memory, so that a filtered graph walk can run on a
 * search worker, which reads the bits instead of payloads it does not have. A filter's bits are
 * made the second time it is searched, in slices beside other requests (the searches meanwhile
 * walk in place), and kept current through the collection's payload journal: before each use the
 * slots changed since are read again, so a search sees every write acknowledged before it. A
 * point's bit is set while it is live and matches; a slot freed and given to another point is a
 * change like any other. The most recently used KEPT filters are kept.
 */
export class FilterBitsets {
  private readonly kept = new Map<string, Kept>();
  private readonly counted = new Map<string, number>();
  private readonly making = new Set<string>();

  constructor(private readonly c: Collection) {}

  /** The filter's bits, current now; null while they are not made (search in place). */
  bitsFor(filter: Filter): Uint32Array | null {
    if (!followable(filter)) return null;
    const key = filterKey(filter);
    const kept = this.kept.get(key);
    if (kept) {
      this.kept.delete(key);
      if (this.catchUp(kept)) {
        this.kept.set(key, kept);
        this.forgetRead();
        return kept.bits;
      }
      this.startMaking(key, filter);
      return null;
    }
    if (this.making.has(key)) return null;
    const times = (this.counted.get(key) ?? 0) + 1;
    this.counted.delete(key);
    if (times >= KEEP_AFTER) this.startMaking(key, filter);
    else {
      this.counted.set(key, times);
      if (this.counted.size > COUNTED) this.counted.delete(this.counted.keys().next().value!);
    }
    return null;
  }

  /**
   * How many live points match a kept filter now (its bits brought current first, as bitsFor
   * does); null when it is not kept or too far behind (bitsFor then makes it anew). A search
   * plans with it instead of sampling the filter.
   */
  matchCount(filter: Filter): number | null {
    const kept = this.kept.get(filterKey(filter));
    return kept && this.catchUp(kept) ? kept.count : null;
  }

  /** How many filters are kept (tests, metrics). */
  get size(): number {
    return this.kept.size;
  }

  /** Reads again the slots changed since the bits were current; false when they must be made anew. */
  private catchUp(kept: Kept): boolean {
    const journal = this.c.payloadChanges;
    if (kept.epoch !== journal.epoch) return false;
    const changed = journal.since(kept.mark);
    if (!changed || changed.length > this.catchUpLimit()) return false;
    if (kept.bits.length * 32 < this.c.store.slotCount) {
      const grown = newWords(wordsFor(this.c));
      grown.set(kept.bits);
      kept.bits = grown;
    }
    for (const slot of changed) this.setBit(kept, slot);
    kept.mark = journal.end;
    return true;
  }

  /** The most changed slots a kept filter reads again to catch up (past it its bits are made anew); the journal keeps no more. */
  private catchUpLimit(): number {
    return Math.max(CATCH_UP_LEAST, this.c.store.slotCount * CATCH_UP_SHARE);
  }

  private setBit(kept: Kept, slot: number): void {
    const { bits } = kept;
    const on = this.c.store.state[slot] === LIVE && matchesFilter(kept.filter, this.c, slot);
    const word = slot >>> 5;
    const bit = 1 << (slot & 31);
    const was = (bits[word]! & bit) !== 0;
    if (on === was) return;
    bits[word] = on ? bits[word]! | bit : bits[word]! & ~bit;
    kept.count += on ? 1 : -1;
  }

  /** A filter whose bits could not be made is searched in place, as before they were asked for, and counted (filterBitsFailures). */
  private startMaking(key: string, filter: Filter): void {
    this.make(key, filter).catch(() => {
      failures++;
    });
  }

  /** Makes a filter's bits in slices; the slots changed meanwhile are read again at its first use. */
  private async make(key: string, filter: Filter): Promise<void> {
    const journal = this.c.payloadChanges;
    journal.watching = true;
    journal.limit = Infinity;
    this.making.add(key);
    try {
      const made: Kept = { filter, bits: newWords(wordsFor(this.c)), count: 0, mark: journal.end, epoch: journal.epoch };
      await runInSlices(this.fill(made), BUILD_SLICE_MS, nextTurn);
      this.kept.set(key, made);
      if (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value!);
    } finally {
      this.making.delete(key);
      this.forgetRead();
    }
  }

  private *fill(made: Kept): Sliced {
    const candidates = candidateSlots(made.filter, this.c);
    const slots = candidates ? Int32Array.from(candidates) : null;
    const count = slots ? slots.length : Math.min(this.c.store.slotCount, made.bits.length * 32);
    for (let i = 0; i < count; i++) {
      const slot = slots ? slots[i]! : i;
      if (slot < made.bits.length * 32) this.setBit(made, slot);
      if ((i + 1) % SLOTS_PER_STEP === 0) yield;
    }
  }

  /** Lets the journal drop what every kept filter has read, and stop keeping changes once nothing reads them. */
  private forgetRead(): void {
    const journal = this.c.payloadChanges;
    if (this.kept.size === 0 && this.making.size === 0) {
      journal.watching = false;
      return;
    }
    // While bits are being made the journal keeps every change since they began (read at their first use).
    journal.limit = this.making.size > 0 ? Infinity : this.catchUpLimit() + 1;
    if (this.making.size > 0) return;
    let oldest = journal.end;
    for (const kept of this.kept.values()) oldest = Math.min(oldest, kept.mark);
    journal.forget(oldest);
  }
}

const perCollection = new WeakMap<Collection, FilterBitsets>();

/** The collection's kept filter matches. */
export function filterBitsets(c: Collection): FilterBitsets {
  let found = perCollection.get(c);
  if (!found) perCollection.set(c, (found = new FilterBitsets(c)));
  return found;
}
