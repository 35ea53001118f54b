/** Values sampled to place a quantile: enough for a stable estimate, few enough to sort at once. */
const QUANTILE_SAMPLE = 65_536;
/** Codes run from -LEVELS to LEVELS. */
export const LEVELS = 127;

/** Where the int8 codes of a store are centred, and the value of one code step. */
export interface Int8Range {
  mid: number;
  step: number;
}

/**
 * Reads a store's vectors, in slot order and as many at a time as the caller likes, for the
 * range its int8 codes take: from the smallest value to the largest, or, for a quantile, the
 * centred share of a strided sample of the values (value floor(k * total / n) of the vectors
 * visited is the k-th sampled, `total` being the values the store held when the reading began).
 */
export class RangeScan {
  private lo = Infinity;
  private hi = -Infinity;
  private readonly sample: Float32Array | null;
  private k = 0;
  private vectors = 0;

  constructor(
    private readonly dim: number,
    private readonly quantile: number | null,
    private readonly total: number,
  ) {
    this.sample = quantile === null || quantile >= 1 ? null : new Float32Array(Math.min(total, QUANTILE_SAMPLE));
  }

  /** Reads the `dim` values of `v` at `at`, the next vector in slot order. */
  visit(v: Float32Array, at: number): void {
    const { dim, sample } = this;
    if (!sample) {
      for (let i = at, end = at + dim; i < end; i++) {
        const x = v[i]!;
        if (x < this.lo) this.lo = x;
        if (x > this.hi) this.hi = x;
      }
      return;
    }
    const n = sample.length;
    const total = this.total;
    const end = (this.vectors + 1) * dim;
    let k = this.k;
    for (let pos = Math.floor((k * total) / n); k < n && pos < end; pos = Math.floor((++k * total) / n)) sample[k] = v[at + (pos - this.vectors * dim)]!;
    this.k = k;
    this.vectors++;
  }

  /** The range of the values read, or null when there were none. */
  range(): Int8Range | null {
    let { lo, hi } = this;
    const sample = this.sample;
    if (sample) {
      if (this.k === 0) return null;
      const n = this.k;
      const sorted = sample.subarray(0, n).sort();
      const tail = (1 - this.quantile!) / 2;
      lo = sorted[Math.floor(tail * (n - 1))]!;
      hi = sorted[Math.ceil((1 - tail) * (n - 1))]!;
    } else if (lo > hi) return null;
    return { mid: (lo + hi) / 2, step: hi > lo ? (hi - lo) / (2 * LEVELS) : 1 };
  }
}
