const EMPTY = -1;
const MIN_CAPACITY = 16;

/** A 32-bit mix of an integer id up to 2^53 (both halves, then murmur3's finaliser). */
function hashId(id: number): number {
  const lo = id >>> 0;
  const hi = (id / 4294967296) >>> 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 13);
}

/**
 * Integer point id → slot, in two typed arrays (open addressing, linear probing, deletion by backward
 * shift, so no tombstones pile up). A JS Map stops at 2^24 entries; this holds as many ids as
 * memory allows, in 12 bytes per table entry at most 3/4 full. Ids are non-negative integers.
 */
export class IntSlotMap {
  private keys: Float64Array;
  private slots: Int32Array;
  private mask: number;
  size = 0;

  constructor(expected = 0) {
    let capacity = MIN_CAPACITY;
    while (capacity * 3 < expected * 4) capacity *= 2;
    this.keys = new Float64Array(capacity).fill(EMPTY);
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  private indexOf(id: number): number {
    const { keys, mask } = this;
    for (let i = hashId(id) & mask; ; i = (i + 1) & mask) {
      const k = keys[i]!;
      if (k === id) return i;
      if (k === EMPTY) return -1 - i;
    }
  }

  /** The slot of `id`, or -1. */
  get(id: number): number {
    const i = this.indexOf(id);
    return i >= 0 ? this.slots[i]! : -1;
  }

  has(id: number): boolean {
    return this.indexOf(id) >= 0;
  }

  set(id: number, slot: number): void {
    if ((this.size + 1) * 4 > this.keys.length * 3) this.grow();
    const i = this.indexOf(id);
    if (i >= 0) {
      this.slots[i] = slot;
      return;
    }
    this.keys[-1 - i] = id;
    this.slots[-1 - i] = slot;
    this.size++;
  }

  delete(id: number): boolean {
    let hole = this.indexOf(id);
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

  private grow(): void {
    const { keys, slots } = this;
    const capacity = keys.length * 2;
    this.keys = new Float64Array(capacity).fill(EMPTY);
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (k === EMPTY) continue;
      let j = hashId(k) & this.mask;
      while (this.keys[j] !== EMPTY) j = (j + 1) & this.mask;
      this.keys[j] = k;
      this.slots[j] = slots[i]!;
    }
  }
}
