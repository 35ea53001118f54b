import type { Distance } from '../events/types.js';
import { binaryKernelsFor, hammingBits, type BinaryKernels } from './binary-kernels.js';
import { placeCodes } from './code-memory.js';
import { READER_SLOTS, type PointStore } from './point-store.js';
import { isShared } from './shared-arrays.js';

/** What a search worker needs to walk a graph on a store's bit codes (BinaryQuantized.reader). */
export interface BinaryLayout {
  kind: 'binary';
  memory: WebAssembly.Memory;
  metric: Distance;
}

/**
 * One bit per dimension of a store's vectors (binary quantization, as Qdrant's: the bit is set
 * where the value is above 0), rows padded with zeros to 16 bytes, the query's row first. The
 * Hamming distance h between two rows estimates the angle between the vectors as π h / dim
 * (sign random projections), so the internal distances are those of unit vectors at that angle:
 * Cosine 1 − cos, Dot −cos, Euclid 2 − 2 cos. Coarse by design: it suits centred embeddings of
 * many dimensions (512 and more), searched with oversampling and float rescoring. A query row
 * for each thread that searches (READER_SLOTS) comes before the slots' rows; search workers read
 * a shared memory of codes through a reader (BinaryQuantized.reader).
 */
export class BinaryQuantized {
  readonly stride: number;
  private bits: Uint8Array = new Uint8Array(0);
  private memory: WebAssembly.Memory | null = null;
  private kernels: BinaryKernels | null = null;
  /** The internal distance of each Hamming distance 0..dim. */
  private readonly byHamming: Float64Array;
  private readonly dim: number;
  toQuery: (x: number) => number = () => 0;

  private readonly queryAt: number;
  private layoutCache: BinaryLayout | null = null;

  /** Codes of `store`'s vectors; with `reader`, a search worker's view of another thread's codes, in its own query row. */
  constructor(private readonly store: PointStore, private readonly metric: Distance, reader?: { layout: BinaryLayout; row: number }) {
    this.dim = store.dim;
    this.stride = Math.ceil(this.dim / 128) * 16;
    this.queryAt = this.stride * (reader?.row ?? 0);
    this.byHamming = Float64Array.from({ length: this.dim + 1 }, (_, h) => {
      const cos = Math.cos((Math.PI * h) / this.dim);
      return metric === 'Cosine' ? 1 - cos : metric === 'Dot' ? -cos : 2 - 2 * cos;
    });
    if (reader) {
      this.memory = reader.layout.memory;
      this.kernels = binaryKernelsFor(this.memory);
      this.bits = new Uint8Array(this.memory.buffer);
      this.bind();
    } else this.place(store.capacity);
  }

  static reader(store: PointStore, layout: BinaryLayout, row: number): BinaryQuantized {
    return new BinaryQuantized(store, layout.metric, { layout, row });
  }

  /** What a search worker needs to read the codes, or null while they are in a plain buffer. */
  layout(): BinaryLayout | null {
    if (!this.memory || !isShared(this.bits)) return null;
    this.layoutCache ??= { kind: 'binary', memory: this.memory, metric: this.metric };
    return this.layoutCache;
  }

  get byteLength(): number {
    return this.bits.length;
  }

  private place(cap: number): void {
    const length = this.stride * (cap + READER_SLOTS);
    if (this.bits.length >= length) return;
    const placed = placeCodes({ bytes: this.bits, memory: this.memory }, length);
    if (placed.memory && placed.memory !== this.memory) this.kernels = binaryKernelsFor(placed.memory);
    this.memory = placed.memory;
    this.bits = placed.bytes;
    this.bind();
  }

  private bind(): void {
    const { stride, byHamming, kernels, bits, queryAt } = this;
    const base = stride * READER_SLOTS;
    this.toQuery = kernels ? (x) => byHamming[kernels.hamming(queryAt, base + stride * x, stride)]! : (x) => byHamming[hammingBits(bits, queryAt, bits, base + stride * x, stride)]!;
  }

  private encodeInto(v: Float32Array, vo: number, at: number): void {
    const { bits, dim } = this;
    bits.fill(0, at, at + this.stride);
    for (let i = 0; i < dim; i++) if (v[vo + i]! > 0) bits[at + (i >> 3)]! |= 1 << (i & 7);
  }

  add(slot: number): void {
    this.place(this.store.capacity);
    this.encodeInto(this.store.row(slot), 0, this.stride * (slot + READER_SLOTS));
  }

  rebuild(): void {
    const { store } = this;
    this.place(store.capacity);
    store.forEachVector((slot, vectors, at) => this.encodeInto(vectors, at, this.stride * (slot + READER_SLOTS)));
  }

  nodeDistance(): null {
    return null;
  }

  /** All of them: one bit a dimension ties often, and the floats must choose among the ties. */
  rescoreCount(_k: number, ef: number): number {
    return ef;
  }

  setQuery(q: Float32Array): void {
    this.encodeInto(q, 0, this.queryAt);
  }
}
