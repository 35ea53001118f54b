import type { Distance } from '../events/types.js';
import { int8KernelsFor, type Int8Kernels } from './int8-kernels.js';
import { dotInt8, l2Int8 } from './int8-scalar-kernels.js';
import { placeCodes } from './code-memory.js';
import type { PointStore } from './point-store.js';

/** Values sampled to place a quantile: enough for a stable estimate, few enough to sort at once. */
const QUANTILE_SAMPLE = 65_536;
const LEVELS = 127;

/**
 * Int8 codes of a store's vectors (scalar quantization), one contiguous byte array: the query's
 * codes first, then each slot's, every row padded with zeros to a multiple of 16 bytes. A value
 * x is coded round((x - mid) / step) clamped to ±127, with one mid and step for the whole store,
 * placed so [mid - 127 step, mid + 127 step] covers the quantile of the values (all of them by
 * default). Distances then come from integer sums:
 *   Euclid  |q - x|² ≈ step² Σ(cq - cx)²          (the offsets cancel)
 *   Dot     q·x ≈ step² Σ cq cx + step mid (Σcq + Σcx) + dim mid²   (Σcx kept per slot)
 *   Cosine  1 - q·x on the unit vectors.
 * The codes are derived: made as points are linked into the HNSW graph (the indexer), all of
 * them again whenever the live count has doubled since the range was placed (so it follows the
 * data), and on load. Searches walk the graph with these distances and rescore with the floats.
 * Large code arrays live in a WebAssembly memory searched by the SIMD kernels; small ones in a
 * plain Int8Array searched by the scalar twins (same integers, so the same ranking).
 */
export class ScalarQuantized {
  /** Bytes per row: dim rounded up to 16. */
  readonly stride: number;
  /** The query row at 0, slot s at stride * (s + 1). */
  codes: Int8Array;
  private memory: WebAssembly.Memory | null = null;
  private kernels: Int8Kernels | null = null;
  /** Σ codes per slot (the Dot correction). */
  private sums: Int32Array;
  private mid = 0;
  private step = 1;
  private querySum = 0;
  /** The live count when the range was placed (0: never). */
  private placedFor = 0;
  private readonly dim: number;
  /** Distance from the query (setQuery) to slot x, internal (smaller is closer); rebound as the codes move. */
  toQuery: (x: number) => number = () => 0;

  constructor(private readonly store: PointStore, private readonly metric: Distance, private readonly quantile: number | null) {
    this.dim = store.dim;
    this.stride = Math.ceil(this.dim / 16) * 16;
    this.codes = new Int8Array(0);
    this.sums = new Int32Array(0);
    this.place(store.capacity);
    this.bind();
  }

  /** Bytes the codes take (the query row included). */
  get byteLength(): number {
    return this.codes.length;
  }

  /** Room for `cap` slots, in a WebAssembly memory once large (code-memory.ts). */
  private place(cap: number): void {
    const length = this.stride * (cap + 1);
    if (this.codes.length >= length) return;
    const placed = placeCodes({ bytes: new Uint8Array(this.codes.buffer, this.codes.byteOffset, this.codes.length), memory: this.memory }, length);
    if (placed.memory && placed.memory !== this.memory) this.kernels = int8KernelsFor(placed.memory);
    this.memory = placed.memory;
    this.codes = new Int8Array(placed.bytes.buffer, placed.bytes.byteOffset, placed.bytes.length);
    const sums = new Int32Array(cap);
    sums.set(this.sums.subarray(0, Math.min(this.sums.length, cap)));
    this.sums = sums;
    this.bind();
  }

