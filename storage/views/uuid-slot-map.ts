import { uuidIntoWords } from '../point-id.js';
import { tableDirectory, type TableBucket } from './extendible.js';

const EMPTY = -1;
const MIN_CAPACITY = 16;
/** UUIDs a bucket holds before it is divided: growing or dividing one moves at most these (about 1 ms). */
const BUCKET_LIMIT = 1 << 15;

function hashWords(k: Uint32Array, at: number): number {
  let h = Math.imul(k[at]! ^ Math.imul(k[at + 1]!, 0x9e3779b1), 0x85ebca6b) ^ Math.imul(k[at + 2]! ^ k[at + 3]!, 0xcc9e2d51);
  h ^= h >>> 15;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 13);
}

/** One bucket: IntSlotMap's table (open addressing, linear probing, backward-shift deletion) with each key as four 32-bit words. */
class UuidBucket implements TableBucket<UuidBucket> {
  keys: Uint32Array;
  /** EMPTY marks a free entry (a slot is never negative). */
  slots: Int32Array;
  private mask: number;
  size = 0;
  depth = 0;

  constructor(capacity: number) {
    this.keys = new Uint32Array(capacity * 4);
    this.slots = new Int32Array(capacity).fill(EMPTY);
    this.mask = capacity - 1;
  }

  get capacity(): number {
    return this.slots.length;
  }

  /** Where the key `words[at..at + 4)` of hash `h` is, or -1 - where it would go. */
  indexOf(words: Uint32Array, at: number, h: number): number {
    const { keys, slots, mask } = this;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      if (slots[i] === EMPTY) return -1 - i;
      const k = i * 4;
      if (keys[k] === words[at] && keys[k + 1] === words[at + 1] && keys[k + 2] === words[at + 2] && keys[k + 3] === words[at + 3]) return i;
    }
  }

  /** Adds a key it does not hold; `free`, where indexOf found it would go (or -1: look again). */
  put(words: Uint32Array, at: number, slot: number, h: number, free = -1): void {
    if ((this.size + 1) * 4 > this.slots.length * 3) {
      this.grow();
      free = -1;
    }
    const i = free >= 0 ? free : -1 - this.indexOf(words, at, h);
    const { keys } = this;
    keys[i * 4] = words[at]!;
    keys[i * 4 + 1] = words[at + 1]!;
    keys[i * 4 + 2] = words[at + 2]!;
    keys[i * 4 + 3] = words[at + 3]!;
    this.slots[i] = slot;
    this.size++;
  }

  delete(words: Uint32Array, h: number): boolean {
    let hole = this.indexOf(words, 0, h);
    if (hole < 0) return false;
    const { keys, slots, mask } = this;
    // Pull back each later entry of the run that may sit at the hole (its home is not in (hole, j]).
    for (let j = (hole + 1) & mask; slots[j] !== EMPTY; j = (j + 1) & mask) {
      const home = hashWords(keys, j * 4) & mask;
      const between = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (between) continue;
      keys.copyWithin(hole * 4, j * 4, j * 4 + 4);
      slots[hole] = slots[j]!;
      hole = j;
    }
    slots[hole] = EMPTY;
    this.size--;
    return true;
  }

  /** Puts every entry into the bucket `place` answers for its hash. */
  spread(place: (h: number) => UuidBucket): void {
    moveEntries(this.keys, this.slots, place);
  }

  private grow(): void {
    const { keys, slots } = this;
    const capacity = slots.length * 2;
    this.keys = new Uint32Array(capacity * 4);
    this.slots = new Int32Array(capacity).fill(EMPTY);
    this.mask = capacity - 1;
    this.size = 0;
    moveEntries(keys, slots, () => this);
  }
}

function moveEntries(keys: Uint32Array, slots: Int32Array, place: (h: number) => UuidBucket): void {
  for (let i = 0; i < slots.length; i++) {
    if (slots[i] === EMPTY) continue;
    const h = hashWords(keys, i * 4);
    place(h).put(keys, i * 4, slots[i]!, h);
  }
}

/**
 * UUID point id → slot: IntSlotMap's buckets and directory with each key as four 32-bit words,
 * 20 bytes per entry, so no string is kept per id.
 */
export class UuidSlotMap {
  private readonly directory = tableDirectory((capacity) => new UuidBucket(capacity), MIN_CAPACITY, BUCKET_LIMIT);
  /** The key being looked up, as words (reused: lookups allocate nothing). */
  private readonly probe = new Uint32Array(4);
  size = 0;

  /** Makes an empty map ready for `count` UUIDs at once (a snapshot's), so that filling it divides and grows no bucket. */
  reserve(count: number): void {
    if (this.size === 0) this.directory.reserve(count, (capacity) => new UuidBucket(capacity));
  }

  /** The slot of `uuid` (canonical form), or -1. */
  get(uuid: string): number {
    const { probe } = this;
    uuidIntoWords(uuid, probe);
    const h = hashWords(probe, 0);
    const bucket = this.directory.of(h);
    const i = bucket.indexOf(probe, 0, h);
    return i >= 0 ? bucket.slots[i]! : -1;
  }

  set(uuid: string, slot: number): void {
    const { probe } = this;
    uuidIntoWords(uuid, probe);
    const h = hashWords(probe, 0);
    const bucket = this.directory.of(h);
    const i = bucket.indexOf(probe, 0, h);
    if (i >= 0) {
      bucket.slots[i] = slot;
      return;
    }
    const into = this.directory.forNew(h);
    into.put(probe, 0, slot, h, into === bucket ? -1 - i : -1);
    this.size++;
  }

  delete(uuid: string): boolean {
    const { probe } = this;
    uuidIntoWords(uuid, probe);
    const h = hashWords(probe, 0);
    if (!this.directory.of(h).delete(probe, h)) return false;
    this.size--;
    return true;
  }
}
