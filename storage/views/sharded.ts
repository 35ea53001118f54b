/**
 * Map and Set that hold more than a JS Map's 2^24 entries: one Map (or Set) until it holds
 * `shardLimit` entries (2^23 unless told), then shards chosen by a hash of the key, doubled (and
 * redistributed) each time a shard fills. Below the limit a lookup is one Map lookup, no hashing.
 */
const SHARD_LIMIT = 1 << 23;
const MAX_SHARDS = 1 << 16;

const bits = new Float64Array(1);
const halves = new Uint32Array(bits.buffer);

function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** A 32-bit hash of a key: a number's float64 bits, a string's UTF-16 units (FNV-1a), a boolean. */
export function hashKey(key: unknown): number {
  if (typeof key === 'number') {
    bits[0] = key === 0 ? 0 : key;
    return mix(halves[0]! ^ Math.imul(halves[1]!, 0x9e3779b1));
  }
  if (typeof key === 'string') {
    let h = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    return mix(h);
  }
  return key ? 1 : 0;
}

interface Container<K> {
  readonly size: number;
  has(key: K): boolean;
  delete(key: K): boolean;
}

/** The sharding shared by ShardedMap and ShardedSet. */
abstract class Shards<K, C extends Container<K>> {
  protected shards: C[];
  private count = 0;

  constructor(private readonly make: () => C, private readonly shardLimit: number) {
    this.shards = [make()];
  }

  get size(): number {
    return this.count;
  }

  protected shardOf(key: K): C {
    const { shards } = this;
    return shards.length === 1 ? shards[0]! : shards[hashKey(key) & (shards.length - 1)]!;
  }

  /** The shard a new key goes to, after splitting when that one is full. */
  protected shardForNew(key: K): C {
    let shard = this.shardOf(key);
    if (shard.size >= this.shardLimit && this.shards.length < MAX_SHARDS) {
      this.split();
      shard = this.shardOf(key);
    }
    this.count++;
    return shard;
  }

  protected abstract moveAll(from: C, place: (key: K) => C): void;

  private split(): void {
    const old = this.shards;
    this.shards = Array.from({ length: old.length * 2 }, this.make);
    for (const shard of old) this.moveAll(shard, (key) => this.shardOf(key));
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

export class ShardedMap<K, V> extends Shards<K, Map<K, V>> {
  constructor(shardLimit = SHARD_LIMIT) {
    super(() => new Map<K, V>(), shardLimit);
  }

  protected moveAll(from: Map<K, V>, place: (key: K) => Map<K, V>): void {
    for (const [k, v] of from) place(k).set(k, v);
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
    return this.shards.length === 1 ? this.shards[0]!.entries() : this.allEntries();
  }

  private *allEntries(): IterableIterator<[K, V]> {
    for (const shard of this.shards) yield* shard.entries();
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }
}

export class ShardedSet<T> extends Shards<T, Set<T>> implements ReadonlySet<T> {
  constructor(shardLimit = SHARD_LIMIT) {
    super(() => new Set<T>(), shardLimit);
  }

  protected moveAll(from: Set<T>, place: (key: T) => Set<T>): void {
    for (const v of from) place(v).add(v);
  }

  add(value: T): this {
    if (!this.shardOf(value).has(value)) this.shardForNew(value).add(value);
    return this;
  }

  values(): IterableIterator<T> {
    return this.shards.length === 1 ? this.shards[0]!.values() : this.allValues();
  }

  private *allValues(): IterableIterator<T> {
    for (const shard of this.shards) yield* shard.values();
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
