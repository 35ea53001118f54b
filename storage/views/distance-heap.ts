/**
 * A binary heap of (distance, slot) pairs in typed arrays, reused between calls.
 * `max` orders the largest distance first (the result set); otherwise the smallest.
 */
export class DistanceHeap {
  private keys: Float64Array;
  private vals: Int32Array;
  size = 0;
  /** When set (slot → point id), equal distances order by id, so results are deterministic. */
  tieIds: Float64Array | null = null;

  constructor(private readonly max: boolean, capacity = 64) {
    this.keys = new Float64Array(capacity);
    this.vals = new Int32Array(capacity);
  }

  clear(): void {
    this.size = 0;
  }

  topKey(): number {
    return this.keys[0]!;
  }

  topSlot(): number {
    return this.vals[0]!;
  }

  /** True when a comes before b in heap order. */
  private before(ka: number, va: number, kb: number, vb: number): boolean {
    if (ka !== kb) return this.max ? ka > kb : ka < kb;
    const ids = this.tieIds;
    const ta = ids ? ids[va]! : va;
    const tb = ids ? ids[vb]! : vb;
    return this.max ? ta > tb : ta < tb;
  }

  push(key: number, slot: number): void {
    if (this.size === this.keys.length) {
      const keys = new Float64Array(this.size * 2);
      keys.set(this.keys);
      this.keys = keys;
      const vals = new Int32Array(this.size * 2);
      vals.set(this.vals);
      this.vals = vals;
    }
    let i = this.size++;
    const k = this.keys;
    const v = this.vals;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(key, slot, k[parent]!, v[parent]!)) break;
      k[i] = k[parent]!;
      v[i] = v[parent]!;
      i = parent;
    }
    k[i] = key;
    v[i] = slot;
  }

  /** Keeps the `limit` best pairs: pushes, or replaces the worst when the new pair beats it. Max heap only. */
  offer(key: number, slot: number, limit: number): void {
    if (this.size < limit) this.push(key, slot);
    else if (this.before(this.keys[0]!, this.vals[0]!, key, slot)) {
      this.pop();
      this.push(key, slot);
    }
  }

  /** Removes the top; read it first with topKey/topSlot. */
  pop(): void {
    const n = --this.size;
    if (n === 0) return;
    const k = this.keys;
    const v = this.vals;
    const key = k[n]!;
    const slot = v[n]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this.before(k[child + 1]!, v[child + 1]!, k[child]!, v[child]!)) child++;
      if (!this.before(k[child]!, v[child]!, key, slot)) break;
      k[i] = k[child]!;
      v[i] = v[child]!;
      i = child;
    }
    k[i] = key;
    v[i] = slot;
  }

  /** Empties the heap into arrays, best (smallest distance) first. Only for a max heap. */
  drainAscending(outKeys: Float64Array, outSlots: Int32Array): number {
    const n = this.size;
    for (let i = n - 1; i >= 0; i--) {
      outKeys[i] = this.topKey();
      outSlots[i] = this.topSlot();
      this.pop();
    }
    return n;
  }
}
