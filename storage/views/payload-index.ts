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

/** Slots a step of buildFields adds to a text field (well under a millisecond for a sentence each), and to a field only counted. */
const TEXT_SLOTS = 32;
const COUNT_SLOTS = 1024;

/** A declared field: the points holding a value there and, for a text field, token → slots; over the slots below `built` (Infinity: every slot; less while buildFields is under way). */
interface DeclaredField {
  path: string[];
  holders: number;
  tokens: ShardedMap<string, ShardedSet<number>> | null;
  built: number;
}

/**
 * Whether a payload holds a value other than null at a path (Qdrant counts such points in
 * payload_schema). A top-level key, the usual field, is read without valuesAt's arrays: this runs
 * for every declared field on every write.
 */
function holdsValue(payload: Payload, path: readonly string[]): boolean {
  if (path.length > 1) return valuesAt(payload, path).some((v) => v !== null);
  if (!Object.hasOwn(payload, path[0]!)) return false;
  const value = payload[path[0]!];
  if (!Array.isArray(value)) return value !== null;
  for (const item of value) if (item !== null) return true;
  return false;
}

/**
 * Equality index over every scalar payload value (strings, numbers, booleans): path → value →
 * slots. Values and slots are sharded: a path may hold more than 2^24 distinct values, a value
 * more than 2^24 points. Beside it, the declared fields (declareField): their holders and a
 * text field's words.
 */
export class PayloadIndex {
  private readonly byPath = new Map<string, ShardedMap<Scalar, Slots>>();
  /** The declared fields (payload indexes): how many points hold each, and a text field's tokens. */
  private readonly declared = new Map<string, DeclaredField>();
  /** Declared fields still being built (buildFields). */
  private building = 0;

  /** The tokens of the strings at a field of a payload (a dotted path, arrays looked through). */
  private static tokensAt(payload: Payload, path: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (const v of valuesAt(payload, path)) if (typeof v === 'string') for (const t of textTokens(v)) out.add(t);
    return out;
  }

  /**
   * Declares a field (a payload index): from now on it counts the points holding a value there
   * (holders: Qdrant's payload_schema `points`) and, for `text`, indexes their words. `whole`:
   * it holds every slot already (none is stored yet, or the caller adds each one next); else
   * buildFields adds the slots stored now a step at a time, and until it has passed them all
   * it counts only those it has passed, answers no text lookup (textLookup: null, so filters
   * read the payloads) and takes in only the changes of slots it has passed.
   */
  declareField(field: string, text: boolean, whole: boolean): void {
    if (this.declared.has(field)) this.dropField(field);
    this.declared.set(field, { path: field.split('.'), holders: 0, tokens: text ? new ShardedMap(LIVE_SHARD_LIMIT) : null, built: whole ? Infinity : 0 });
    if (!whole) this.building++;
  }

  dropField(field: string): void {
    const entry = this.declared.get(field);
    if (entry && entry.built !== Infinity) this.building--;
    this.declared.delete(field);
  }

  /** Whether a declared field is being built (buildFields). */
  get buildingFields(): boolean {
    return this.building > 0;
  }

  /** How many points hold a value at a declared field (of the slots built so far); 0 for a field not declared. */
  holders(field: string): number {
    return this.declared.get(field)?.holders ?? 0;
  }

  /**
   * One step of each declared field being built: the next slots in order (TEXT_SLOTS for a text
   * field, COUNT_SLOTS for one only counted), each live slot's payload read with `payloadAt`
   * (null: no live point there); a field that has passed `slotCount` is whole. Answers whether
   * one is still being built.
   */
  buildFields(slotCount: number, payloadAt: (slot: number) => Payload | null): boolean {
    for (const entry of this.declared.values()) {
      if (entry.built !== Infinity) this.buildUpTo(entry, Math.min(slotCount, entry.built + (entry.tokens ? TEXT_SLOTS : COUNT_SLOTS)), slotCount, payloadAt);
    }
    return this.building > 0;
  }

  /** Builds one declared field over every stored slot now (a store of a few points). */
  buildFieldNow(field: string, slotCount: number, payloadAt: (slot: number) => Payload | null): void {
    const entry = this.declared.get(field);
    if (entry && entry.built !== Infinity) this.buildUpTo(entry, slotCount, slotCount, payloadAt);
  }

  /** Adds the slots from the field's `built` to `to`; past `slotCount`, the field is whole. */
  private buildUpTo(entry: DeclaredField, to: number, slotCount: number, payloadAt: (slot: number) => Payload | null): void {
    for (let slot = entry.built; slot < to; slot++) {
      const payload = payloadAt(slot);
      if (payload) this.addField(entry, slot, payload);
    }
    entry.built = to;
    if (to < slotCount) return;
    entry.built = Infinity;
    this.building--;
  }

  private addField(entry: DeclaredField, slot: number, payload: Payload): void {
    if (!holdsValue(payload, entry.path)) return;
    entry.holders++;
    if (entry.tokens) this.addTokens(entry, slot, payload);
  }

  private removeField(entry: DeclaredField, slot: number, payload: Payload): void {
    if (!holdsValue(payload, entry.path)) return;
    entry.holders--;
    const { tokens } = entry;
    if (!tokens) return;
    for (const t of PayloadIndex.tokensAt(payload, entry.path)) {
      const slots = tokens.get(t);
      slots?.delete(slot);
      if (slots?.size === 0) tokens.delete(t);
    }
  }

  private addTokens(entry: DeclaredField, slot: number, payload: Payload): void {
    const tokens = entry.tokens!;
    for (const t of PayloadIndex.tokensAt(payload, entry.path)) {
      let slots = tokens.get(t);
      if (!slots) tokens.set(t, (slots = new ShardedSet(LIVE_SHARD_LIMIT)));
      slots.add(slot);
    }
  }

  /**
   * The slots holding every token (`some`: one at least) at a text-indexed field; none for no
   * tokens; null when the field has no text index, or one still being built.
   */
  textLookup(field: string, query: readonly string[], need: 'every' | 'some' = 'every'): ReadonlySet<number> | null {
    const entry = this.declared.get(field);
    const tokens = entry?.tokens;
    if (!tokens || entry.built !== Infinity) return null;
    const sets = query.map((t) => tokens.get(t) ?? NONE).sort((a, b) => a.size - b.size);
    if (need === 'some') {
      const union = new ShardedSet<number>(LIVE_SHARD_LIMIT);
      for (const set of sets) for (const slot of set) union.add(slot);
      return union;
    }
    const out = new Set<number>();
    for (const slot of sets[0] ?? NONE) if (sets.every((s) => s.has(slot))) out.add(slot);
    return out;
  }

  add(slot: number, payload: Payload): void {
    for (const entry of this.declared.values()) if (slot < entry.built) this.addField(entry, slot, payload);
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
    for (const entry of this.declared.values()) if (slot < entry.built) this.removeField(entry, slot, payload);
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
