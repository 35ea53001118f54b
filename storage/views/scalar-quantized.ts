import type { Distance } from '../events/types.js';
import { int8KernelsFor, type Int8Kernels } from './int8-kernels.js';
import { dotInt8, l1Int8, l2Int8 } from './int8-scalar-kernels.js';
import { codeAreaRows, codeHeadRows, placeCodeSegments, type CodeSegments } from './code-memory.js';
import { LEVELS, RangeScan, type Int8Range } from './int8-range.js';
import type { QueryBatch } from './distance-batch.js';
import { batchViews } from './distance-batch.js';
import type { PointStore } from './point-store.js';
import { grownCopy, isShared } from './shared-arrays.js';

/** What a search worker needs to walk a graph on a store's int8 codes (ScalarQuantized.reader). */
export interface ScalarLayout {
  kind: 'scalar';
  /** One memory per segment of codes (the store's segment size). */
  memories: WebAssembly.Memory[];
  sums: Int32Array;
  dim: number;
  metric: Distance;
  mid: number;
  step: number;
}

/** Values a step of a re-code reads or codes (about 10 µs of work), one step each time a point is coded. */
const RECODE_VALUES = 8192;
/**
 * Candidates rescored per hit wanted (at most ef): int8 ranks as the floats do but for near ties,
 * so the k best by the floats are among its first few k. Measured on clustered data (200,000 x
 * 128 Euclid, 100,000 x 768 Cosine, ef 64 to 200), the first 3k rescored gave the recall of all
 * ef rescored, and 2k within 0.002 of it.
 */
const RESCORE_PER_HIT = 4;

/**
 * Codes made anew on a new range while the current ones serve every search (the data doubled
 * since the range was placed): first the values of the slots the store held are read for the
 * range (`phase` 'range', slots below `next` read), then every slot is coded on it into codes of
 * its own ('code', slots below `next` coded, and each point coded since coded here as well), a
 * step at a time; once all are, they replace the current codes at once.
 */
interface Recoding {
  phase: 'range' | 'code';
  next: number;
  /** The slots the store held when the re-code began: those whose values place the range. */
  readonly end: number;
  readonly scan: RangeScan;
  range: Int8Range;
  placed: CodeSegments;
  segments: Int8Array[];
  placedCap: number;
  sums: Int32Array;
  /** The live count when it began (placedFor once it replaces the current codes). */
  readonly placedFor: number;
}

/**
 * Int8 codes of a store's vectors (scalar quantization), one contiguous byte array: a query row
 * and a batch area for each thread that searches (READER_SLOTS: the writing thread's first, then
 * the search workers'; code-memory.ts codeHeadRows), then each slot's codes, every row padded with
 * zeros to a multiple of 16 bytes. A value
 * x is coded round((x - mid) / step) clamped to ±127, with one mid and step for the whole store,
 * placed so [mid - 127 step, mid + 127 step] covers the quantile of the values (all of them by
 * default). Distances then come from integer sums:
 *   Euclid  |q - x|² ≈ step² Σ(cq - cx)²          (the offsets cancel)
 *   Manhattan  |q - x|₁ ≈ step Σ|cq - cx|         (so do they; Qdrant's int8 L1 too)
 *   Dot     between slots: a·b ≈ step² Σ ca cb + step mid (Σca + Σcb) + dim mid²   (Σc kept per slot)
 *           to a query, coded on a scale of its own, q ≈ qstep cq (no offset):
 *           q·x ≈ step qstep Σ cq cx + mid Σq   (no per-slot term: a search reads only the codes)
 *   Cosine  1 - q·x on the unit vectors.
 * The codes are derived: made as points are linked into the HNSW graph (the indexer), all of
 * them again on a new range whenever the live count has doubled since the range was placed (so it
 * follows the data: a Recoding, a few slots each time a point is coded, beside the current codes
 * until it is done), on load, and when quantization is turned on for stored vectors (at once for
 * a few; else a Recoding from no codes, buildInSteps, searches walking the floats meanwhile).
 * Searches walk the graph with these distances and rescore with the floats.
 * Large code arrays live in a WebAssembly memory searched by the SIMD kernels (shared: search
 * workers read it through a reader, ScalarQuantized.reader); small ones in a plain Int8Array
 * searched by the scalar twins (same integers, so the same ranking). Past the store's segment size
 * the codes are in segments as its floats are (code-memory.ts, vector-segments.md).
 */