  /** Binds toQuery to the kernels, the range and the sums as they are now (after each move or new range). */
  private bind(): void {
    const { stride, kernels, metric, dim, sums } = this;
    const step2 = this.step * this.step;
    const cross = this.step * this.mid;
    const constant = dim * this.mid * this.mid;
    if (kernels) {
      const { l2, dot } = kernels;
      if (metric === 'Euclid') this.toQuery = (x) => step2 * l2(0, stride * (x + 1), stride);
      else if (metric === 'Cosine') this.toQuery = (x) => 1 - (step2 * dot(0, stride * (x + 1), stride) + cross * (this.querySum + sums[x]!) + constant);
      else this.toQuery = (x) => -(step2 * dot(0, stride * (x + 1), stride) + cross * (this.querySum + sums[x]!) + constant);
      return;
    }
    const codes = this.codes;
    if (metric === 'Euclid') this.toQuery = (x) => step2 * l2Int8(codes, 0, codes, stride * (x + 1), stride);
    else if (metric === 'Cosine') this.toQuery = (x) => 1 - (step2 * dotInt8(codes, 0, codes, stride * (x + 1), stride) + cross * (this.querySum + sums[x]!) + constant);
    else this.toQuery = (x) => -(step2 * dotInt8(codes, 0, codes, stride * (x + 1), stride) + cross * (this.querySum + sums[x]!) + constant);
  }

  /** Codes `dim` floats of `v` at `vo` into row `at` (a byte offset); answers their sum. */
  private encodeInto(v: Float32Array, vo: number, at: number): number {
    const { codes, mid, step, dim } = this;
    const inverse = 1 / step;
    let sum = 0;
    for (let i = 0; i < dim; i++) {
      const c = Math.max(-LEVELS, Math.min(LEVELS, Math.round((v[vo + i]! - mid) * inverse)));
      codes[at + i] = c;
      sum += c;
    }
    return sum;
  }

  /** Codes one slot's vector (a point just linked into the graph); every slot again when the data has doubled. */
  add(slot: number): void {
    if (this.placedFor === 0 || this.store.liveCount >= 2 * this.placedFor) {
      this.rebuild();
      return;
    }
    this.place(this.store.capacity);
    this.sums[slot] = this.encodeInto(this.store.vectors, slot * this.dim, this.stride * (slot + 1));
  }

  /** Places the range on the store's vectors as they are, and codes every slot. */
  rebuild(): void {
    const { store, dim } = this;
    this.place(store.capacity);
    this.placeRange();
    this.bind();
    this.placedFor = Math.max(1, store.liveCount);
    for (let slot = 0; slot < store.slotCount; slot++) {
      this.sums[slot] = store.hasVector[slot] ? this.encodeInto(store.vectors, slot * dim, this.stride * (slot + 1)) : 0;
    }
  }

  /** mid and step from the values of the vectors held (a strided sample for a quantile). */
  private placeRange(): void {
    const { store, dim } = this;
    let lo = Infinity;
    let hi = -Infinity;
    const slots: number[] = [];
    for (let slot = 0; slot < store.slotCount; slot++) if (store.hasVector[slot]) slots.push(slot);
    const total = slots.length * dim;
    if (total === 0) return;
    if (this.quantile === null || this.quantile >= 1) {
      const v = store.vectors;
      for (const slot of slots) {
        for (let i = slot * dim, end = i + dim; i < end; i++) {
          const x = v[i]!;
          if (x < lo) lo = x;
          if (x > hi) hi = x;
        }
      }
    } else {
      const n = Math.min(total, QUANTILE_SAMPLE);
      const sample = new Float32Array(n);
      for (let k = 0; k < n; k++) {
        const at = Math.floor((k * total) / n);
        sample[k] = store.vectors[slots[Math.floor(at / dim)]! * dim + (at % dim)]!;
      }
      sample.sort();
      const tail = (1 - this.quantile) / 2;
      lo = sample[Math.floor(tail * (n - 1))]!;
      hi = sample[Math.ceil((1 - tail) * (n - 1))]!;
    }
    this.mid = (lo + hi) / 2;
    this.step = hi > lo ? (hi - lo) / (2 * LEVELS) : 1;
  }

  /** Codes a prepared query (unit length for Cosine) into the query row. */
  setQuery(q: Float32Array): void {
    this.querySum = this.encodeInto(q, 0, 0);
  }
}
