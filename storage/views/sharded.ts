import { Directory, type Bucket } from './extendible.js';

/**
 * Map and Set that hold more than a JS Map's 2^24 entries: one Map (or Set) until it holds
 * `shardLimit` entries (2^23 unless told), then shards chosen by a hash of the key in an
 * extendible directory (extendible.ts): a shard that fills is divided in two, moving its own
 * entries only. Below the limit a lookup is one Map lookup, no hashing. Views that live as long
 * as the database take `LIVE_SHARD_LIMIT` (16,384): a write that fills a shard then moves at
 * most that many entries (2-3 ms) while requests wait, where one Map growing past a million
 * entries rehashed them all (100-250 ms, and twice that at each doubling).
 */
const SHARD_LIMIT = 1 << 23;
export const LIVE_SHARD_LIMIT = 1 << 14;

const bits = new Float64Array(1);
const halves = new Uint32Array(bits.buffer);
/** Code units of a long string's start and end that its hash reads (and its length). */
const HASHED_ENDS = 64;

function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * A 32-bit hash of a key: a number's float64 bits, a string's UTF-16 units (FNV-1a; of a long
 * string, its first and last 64 and its length, so that payload texts of pages cost no more), a
 * boolean.
 */
export function hashKey(key: unknown): number {
  if (typeof key === 'number') {
    bits[0] = key === 0 ? 0 : key;
    return mix(halves[0]! ^ Math.imul(halves[1]!, 0x9e3779b1));
  }
  if (typeof key === 'string') {
    let h = 0x811c9dc5;
    const n = key.length;
    if (n <= 2 * HASHED_ENDS) {
      for (let i = 0; i < n; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    } else {
      for (let i = 0; i < HASHED_ENDS; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
      for (let i = n - HASHED_ENDS; i < n; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
      h = Math.imul(h ^ n, 0x01000193);
    }
    return mix(h);
  }
  return key ? 1 : 0;
}

class MapShard<K, V> extends Map<K, V> implements Bucket {
  depth = 0;
}

class SetShard<T> extends Set<T> implements Bucket {
  depth = 0;
}

/** A full shard made two, by bit `bit` of each key's hash (one function for every map: none is kept per map). */
function divideMap<K, V>(shard: MapShard<K, V>, bit: number): [MapShard<K, V>, MapShard<K, V>] {
  const low = new MapShard<K, V>();
  const high = new MapShard<K, V>();
  for (const [k, v] of shard) (hashKey(k) & (1 << bit) ? high : low).set(k, v);
  return [low, high];
}

function divideSet<T>(shard: SetShard<T>, bit: number): [SetShard<T>, SetShard<T>] {
  const low = new SetShard<T>();
  const high = new SetShard<T>();
  for (const v of shard) (hashKey(v) & (1 << bit) ? high : low).add(v);
  return [low, high];
}

interface Container<K> extends Bucket {
  has(key: K): boolean;
  delete(key: K): boolean;
}

/** The sharding shared by ShardedMap and ShardedSet. */
abstract class Shards<K, C extends Container<K>> {
  protected readonly directory: Directory<C>;
  private count = 0;

  constructor(first: C, private readonly shardLimit: number, divide: (shard: C, bit: number) => [C, C]) {
    this.directory = new Directory(first, shardLimit, divide);
  }

  get size(): number {
    return this.count;
  }

  protected shardOf(key: K): C {
    const { directory } = this;
    return directory.depth === 0 ? directory.buckets[0]! : directory.of(hashKey(key));
  }

  /** The shard a new key goes to, after dividing it when full. */
  protected shardForNew(key: K): C {
    this.count++;
    const { directory } = this;
    const only = directory.depth === 0 ? directory.buckets[0]! : null;
    return only && only.size < this.shardLimit ? only : directory.forNew(hashKey(key));
  }

  has(key: K): boolean {
    return this.shardOf(key).has(key);
  }

  delete(key: K): boolean {
    if (!this.shardOf(key).delete(key)) return false;
    this.count--;
    return true;
  }
}

export class ShardedMap<K, V> extends Shards<K, MapShard<K, V>> {
  constructor(shardLimit = SHARD_LIMIT) {
    super(new MapShard<K, V>(), shardLimit, divideMap);
  }

  get(key: K): V | undefined {
    return this.shardOf(key).get(key);
  }

  set(key: K, value: V): this {
    const shard = this.shardOf(key);
    if (shard.has(key)) shard.set(key, value);
    else this.shardForNew(key).set(key, value);
    return this;
  }

  entries(): IterableIterator<[K, V]> {
    return this.directory.depth === 0 ? this.directory.buckets[0]!.entries() : this.allEntries();
  }

  private *allEntries(): IterableIterator<[K, V]> {
    for (const shard of this.directory.distinct()) yield* shard.entries();
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }
}

export class ShardedSet<T> extends Shards<T, SetShard<T>> implements ReadonlySet<T> {
  constructor(shardLimit = SHARD_LIMIT) {
    super(new SetShard<T>(), shardLimit, divideSet);
  }

  add(value: T): this {
    if (!this.shardOf(value).has(value)) this.shardForNew(value).add(value);
    return this;
  }

  values(): IterableIterator<T> {
    return this.directory.depth === 0 ? this.directory.buckets[0]!.values() : this.allValues();
  }

  private *allValues(): IterableIterator<T> {
    for (const shard of this.directory.distinct()) yield* shard.values();
  }

  keys(): IterableIterator<T> {
    return this.values();
  }

  *entries(): IterableIterator<[T, T]> {
    for (const v of this.values()) yield [v, v];
  }

  forEach(visit: (value: T, same: T, set: ReadonlySet<T>) => void): void {
    for (const v of this.values()) visit(v, v, this);
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this.values();
  }
}