export class ScalarQuantized {
  /** Bytes per row: dim rounded up to 16. */
  readonly stride: number;
  /** Segment 0's codes: this thread's query row at queryAt, slot s at stride * (s + headRows). */
  codes: Int8Array;
  /** Each segment's codes: the threads' areas, slot s at stride * ((s & segmentMask) + headRows), then (past one) cross rows. */
  private segments: Int8Array[];
  /** Rows before the first slot's: each thread's query row and batch area. */
  private readonly headRows: number;
  /** This thread's row among READER_SLOTS (its cross row's), and its query row's byte offset. */
  private readonly row: number;
  private readonly queryAt: number;
  /** Batched distances to the query while the codes are in one memory, else null (hnsw.ts QueryDistance). */
  batch: (QueryBatch & { scale: number; offset: number }) | null = null;
  private layoutCache: ScalarLayout | null = null;
  private memories: WebAssembly.Memory[] = [];
  private kernels: Int8Kernels | null = null;
  private segmentKernels: Int8Kernels[] = [];
  /** Slots the codes have room for. */
  private placedCap = -1;
  /** Σ codes per slot (the Dot correction between two slots). */
  private sums: Int32Array;
  private mid = 0;
  private step = 1;
  /** Dot and Cosine: step x the query's own step, and mid Σq (setQuery). */
  private queryScale = 1;
  private queryOffset = 0;
  /** The live count when the range was placed (0: never). */
  private placedFor = 0;
  private recode: Recoding | null = null;
  private readonly dim: number;
  /** Distance from the query (setQuery) to slot x, internal (smaller is closer); rebound as the codes move. */
  toQuery: (x: number) => number = () => 0;
  /** Between slots a and b on their codes (linking a graph whose floats are on disk); rebound as the codes move. */
  between: (a: number, b: number) => number = () => 0;
  /** Squared Euclidean distance between slots a and b on their codes, whatever the metric. */
  l2Between: (a: number, b: number) => number = () => 0;

  /** Codes of `store`'s vectors; with `reader`, a search worker's view of another thread's codes, in its own query row. */
  constructor(private readonly store: PointStore, private readonly metric: Distance, private readonly quantile: number | null, reader?: { layout: ScalarLayout; row: number }) {
    this.dim = store.dim;
    this.stride = Math.ceil(this.dim / 16) * 16;
    this.headRows = codeHeadRows(this.stride, true);
    this.row = reader?.row ?? 0;
    this.queryAt = this.stride * this.row * codeAreaRows(this.stride, true);
    if (reader) {
      const { memories, sums, mid, step } = reader.layout;
      this.memories = memories;
      this.segmentKernels = memories.map((m) => int8KernelsFor(m));
      this.kernels = this.segmentKernels[0]!;
      this.segments = memories.map((m) => new Int8Array(m.buffer));
      this.codes = this.segments[0]!;
      this.sums = sums;
      this.mid = mid;
      this.step = step;
    } else {
      // Placed by the first rebuild, or by the build in steps that replaces them.
      this.codes = new Int8Array(0);
      this.segments = [];
      this.sums = new Int32Array(0);
    }
    this.bind();
  }

  /** A search worker's reader of the codes a layout names, for `store` (the worker's reader of the same store). */
  static reader(store: PointStore, layout: ScalarLayout, row: number): ScalarQuantized {
    return new ScalarQuantized(store, layout.metric, null, { layout, row });
  }

  /**
   * What a search worker needs to read the codes (the same object until the range or the arrays
   * change), or null while they are in a plain buffer. The first call moves the sums onto a
   * shared buffer.
   */
  layout(): ScalarLayout | null {
    if (!this.memories.length || !isShared(this.codes)) return null;
    if (!isShared(this.sums)) {
      this.sums = grownCopy(this.sums, this.sums.length, true);
      this.bind();
    }
    this.layoutCache ??= { kind: 'scalar', memories: this.memories, sums: this.sums, dim: this.dim, metric: this.metric, mid: this.mid, step: this.step };
    return this.layoutCache;
  }

  /** Bytes the codes take (the query row included). */
  get byteLength(): number {
    return this.segments.reduce((sum, s) => sum + s.length, 0);
  }

