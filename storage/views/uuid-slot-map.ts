import { uuidIntoWords } from '../point-id.js';

const EMPTY = -1;
const MIN_CAPACITY = 16;

/**
 * UUID point id → slot: IntSlotMap's table (open addressing, linear probing, backward-shift
 * deletion) with each key as four 32-bit words, 20 bytes per entry, so no string is kept per id.
 */
export class UuidSlotMap {
  private keys: Uint32Array;
  /** EMPTY marks a free entry (a slot is never negative). */
  private slots: Int32Array;
  private mask: number;
  /** The key being looked up, as words (reused: lookups allocate nothing). */
  private readonly probe = new Uint32Array(4);
  size = 0;

  constructor() {
    this.keys = new Uint32Array(MIN_CAPACITY * 4);
    this.slots = new Int32Array(MIN_CAPACITY).fill(EMPTY);
    this.mask = MIN_CAPACITY - 1;
  }

  private static hash(k: Uint32Array, at: number): number {
    let h = Math.imul(k[at]! ^ Math.imul(k[at + 1]!, 0x9e3779b1), 0x85ebca6b) ^ Math.imul(k[at + 2]! ^ k[at + 3]!, 0xcc9e2d51);
    h ^= h >>> 15;
    h = Math.imul(h, 0xc2b2ae35);
    return h ^ (h >>> 13);
  }

  private indexOf(uuid: string): number {
    const { keys, slots, mask, probe } = this;
    uuidIntoWords(uuid, probe);
    for (let i = UuidSlotMap.hash(probe, 0) & mask; ; i = (i + 1) & mask) {
      if (slots[i] === EMPTY) return -1 - i;
      const at = i * 4;
      if (keys[at] === probe[0] && keys[at + 1] === probe[1] && keys[at + 2] === probe[2] && keys[at + 3] === probe[3]) return i;
    }
  }

  /** The slot of `uuid` (canonical form), or -1. */
  get(uuid: string): number {
    const i = this.indexOf(uuid);
    return i >= 0 ? this.slots[i]! : -1;
  }

  set(uuid: string, slot: number): void {
    if ((this.size + 1) * 4 > this.slots.length * 3) this.grow();
    const i = this.indexOf(uuid);
    if (i >= 0) {
      this.slots[i] = slot;
      return;
    }
    this.keys.set(this.probe, (-1 - i) * 4);
    this.slots[-1 - i] = slot;
    this.size++;
  }

  delete(uuid: string): boolean {
    let hole = this.indexOf(uuid);
    if (hole < 0) return false;
    const { keys, slots, mask } = this;
    // Pull back each later entry of the run that may sit at the hole (its home is not in (hole, j]).
    for (let j = (hole + 1) & mask; slots[j] !== EMPTY; j = (j + 1) & mask) {
      const home = UuidSlotMap.hash(keys, j * 4) & mask;
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

  private grow(): void {
    const { keys, slots } = this;
    const capacity = slots.length * 2;
    this.keys = new Uint32Array(capacity * 4);
    this.slots = new Int32Array(capacity).fill(EMPTY);
    this.mask = capacity - 1;
    for (let i = 0; i < slots.length; i++) {
      if (slots[i] === EMPTY) continue;
      let j = UuidSlotMap.hash(keys, i * 4) & this.mask;
      while (this.slots[j] !== EMPTY) j = (j + 1) & this.mask;
      this.keys.set(keys.subarray(i * 4, i * 4 + 4), j * 4);
      this.slots[j] = slots[i]!;
    }
  }
}
