import type { Distance } from '../events/types.js';
import { binaryKernelsFor, hammingBits, type BinaryKernels } from './binary-kernels.js';
import { codeHeadRows, placeCodeSegments } from './code-memory.js';
import { READER_SLOTS, type PointStore } from './point-store.js';
import { isShared } from './shared-arrays.js';

/** What a search worker needs to walk a graph on a store's bit codes (BinaryQuantized.reader). */
export interface BinaryLayout {
  kind: 'binary';
  /** One memory per segment of codes (the store's segment size). */
  memories: WebAssembly.Memory[];
  metric: Distance;
}

/** Values a step of a build in steps codes (about 10 µs of work). */
const BUILD_VALUES = 8192;

/**
 * One bit per dimension of a store's vectors (binary quantization, as Qdrant's: the bit is set
 * where the value is above 0), rows padded with zeros to 16 bytes, the query's row first. The
 * Hamming distance h between two rows estimates the angle between the vectors as π h / dim
 * (sign random projections), so the internal distances are those of unit vectors at that angle:
 * Cosine 1 − cos, Dot −cos, Euclid and Manhattan 2 − 2 cos (the order of the Hamming distances,
 * as Qdrant's binary codes rank L1 and L2 alike). Coarse by design: it suits centred embeddings of
 * many dimensions (512 and more), searched with oversampling and float rescoring. A query row
 * for each thread that searches (READER_SLOTS) comes before the slots' rows; search workers read
 * a shared memory of codes through a reader (BinaryQuantized.reader). Past the store's segment
 * size the codes are in segments as its floats are (code-memory.ts, vector-segments.md).
 */
export class BinaryQuantized {
  readonly stride: number;
  /** Each segment's rows: query rows, slot s at stride * ((s & segmentMask) + READER_SLOTS) (codeHeadRows, unbatched). */
  private segments: Uint8Array[] = [];
  private memories: WebAssembly.Memory[] = [];
  private segmentKernels: BinaryKernels[] = [];
  /** Slots the codes have room for. */
  private placedCap = -1;
  /** The internal distance of each Hamming distance 0..dim. */
  private readonly byHamming: Float64Array;
  private readonly dim: number;
  toQuery: (x: number) => number = () => 0;

  private readonly queryAt: number;
  private layoutCache: BinaryLayout | null = null;
  /** Slots below it are coded while a build in steps is under way (Infinity: every slot, the codes are whole). */
  private built = Infinity;

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
      this.memories = reader.layout.memories;
      this.segmentKernels = this.memories.map((m) => binaryKernelsFor(m));
      this.segments = this.memories.map((m) => new Uint8Array(m.buffer));
      this.bind();
    } else this.place(store.capacity);
  }

  static reader(store: PointStore, layout: BinaryLayout, row: number): BinaryQuantized {
    return new BinaryQuantized(store, layout.metric, { layout, row });
  }

  /** What a search worker needs to read the codes, or null while they are in a plain buffer. */
  layout(): BinaryLayout | null {
    if (!this.memories.length || !isShared(this.segments[0]!)) return null;
    this.layoutCache ??= { kind: 'binary', memories: this.memories, metric: this.metric };
    return this.layoutCache;
  }

  get byteLength(): number {
    return this.segments.reduce((sum, s) => sum + s.length, 0);
  }

  private place(cap: number): void {
    if (cap <= this.placedCap) return;
    const slots = this.store.segmentSlots;
    const placed = placeCodeSegments({ bytes: this.segments, memories: this.memories }, this.stride, cap, slots, codeHeadRows(this.stride, false));
    this.segmentKernels = placed.memories.map((m, k) => (m === this.memories[k] ? this.segmentKernels[k]! : binaryKernelsFor(m)));
    this.memories = placed.memories;
    this.segments = placed.bytes;
    this.placedCap = placed.bytes.length > 1 ? placed.bytes.length * slots : placed.bytes[0]!.length / this.stride - READER_SLOTS;
    const { queryAt, stride } = this;
    for (let k = 1; k < this.segments.length; k++) this.segments[k]!.set(this.segments[0]!.subarray(queryAt, queryAt + stride), queryAt);
    this.layoutCache = null;
    this.bind();
  }

  /** One segment as before segments came (bound to its rows alone), or each slot's segment found by a shift. */
  private bind(): void {
    const { stride, byHamming, queryAt, segments } = this;
    const kernels = this.segmentKernels[0];
    const bits = segments[0]!;
    const base = stride * READER_SLOTS;
    if (segments.length === 1) {
      this.toQuery = kernels ? (x) => byHamming[kernels.hamming(queryAt, base + stride * x, stride)]! : (x) => byHamming[hammingBits(bits, queryAt, bits, base + stride * x, stride)]!;
      return;
    }
    const { segmentShift: shift, segmentMask: mask } = this.store;
    const all = this.segmentKernels;
    this.toQuery = kernels
      ? (x) => byHamming[all[x >>> shift]!.hamming(queryAt, base + stride * (x & mask), stride)]!
      : (x) => byHamming[hammingBits(bits, queryAt, segments[x >>> shift]!, base + stride * (x & mask), stride)]!;
  }

  /** Codes slot's vector (`dim` floats of `v` at `vo`) into its row. */
  private encodeSlot(slot: number, v: Float32Array, vo: number): void {
    const { segmentShift, segmentMask } = this.store;
    this.encodeInto(v, vo, this.segments[slot >>> segmentShift]!, this.stride * ((slot & segmentMask) + READER_SLOTS));
  }

  private encodeInto(v: Float32Array, vo: number, bits: Uint8Array, at: number): void {
    const { dim } = this;
    bits.fill(0, at, at + this.stride);
    for (let i = 0; i < dim; i++) if (v[vo + i]! > 0) bits[at + (i >> 3)]! |= 1 << (i & 7);
  }

  add(slot: number): void {
    this.place(this.store.capacity);
    this.encodeSlot(slot, this.store.row(slot), 0);
  }

  rebuild(): void {
    const { store } = this;
    this.built = Infinity;
    this.place(store.capacity);
    store.forEachVector((slot, vectors, at) => this.encodeSlot(slot, vectors, at));
  }

  /** Sign bits need no range: a build in steps codes the slots in order, and add() any slot meanwhile. */
  buildInSteps(): void {
    this.built = 0;
  }

  get whole(): boolean {
    return this.built === Infinity;
  }

  /** Sign bits have no range to follow the data: never re-coded, only built in steps. */
  get recoding(): boolean {
    return !this.whole;
  }

  recodeStep(): boolean {
    if (this.whole) return false;
    const { store } = this;
    this.place(store.capacity);
    const to = Math.min(store.slotCount, this.built + Math.max(1, Math.floor(BUILD_VALUES / this.dim)));
    store.forEachVector((slot, vectors, at) => this.encodeSlot(slot, vectors, at), this.built, to);
    this.built = to >= store.slotCount ? Infinity : to;
    return !this.whole;
  }

  nodeDistance(): null {
    return null;
  }

  /** All of them: one bit a dimension ties often, and the floats must choose among the ties. */
  rescoreCount(_k: number, ef: number): number {
    return ef;
  }

  setQuery(q: Float32Array): void {
    const { queryAt, stride, segments } = this;
    this.encodeInto(q, 0, segments[0]!, queryAt);
    for (let k = 1; k < segments.length; k++) segments[k]!.set(segments[0]!.subarray(queryAt, queryAt + stride), queryAt);
  }
}
