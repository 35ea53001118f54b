import { textTokens } from '../text-tokens.js';
import type { Payload } from '../events/types.js';
import { forEachIndexedValue, valuesAt, type Scalar } from './payload-paths.js';
import { LIVE_SHARD_LIMIT, ShardedMap, ShardedSet } from './sharded.js';

const NONE: ReadonlySet<number> = new Set();

/**
 * The slots of one value: the slot itself while only one point holds it, a set from the second.
 * Most values of a real payload are held by one point (ids, timestamps, text), and a set per
 * value cost about 300 bytes of heap each: 300 MB for a million points with one such field.
 */
type Slots = number | ShardedSet<number>;

const setOf = (slots: Slots): ReadonlySet<number> => (typeof slots === 'number' ? new Set([slots]) : slots);

/** A full-text index: token → slots, holding the slots below `built` (Infinity: every slot; less while buildText is under way). */
interface TextIndex {
  tokens: ShardedMap<string, ShardedSet<number>>;
  built: number;
}

/**
 * Equality index over every scalar payload value (strings, numbers, booleans): path → value →
 * slots. Values and slots are sharded: a path may hold more than 2^24 distinct values, a value
 * more than 2^24 points.
 */
export class PayloadIndex {
  private readonly byPath = new Map<string, ShardedMap<Scalar, Slots>>();
  /** Full-text indexes of the fields declared `text`: token → slots. */
  private readonly byToken = new Map<string, TextIndex>();
  /** Text indexes still being built (buildText). */
  private building = 0;

  /** The tokens of the strings at a field of a payload (a dotted path, arrays looked through). */
  private static tokensAt(payload: Payload, field: string): Set<string> {
    const out = new Set<string>();
    for (const v of valuesAt(payload, field.split('.'))) if (typeof v === 'string') for (const t of textTokens(v)) out.add(t);
    return out;
  }

  /**
   * Starts a full-text index of a field, empty. `whole`: it holds every slot already (none is
   * stored yet, or the caller adds each one next); else buildText adds the slots stored now a
   * few at a time, and until it has passed them all the index answers no lookup (textLookup:
   * null, so filters read the payloads) and keeps only the changes of slots it has passed.
   */
  addTextField(field: string, whole: boolean): void {
    if (this.byToken.has(field)) this.dropTextField(field);
    this.byToken.set(field, { tokens: new ShardedMap(LIVE_SHARD_LIMIT), built: whole ? Infinity : 0 });
    if (!whole) this.building++;
  }

  dropTextField(field: string): void {
    const index = this.byToken.get(field);
    if (index && index.built !== Infinity) this.building--;
    this.byToken.delete(field);
  }

  /** Whether a text index is being built (buildText). */
  get buildingText(): boolean {
    return this.building > 0;
  }

  /**
   * Adds up to `most` slots, in order, to the text indexes being built, reading each slot's
   * payload with `payloadAt` (null: no live point there); an index that has passed `slotCount`
   * is whole. Answers whether one is still being built.
   */
  buildText(most: number, slotCount: number, payloadAt: (slot: number) => Payload | null): boolean {
    for (const [field, index] of this.byToken) {
      if (index.built === Infinity) continue;
      const to = Math.min(slotCount, index.built + most);
      for (let slot = index.built; slot < to; slot++) {
        const payload = payloadAt(slot);
        if (payload) this.addTokens(field, index.tokens, slot, payload);
      }
      index.built = to;
      if (to < slotCount) continue;
      index.built = Infinity;
      this.building--;
    }
    return this.building > 0;
  }

  private addTokens(field: string, tokens: ShardedMap<string, ShardedSet<number>>, slot: number, payload: Payload): void {
    for (const t of PayloadIndex.tokensAt(payload, field)) {
      let slots = tokens.get(t);
      if (!slots) tokens.set(t, (slots = new ShardedSet(LIVE_SHARD_LIMIT)));
      slots.add(slot);
    }
  }

  /** The slots holding every token at a text-indexed field; null when the field has no text index, or one still being built. */
  textLookup(field: string, query: readonly string[]): ReadonlySet<number> | null {
    const index = this.byToken.get(field);
    if (!index || index.built !== Infinity) return null;
    const { tokens } = index;
    const sets = query.map((t) => tokens.get(t) ?? NONE).sort((a, b) => a.size - b.size);
    const out = new Set<number>();
    for (const slot of sets[0] ?? NONE) if (sets.every((s) => s.has(slot))) out.add(slot);
    return out;
  }

  add(slot: number, payload: Payload): void {
    for (const [field, { tokens, built }] of this.byToken) if (slot < built) this.addTokens(field, tokens, slot, payload);
    forEachIndexedValue(payload, (path, value) => {
      let values = this.byPath.get(path);
      if (!values) this.byPath.set(path, (values = new ShardedMap(LIVE_SHARD_LIMIT)));
      const slots = values.get(value);
      if (slots === undefined) values.set(value, slot);
      else if (typeof slots !== 'number') slots.add(slot);
      else if (slots !== slot) values.set(value, new ShardedSet<number>(LIVE_SHARD_LIMIT).add(slots).add(slot));
    });
  }

  remove(slot: number, payload: Payload): void {
    for (const [field, { tokens, built }] of this.byToken) {
      if (slot >= built) continue;
      for (const t of PayloadIndex.tokensAt(payload, field)) {
        const slots = tokens.get(t);
        slots?.delete(slot);
        if (slots?.size === 0) tokens.delete(t);
      }
    }
    forEachIndexedValue(payload, (path, value) => {
      const values = this.byPath.get(path);
      const slots = values?.get(value);
      if (!values || slots === undefined) return;
      if (typeof slots === 'number') {
        if (slots === slot) values.delete(value);
      } else {
        slots.delete(slot);
        if (slots.size === 1) values.set(value, slots.values().next().value!);
      }
      if (values.size === 0) this.byPath.delete(path);
    });
  }

  /** The slots whose payload holds `value` at `path`. */
  lookup(path: string, value: Scalar): ReadonlySet<number> {
    const slots = this.byPath.get(path)?.get(value);
    return slots === undefined ? NONE : setOf(slots);
  }

  /** How many distinct values `path` holds. */
  distinctValues(path: string): number {
    return this.byPath.get(path)?.size ?? 0;
  }

  /** The slots whose payload holds a value at `path` that `admit` takes, read value by value. */
  lookupWhere(path: string, admit: (value: Scalar) => boolean): ReadonlySet<number> {
    const out = new ShardedSet<number>();
    for (const [value, slots] of this.byPath.get(path)?.entries() ?? []) {
      if (!admit(value)) continue;
      if (typeof slots === 'number') out.add(slots);
      else for (const s of slots) out.add(s);
    }
    return out;
  }
}