  /** Room for `cap` slots, in a WebAssembly memory once large (code-memory.ts). */
  private place(cap: number): void {
    if (cap <= this.placedCap) return;
    const { stride } = this;
    const old = { bytes: this.segments.map((c) => new Uint8Array(c.buffer, c.byteOffset, c.length)), memories: this.memories };
    const placed = placeCodeSegments(old, stride, cap, this.store.segmentSlots, this.headRows);
    this.segmentKernels = placed.memories.map((m, k) => (m === this.memories[k] ? this.segmentKernels[k]! : int8KernelsFor(m)));
    this.kernels = this.segmentKernels[0] ?? null;
    this.memories = placed.memories;
    this.segments = int8Views(placed);
    this.codes = this.segments[0]!;
    this.placedCap = this.slotsIn(placed);
    // A segment made anew takes the query as coded in segment 0.
    for (let k = 1; k < this.segments.length; k++) this.segments[k]!.set(this.codes.subarray(this.queryAt, this.queryAt + stride), this.queryAt);
    // A sum for every slot the codes have room for (past one segment, more than `cap`).
    this.sums = grownCopy(this.sums.subarray(0, Math.min(this.sums.length, this.placedCap)), this.placedCap);
    this.layoutCache = null;
    this.bind();
  }

  /** Slots that placed codes have room for. */
  private slotsIn(placed: CodeSegments): number {
    return placed.bytes.length > 1 ? placed.bytes.length * this.store.segmentSlots : placed.bytes[0]!.length / this.stride - this.headRows;
  }

  /** Binds toQuery to the kernels, the range and the sums as they are now (after each move or new range). */
  private bind(): void {
    this.batch = null;
    if (this.segments.length > 1) {
      this.bindSegments();
      return;
    }
    const { stride, kernels, metric, dim, sums, queryAt } = this;
    const base = stride * this.headRows;
    const step2 = this.step * this.step;
    const cross = this.step * this.mid;
    const constant = dim * this.mid * this.mid;
    const sumsOf = (a: number, b: number) => cross * (sums[a]! + sums[b]!) + constant;
    const step = this.step;
    if (kernels) {
      const { l2, dot, l1 } = kernels;
      this.l2Between = (a, b) => step2 * l2(base + stride * a, base + stride * b, stride);
      const dotBetween = (a: number, b: number) => step2 * dot(base + stride * a, base + stride * b, stride) + sumsOf(a, b);
      this.between = metric === 'Euclid' ? this.l2Between : metric === 'Manhattan' ? (a, b) => step * l1(base + stride * a, base + stride * b, stride) : metric === 'Cosine' ? (a, b) => 1 - dotBetween(a, b) : (a, b) => -dotBetween(a, b);
      if (metric === 'Euclid') this.toQuery = (x) => step2 * l2(queryAt, base + stride * x, stride);
      else if (metric === 'Manhattan') this.toQuery = (x) => step * l1(queryAt, base + stride * x, stride);
      else if (metric === 'Cosine') this.toQuery = (x) => 1 - (this.queryScale * dot(queryAt, base + stride * x, stride) + this.queryOffset);
      else this.toQuery = (x) => -(this.queryScale * dot(queryAt, base + stride * x, stride) + this.queryOffset);
      this.bindBatch(kernels, base);
      return;
    }
    const codes = this.codes;
    this.l2Between = (a, b) => step2 * l2Int8(codes, base + stride * a, codes, base + stride * b, stride);
    const dotBetween = (a: number, b: number) => step2 * dotInt8(codes, base + stride * a, codes, base + stride * b, stride) + sumsOf(a, b);
    this.between = metric === 'Euclid' ? this.l2Between : metric === 'Manhattan' ? (a, b) => step * l1Int8(codes, base + stride * a, codes, base + stride * b, stride) : metric === 'Cosine' ? (a, b) => 1 - dotBetween(a, b) : (a, b) => -dotBetween(a, b);
    if (metric === 'Euclid') this.toQuery = (x) => step2 * l2Int8(codes, queryAt, codes, base + stride * x, stride);
    else if (metric === 'Manhattan') this.toQuery = (x) => step * l1Int8(codes, queryAt, codes, base + stride * x, stride);
    else if (metric === 'Cosine') this.toQuery = (x) => 1 - (this.queryScale * dotInt8(codes, queryAt, codes, base + stride * x, stride) + this.queryOffset);
    else this.toQuery = (x) => -(this.queryScale * dotInt8(codes, queryAt, codes, base + stride * x, stride) + this.queryOffset);
  }

