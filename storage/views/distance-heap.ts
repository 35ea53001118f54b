/**
 * (distance, slot) pairs in typed arrays that grow as needed and are reused between calls.
 * The two heaps below spell out their sift loops with the comparison inline rather than share
 * one loop through a comparator: they are the innermost loop of every graph search.
 */
abstract class PairHeap {
  protected keys: Float64Array;
  protected vals: Int32Array;
  size = 0;

  constructor(capacity = 64) {
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

  protected room(): void {
    if (this.size < this.keys.length) return;
    const keys = new Float64Array(this.size * 2);
    keys.set(this.keys);
    this.keys = keys;
    const vals = new Int32Array(this.size * 2);
    vals.set(this.vals);
    this.vals = vals;
  }
}

/** Nearest first: the frontier of a graph search. Ties come out in any order. */
export class CandidateHeap extends PairHeap {
  push(key: number, slot: number): void {
    this.room();
    const k = this.keys;
    const v = this.vals;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (k[parent]! <= key) break;
      k[i] = k[parent]!;
      v[i] = v[parent]!;
      i = parent;
    }
    k[i] = key;
    v[i] = slot;
  }

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
      if (child + 1 < n && k[child + 1]! < k[child]!) child++;
      if (k[child]! >= key) break;
      k[i] = k[child]!;
      v[i] = v[child]!;
      i = child;
    }
    k[i] = key;
    v[i] = slot;
  }
}

/**
 * Farthest first: the best-so-far results, whose top is the one to drop. Equal distances
 * order by point id (`ids`, slot → id; `idOrder` when UUIDs are about, whose slots all hold
 * the same marker in `ids`), so the kept set is deterministic: smaller ids win.
 */
export class ResultHeap extends PairHeap {
  ids: Float64Array = new Float64Array(0);
  idOrder: ((a: number, b: number) => number) | null = null;

  /** True when (ka, a) is farther than (kb, b). */
  private worse(ka: number, a: number, kb: number, b: number): boolean {
    if (ka !== kb) return ka > kb;
    return this.idOrder ? this.idOrder(a, b) > 0 : this.ids[a]! > this.ids[b]!;
  }

  push(key: number, slot: number): void {
    this.room();
    const k = this.keys;
    const v = this.vals;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(key, slot, k[parent]!, v[parent]!)) break;
      k[i] = k[parent]!;
      v[i] = v[parent]!;
      i = parent;
    }
    k[i] = key;
    v[i] = slot;
  }

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
      if (child + 1 < n && this.worse(k[child + 1]!, v[child + 1]!, k[child]!, v[child]!)) child++;
      if (!this.worse(k[child]!, v[child]!, key, slot)) break;
      k[i] = k[child]!;
      v[i] = v[child]!;
      i = child;
    }
    k[i] = key;
    v[i] = slot;
  }

  /** Keeps the `limit` best pairs: pushes, or replaces the worst when the new pair beats it. */
  offer(key: number, slot: number, limit: number): void {
    if (this.size < limit) this.push(key, slot);
    else if (this.worse(this.keys[0]!, this.vals[0]!, key, slot)) {
      this.pop();
      this.push(key, slot);
    }
  }

  /** Empties the heap into arrays, best first; returns how many. */
  drainAscending(outKeys: Float64Array, outSlots: Int32Array): number {
    const n = this.size;
    for (let i = n - 1; i >= 0; i--) {
      outKeys[i] = this.keys[0]!;
      outSlots[i] = this.vals[0]!;
      this.pop();
    }
    return n;
  }
}
