import type { Payload } from '../events/types.js';
import { forEachIndexedValue, type Scalar } from './payload-paths.js';
import { ShardedMap, ShardedSet } from './sharded.js';

const NONE: ReadonlySet<number> = new Set();

/**
 * Equality index over every scalar payload value (strings, numbers, booleans): path → value →
 * slots. Values and slots are sharded: a path may hold more than 2^24 distinct values, a value
 * more than 2^24 points.
 */
export class PayloadIndex {
  private readonly byPath = new Map<string, ShardedMap<Scalar, ShardedSet<number>>>();

  add(slot: number, payload: Payload): void {
    forEachIndexedValue(payload, (path, value) => {
      let values = this.byPath.get(path);
      if (!values) this.byPath.set(path, (values = new ShardedMap()));
      let slots = values.get(value);
      if (!slots) values.set(value, (slots = new ShardedSet()));
      slots.add(slot);
    });
  }

  remove(slot: number, payload: Payload): void {
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
}