  /**
   * The batch area after this thread's query row, with the same arithmetic as toQuery: Euclid
   * step² l2, Manhattan step l1, Cosine 1 - (queryScale dot + queryOffset), Dot -(queryScale dot
   * + queryOffset); setQuery keeps its scale and offset the query's.
   */
  private bindBatch(kernels: Int8Kernels, base: number): void {
    const { stride, metric, queryAt } = this;
    const { slots, out, slotsAt, outAt } = batchViews(this.codes.buffer, this.codes.byteOffset + queryAt + stride);
    const many = metric === 'Euclid' ? kernels.l2Many : metric === 'Manhattan' ? kernels.l1Many : kernels.dotMany;
    const onRange = this.codedOnRange;
    this.batch = {
      slots,
      out,
      shift: metric === 'Cosine' ? 1 : 0,
      sign: onRange ? 1 : -1,
      scale: metric === 'Euclid' ? this.step * this.step : metric === 'Manhattan' ? this.step : this.queryScale,
      offset: onRange ? 0 : this.queryOffset,
      toQuery: (n) => many(queryAt, slotsAt, n, outAt, base, stride, stride),
    };
  }

  /**
   * Several segments: each slot's segment's kernels (or the scalar twins), a pair across two
   * segments compared in a's, b's row copied into this thread's cross row there.
   */
  private bindSegments(): void {
    const { stride, metric, dim, sums, queryAt, segments, segmentKernels: kernels } = this;
    const { segmentShift: shift, segmentMask: mask, segmentSlots } = this.store;
    const base = stride * this.headRows;
    const crossAt = stride * (this.headRows + segmentSlots + this.row);
    const rowAt = (x: number) => base + stride * (x & mask);
    const pairOf = (kernel: 'l2' | 'dot' | 'l1', scalar: typeof l2Int8) =>
      kernels.length > 0
        ? (a: number, b: number) => {
            const sa = a >>> shift;
            const sb = b >>> shift;
            if (sa === sb) return kernels[sa]![kernel](rowAt(a), rowAt(b), stride);
            segments[sa]!.set(segments[sb]!.subarray(rowAt(b), rowAt(b) + stride), crossAt);
            return kernels[sa]![kernel](rowAt(a), crossAt, stride);
          }
        : (a: number, b: number) => scalar(segments[a >>> shift]!, rowAt(a), segments[b >>> shift]!, rowAt(b), stride);
    const queryOf = (kernel: 'l2' | 'dot' | 'l1', scalar: typeof l2Int8) =>
      kernels.length > 0 ? (x: number) => kernels[x >>> shift]![kernel](queryAt, rowAt(x), stride) : (x: number) => scalar(segments[0]!, queryAt, segments[x >>> shift]!, rowAt(x), stride);
    const step2 = this.step * this.step;
    const cross = this.step * this.mid;
    const constant = dim * this.mid * this.mid;
    const l2Pair = pairOf('l2', l2Int8);
    const dotPair = pairOf('dot', dotInt8);
    const l2Query = queryOf('l2', l2Int8);
    const dotQuery = queryOf('dot', dotInt8);
    this.l2Between = (a, b) => step2 * l2Pair(a, b);
    const dotBetween = (a: number, b: number) => step2 * dotPair(a, b) + cross * (sums[a]! + sums[b]!) + constant;
    const step = this.step;
    if (metric === 'Manhattan') {
      const l1Pair = pairOf('l1', l1Int8);
      const l1Query = queryOf('l1', l1Int8);
      this.between = (a, b) => step * l1Pair(a, b);
      this.toQuery = (x) => step * l1Query(x);
      return;
    }
    this.between = metric === 'Euclid' ? this.l2Between : metric === 'Cosine' ? (a, b) => 1 - dotBetween(a, b) : (a, b) => -dotBetween(a, b);
    const dotToQuery = (x: number) => this.queryScale * dotQuery(x) + this.queryOffset;
    if (metric === 'Euclid') this.toQuery = (x) => step2 * l2Query(x);
    else if (metric === 'Cosine') this.toQuery = (x) => 1 - dotToQuery(x);
    else this.toQuery = (x) => -dotToQuery(x);
  }

