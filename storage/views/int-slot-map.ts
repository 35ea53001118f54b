import { tableDirectory, type TableBucket } from './extendible.js';

const EMPTY = -1;
const MIN_CAPACITY = 16;
/** Ids a bucket holds before it is divided: growing or dividing one moves at most these (about 1 ms). */
const BUCKET_LIMIT = 1 << 15;

/** A 32-bit mix of an integer id up to 2^53 (both halves, then murmur3's finaliser). */
function hashId(id: number): number {
  const lo = id >>> 0;
  const hi = (id / 4294967296) >>> 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 13);
}

/** One bucket: two typed arrays, open addressing by the hash's low bits, linear probing, deletion by backward shift (no tombstones). */
class IntBucket implements TableBucket<IntBucket> {
  keys: Float64Array;
  slots: Int32Array;
  private mask: number;
  size = 0;
  depth = 0;

  constructor(capacity: number) {
    this.keys = new Float64Array(capacity).fill(EMPTY);
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  get capacity(): number {
    return this.keys.length;
  }

  indexOf(id: number, h: number): number {
    const { keys, mask } = this;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const k = keys[i]!;
      if (k === id) return i;
      if (k === EMPTY) return -1 - i;
    }
  }

  /** Adds an id it does not hold; `free`, where indexOf found it would go (or -1: look again). */
  put(id: number, slot: number, h: number, free = -1): void {
    if ((this.size + 1) * 4 > this.keys.length * 3) {
      this.grow();
      free = -1;
    }
    const i = free >= 0 ? free : -1 - this.indexOf(id, h);
    this.keys[i] = id;
    this.slots[i] = slot;
    this.size++;
  }

  delete(id: number, h: number): boolean {
    let hole = this.indexOf(id, h);
    if (hole < 0) return false;
    const { keys, slots, mask } = this;
    // Pull back each later entry of the run that may sit at the hole (its home is not in (hole, j]).
    for (let j = (hole + 1) & mask; keys[j] !== EMPTY; j = (j + 1) & mask) {
      const home = hashId(keys[j]!) & mask;
      const between = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (between) continue;
      keys[hole] = keys[j]!;
      slots[hole] = slots[j]!;
      hole = j;
    }
    keys[hole] = EMPTY;
    this.size--;
    return true;
  }

  /** Puts every entry into the bucket `place` answers for its hash. */
  spread(place: (h: number) => IntBucket): void {
    moveEntries(this.keys, this.slots, place);
  }

  private grow(): void {
    const { keys, slots } = this;
    this.keys = new Float64Array(keys.length * 2).fill(EMPTY);
    this.slots = new Int32Array(this.keys.length);
    this.mask = this.keys.length - 1;
    this.size = 0;
    moveEntries(keys, slots, () => this);
  }
}

function moveEntries(keys: Float64Array, slots: Int32Array, place: (h: number) => IntBucket): void {
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (k === EMPTY) continue;
    const h = hashId(k);
    place(h).put(k, slots[i]!, h);
  }
}

/**
 * Integer point id → slot, in buckets of two typed arrays under an extendible directory
 * (extendible.ts), so that no write rehashes more than one bucket. A JS Map stops at 2^24
 * entries; this holds as many ids as memory allows, in 12 bytes per table entry at most 3/4
 * full. Ids are non-negative integers.
 */
export class IntSlotMap {
  private readonly directory = tableDirectory((capacity) => new IntBucket(capacity), MIN_CAPACITY, BUCKET_LIMIT);
  size = 0;

  /** Makes an empty map ready for `count` ids at once (a snapshot's), so that filling it divides and grows no bucket. */
  reserve(count: number): void {
    if (this.size === 0) this.directory.reserve(count, (capacity) => new IntBucket(capacity));
  }

  /** The slot of `id`, or -1. */
  get(id: number): number {
    const h = hashId(id);
    const bucket = this.directory.of(h);
    const i = bucket.indexOf(id, h);
    return i >= 0 ? bucket.slots[i]! : -1;
  }

  has(id: number): boolean {
    const h = hashId(id);
    return this.directory.of(h).indexOf(id, h) >= 0;
  }

  set(id: number, slot: number): void {
    const h = hashId(id);
    const bucket = this.directory.of(h);
    const i = bucket.indexOf(id, h);
    if (i >= 0) {
      bucket.slots[i] = slot;
      return;
    }
    const into = this.directory.forNew(h);
    into.put(id, slot, h, into === bucket ? -1 - i : -1);
    this.size++;
  }

  delete(id: number): boolean {
    const h = hashId(id);
    if (!this.directory.of(h).delete(id, h)) return false;
    this.size--;
    return true;
  }
}
