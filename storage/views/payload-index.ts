import { textTokens } from '../text-tokens.js';
import type { Payload } from '../events/types.js';
import { forEachIndexedValue, valuesAt, type Scalar } from './payload-paths.js';
import { ShardedMap, ShardedSet } from './sharded.js';

const NONE: ReadonlySet<number> = new Set();

/**
 * Equality index over every scalar payload value (strings, numbers, booleans): path → value →
 * slots. Values and slots are sharded: a path may hold more than 2^24 distinct values, a value
 * more than 2^24 points.
 */
export class PayloadIndex {
  private readonly byPath = new Map<string, ShardedMap<Scalar, ShardedSet<number>>>();
  /** Full-text indexes of the fields declared `text`: token → slots. */
  private readonly byToken = new Map<string, ShardedMap<string, ShardedSet<number>>>();

  /** The tokens of the strings at a field of a payload (a dotted path, arrays looked through). */
  private static tokensAt(payload: Payload, field: string): Set<string> {
    const out = new Set<string>();
    for (const v of valuesAt(payload, field.split('.'))) if (typeof v === 'string') for (const t of textTokens(v)) out.add(t);
    return out;
  }

  /** Starts a full-text index of a field over the given slots and payloads. */
  addTextField(field: string, each: (visit: (slot: number, payload: Payload) => void) => void): void {
    const tokens = new ShardedMap<string, ShardedSet<number>>();
    this.byToken.set(field, tokens);
    each((slot, payload) => this.addTokens(field, tokens, slot, payload));
  }

  dropTextField(field: string): void {
    this.byToken.delete(field);
  }

  private addTokens(field: string, tokens: ShardedMap<string, ShardedSet<number>>, slot: number, payload: Payload): void {
    for (const t of PayloadIndex.tokensAt(payload, field)) {
      let slots = tokens.get(t);
      if (!slots) tokens.set(t, (slots = new ShardedSet()));
      slots.add(slot);
    }
  }

  /** The slots holding every token at a text-indexed field; null when the field has no text index. */
  textLookup(field: string, query: readonly string[]): ReadonlySet<number> | null {
    const tokens = this.byToken.get(field);
    if (!tokens) return null;
    const sets = query.map((t) => tokens.get(t) ?? NONE).sort((a, b) => a.size - b.size);
    const out = new Set<number>();
    for (const slot of sets[0] ?? NONE) if (sets.every((s) => s.has(slot))) out.add(slot);
    return out;
  }

  add(slot: number, payload: Payload): void {
    for (const [field, tokens] of this.byToken) this.addTokens(field, tokens, slot, payload);
    forEachIndexedValue(payload, (path, value) => {
      let values = this.byPath.get(path);
      if (!values) this.byPath.set(path, (values = new ShardedMap()));
      let slots = values.get(value);
      if (!slots) values.set(value, (slots = new ShardedSet()));
      slots.add(slot);
    });
  }

  remove(slot: number, payload: Payload): void {
    for (const [field, tokens] of this.byToken) {
      for (const t of PayloadIndex.tokensAt(payload, field)) {
        const slots = tokens.get(t);
        slots?.delete(slot);
        if (slots?.size === 0) tokens.delete(t);
      }
    }
    forEachIndexedValue(payload, (path, value) => {
      const values = this.byPath.get(path);
      const slots = values?.get(value);
      if (!values || !slots) return;
      slots.delete(slot);
      if (slots.size === 0) values.delete(value);
      if (values.size === 0) this.byPath.delete(path);
    });
  }

  /** The slots whose payload holds `value` at `path`. */
  lookup(path: string, value: Scalar): ReadonlySet<number> {
    return this.byPath.get(path)?.get(value) ?? NONE;
  }

  /** How many distinct values `path` holds. */
  distinctValues(path: string): number {
    return this.byPath.get(path)?.size ?? 0;
  }

  /** The slots whose payload holds a value at `path` that `admit` takes, read value by value. */
  lookupWhere(path: string, admit: (value: Scalar) => boolean): ReadonlySet<number> {
    const out = new ShardedSet<number>();
    for (const [value, slots] of this.byPath.get(path)?.entries() ?? []) if (admit(value)) for (const s of slots) out.add(s);
    return out;
  }
}