  /** Codes slot's vector (`dim` floats of `v` at `vo`) into its row; answers their sum. */
  private encodeSlot(slot: number, v: Float32Array, vo: number): number {
    const { segmentShift, segmentMask } = this.store;
    return this.encodeInto(v, vo, this.segments[slot >>> segmentShift]!, this.stride * ((slot & segmentMask) + this.headRows), this.mid, this.step);
  }

  /** Codes `dim` floats of `v` at `vo` into row `at` (a byte offset) of `codes` on the range `mid`, `step`; answers their sum. */
  private encodeInto(v: Float32Array, vo: number, codes: Int8Array, at: number, mid: number, step: number): number {
    const { dim } = this;
    const inverse = 1 / step;
    let sum = 0;
    for (let i = 0; i < dim; i++) {
      const c = Math.max(-LEVELS, Math.min(LEVELS, Math.round((v[vo + i]! - mid) * inverse)));
      codes[at + i] = c;
      sum += c;
    }
    return sum;
  }

  /**
   * Codes one slot's vector (a point just linked into the graph). Once the data has doubled
   * since the range was placed, every slot is coded again on a new range (Recoding), a step at a
   * time with each point coded after (and each turn of the indexer: recodeStep), so that no one
   * write codes them all while requests wait (500,000 x 128 took 1.3 s, 200,000 x 768 2.7 s).
   */
  add(slot: number): void {
    const row = this.store.row(slot);
    // While a build in steps is under way there are no current codes to keep: only its own.
    if (this.whole) {
      this.place(this.store.capacity);
      this.sums[slot] = this.encodeSlot(slot, row, 0);
    }
    const recoding = this.recode;
    if (recoding) {
      if (recoding.phase === 'code' && slot < recoding.next) this.recodeSlot(recoding, slot, row, 0);
      this.recodeSome(recoding);
    } else if (this.store.liveCount >= 2 * this.placedFor) this.startRecoding();
  }

  /** Places the range on the store's vectors as they are, and codes every slot, at once (a re-code under way is dropped). */
  rebuild(): void {
    const { store } = this;
    this.recode = null;
    this.place(store.capacity);
    const scan = this.rangeScan(store.slotCount);
    store.forEachVector((_, v, at) => scan.visit(v, at));
    const range = scan.range();
    if (range) ({ mid: this.mid, step: this.step } = range);
    this.layoutCache = null;
    this.bind();
    this.placedFor = Math.max(1, store.liveCount);
    this.sums.fill(0, 0, store.slotCount);
    store.forEachVector((slot, vectors, at) => (this.sums[slot] = this.encodeSlot(slot, vectors, at)));
  }

  /**
   * Codes every slot a step at a time (a Recoding from no codes: the range read, then each slot
   * coded on it); until it ends the codes are not whole and no search walks them.
   */
  buildInSteps(): void {
    this.placedFor = 0;
    this.startRecoding();
  }

  get whole(): boolean {
    return this.placedFor > 0;
  }

  /** A scan for the range of the vectors of the slots below `end` (the values they hold counted first). */
  private rangeScan(end: number): RangeScan {
    const { hasVector } = this.store;
    let held = 0;
    for (let slot = 0; slot < end; slot++) if (hasVector[slot]) held++;
    return new RangeScan(this.dim, this.quantile, held * this.dim);
  }

  private startRecoding(): void {
    const { store } = this;
    const end = store.slotCount;
    this.recode = { phase: 'range', next: 0, end, scan: this.rangeScan(end), range: { mid: this.mid, step: this.step }, placed: { bytes: [], memories: [] }, segments: [], placedCap: -1, sums: new Int32Array(0), placedFor: Math.max(1, store.liveCount) };
  }

  get recoding(): boolean {
    return this.recode !== null;
  }

  recodeStep(): boolean {
    if (this.recode) this.recodeSome(this.recode);
    return this.recode !== null;
  }

  /** One step of a re-code: RECODE_VALUES values read for the range, or coded on it; the new codes take over once every slot is. */
  private recodeSome(r: Recoding): void {
    const { store } = this;
    const slots = Math.max(1, Math.floor(RECODE_VALUES / this.dim));
    if (r.phase === 'range') {
      const to = Math.min(r.end, r.next + slots);
      store.forEachVector((_, v, at) => r.scan.visit(v, at), r.next, to);
      r.next = to;
      if (r.next < r.end) return;
      r.range = r.scan.range() ?? r.range;
      r.phase = 'code';
      r.next = 0;
    }
    this.placeRecoding(r, store.capacity);
    const to = Math.min(store.slotCount, r.next + slots);
    r.sums.fill(0, r.next, to);
    store.forEachVector((slot, v, at) => this.recodeSlot(r, slot, v, at), r.next, to);
    r.next = to;
    if (r.next >= store.slotCount) this.finishRecoding(r);
  }

  /** Codes a slot the re-code has room for (one below `next`: recodeSome placed it) on its range. */
  private recodeSlot(r: Recoding, slot: number, v: Float32Array, at: number): void {
    const { segmentShift, segmentMask } = this.store;
    r.sums[slot] = this.encodeInto(v, at, r.segments[slot >>> segmentShift]!, this.stride * ((slot & segmentMask) + this.headRows), r.range.mid, r.range.step);
  }

  /** Room for `cap` slots in the re-code's codes, as place() makes in the current ones. */
  private placeRecoding(r: Recoding, cap: number): void {
    if (cap <= r.placedCap) return;
    r.placed = placeCodeSegments(r.placed, this.stride, cap, this.store.segmentSlots, this.headRows);
    r.segments = int8Views(r.placed);
    r.placedCap = this.slotsIn(r.placed);
    r.sums = grownCopy(r.sums.subarray(0, Math.min(r.sums.length, r.placedCap)), r.placedCap);
  }

  /** The re-code's codes, range and sums replace the current ones (a new layout for the search workers). */
  private finishRecoding(r: Recoding): void {
    this.recode = null;
    this.memories = r.placed.memories;
    this.segmentKernels = this.memories.map((m) => int8KernelsFor(m));
    this.kernels = this.segmentKernels[0] ?? null;
    this.segments = r.segments;
    this.codes = this.segments[0]!;
    this.placedCap = r.placedCap;
    this.sums = r.sums;
    ({ mid: this.mid, step: this.step } = r.range);
    this.placedFor = r.placedFor;
    this.layoutCache = null;
    this.bind();
  }

  /** Whether a query is coded on the store's range (a distance of differences), not on a scale of its own (a product). */
  private get codedOnRange(): boolean {
    return this.metric === 'Euclid' || this.metric === 'Manhattan';
  }

  nodeDistance(): ScalarQuantized {
    return this;
  }

  rescoreCount(k: number, ef: number): number {
    return Math.min(ef, RESCORE_PER_HIT * k);
  }

  /**
   * Codes a prepared query (unit length for Cosine) into this thread's query row: on the store's
   * range for Euclid and Manhattan (the offsets cancel), on a symmetric scale of its own for Dot
   * and Cosine, so that a distance needs no per-slot sum (see the class comment).
   */
  setQuery(q: Float32Array): void {
    const { queryAt, stride, codes, segments, dim } = this;
    if (this.codedOnRange) this.encodeInto(q, 0, codes, queryAt, this.mid, this.step);
    else {
      let most = 0;
      let sum = 0;
      for (let i = 0; i < dim; i++) {
        const x = q[i]!;
        sum += x;
        if (Math.abs(x) > most) most = Math.abs(x);
      }
      const qstep = most > 0 ? most / LEVELS : 1;
      const inverse = 1 / qstep;
      for (let i = 0; i < dim; i++) codes[queryAt + i] = Math.round(q[i]! * inverse);
      this.queryScale = this.step * qstep;
      this.queryOffset = this.mid * sum;
      if (this.batch) {
        this.batch.scale = this.queryScale;
        this.batch.offset = this.queryOffset;
      }
    }
    for (let k = 1; k < segments.length; k++) segments[k]!.set(codes.subarray(queryAt, queryAt + stride), queryAt);
  }
}

/** Each segment's bytes as signed codes. */
function int8Views(placed: CodeSegments): Int8Array[] {
  return placed.bytes.map((b) => new Int8Array(b.buffer, b.byteOffset, b.length));
}
