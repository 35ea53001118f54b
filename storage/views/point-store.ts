import type { ByteReader } from '../codec/byte-reader.js';
import type { ByteWriter } from '../codec/byte-writer.js';
import { readRaw } from '../codec/raw-arrays.js';
import { RAW_PIECE_BYTES, rawPieces, type Captured, type Sliced } from '../codec/slices.js';
import { parsePayloadText, payloadText } from '../codec/payload-text.js';
import { CorruptDataError } from '../errors.js';
import type { Payload } from '../events/types.js';
import { comparePointIds, uuidFromWords, uuidIntoWords, type PointId } from '../point-id.js';
import type { FloatFile } from './float-file.js';
import { IdSlotMap } from './id-slot-map.js';
import { kernelsFor, type Kernels } from './simd-kernels.js';
import { CAN_SHARE, grownInPlace, isShared, slotsToReserve } from './shared-arrays.js';
import { READER_SLOTS, queryStride, readerAreaBytes, segmentMemoryBytes, segmentSlotsFor } from './vector-segments.js';

/** What `ids` holds for a slot whose id is a UUID (its words are in `uuidWords`). */
export const UUID_ID = -1;

/** Slot states. A removed slot stays REMOVED until the index has unlinked it, then it is FREE. */
export const FREE = 0;
export const LIVE = 1;
export const REMOVED = 2;

const EMPTY_LABELS: readonly string[] = Object.freeze([]);
/** A capture of a store being written: the vectors of its slots (those below `slots`) given to new points meanwhile, as they were. */
interface Keeper {
  slots: number;
  kept: Map<number, Float32Array>;
}

/** Payloads encoded between two yields of a snapshot's encoding (about a millisecond's worth of small ones). */
const PAYLOADS_PER_PIECE = 1024;

const PAGE = 65536;
export { MAX_MEMORY_BYTES, READER_SLOTS } from './vector-segments.js';
/**
 * Vectors move into WebAssembly memories once they take this many bytes. A process can create
 * only about 12,800 memories (each reserves a large virtual range), so small collections, most
 * of them in a database of many, stay in plain ArrayBuffers, where they are searched by the
 * scalar twins of the kernels (scalar-kernels.ts: the same results bit for bit).
 */
export const SIMD_FROM_BYTES = 1 << 18;
const INITIAL_CAPACITY = 16;
/** Slots are int32 in the id map. */
const MAX_SLOTS = 2 ** 31 - 1;

/** A memory for `bytes` (shared where threads can share), or null when the process can create no more (the caller stays scalar). */
function tryMemory(bytes: number, maxBytes: number): WebAssembly.Memory | null {
  try {
    return new WebAssembly.Memory({ initial: Math.ceil(bytes / PAGE), maximum: Math.ceil(maxBytes / PAGE), shared: CAN_SHARE });
  } catch {
    return null;
  }
}

/** What a search worker needs to read a store whose vectors are in WebAssembly memories. */
export interface StoreLayout {
  dim: number;
  /** One memory per segment (on disk: the one holding the query areas). */
  memories: WebAssembly.Memory[];
  segmentSlots: number;
  ids: Float64Array;
  uuidWords: Uint32Array | null;
  state: Uint8Array;
  hasVector: Uint8Array;
  /** The vectors are in a file (the memory holds only the query areas): a reader walks on codes only. */
  onDisk: boolean;
}

const closed = (): never => {
  throw new Error('the float vectors of a closed database cannot be read or written');
};
/** Where a store's vectors are once its float file is closed (closeFile). */
const CLOSED_FILE: FloatFile = { write: closed, read: closed, close: () => undefined };

/** Vectors read from or written to a float file at a time (moves, snapshots, re-coding). */
const FILE_CHUNK_BYTES = 1 << 20;

/** Where a store's vectors are read and compared: its arrays or memories, query areas and kernels (PointStore.placement). */
interface Placement {
  vectors: Float32Array;
  segments: Float32Array[];
  query: Float32Array;
  queries: Float32Array[];
  crossRows: Float32Array[];
  memories: WebAssembly.Memory[];
  kernels: Kernels | null;
  segmentKernels: Kernels[];
}

/**
 * The points of one collection in slots: the vectors in segments of `segmentSlots` slots (a
 * power of two: slot >>> segmentShift is the segment, (slot & segmentMask) * dim the offset in
 * it; vector-segments.md), integer ids in a Float64Array (UUID ids as four words each in a second
 * array made when the first UUID arrives), payloads and labels beside them, freed slots reused.
 * Small stores keep the vectors in plain ArrayBuffers; from SIMD_FROM_BYTES on each segment
 * lives in its own WebAssembly memory, after the query areas (READER_SLOTS), so the SIMD distance
 * kernels read them in place. The move happens as the store grows, and calls onRelocate.
 * With a float file (toDisk: Qdrant's on_disk) the vectors leave RAM: one memory keeps only the
 * query areas and two rows that vectors are read into to be compared (readRow), and every read
 * of a vector goes to the file.
 */
export class PointStore {
  /** Segment 0's vectors (the only segment of most stores); replaced when the store grows, so never hold on to it across writes. */
  vectors: Float32Array;
  /** Each segment's vectors, slot & segmentMask at row (slot & segmentMask) * dim; replaced as the store grows. */
  segments: Float32Array[] = [];
  /** This thread's query area in segment 0 (in a plain array while there is no memory), dim floats; setQuery writes every segment's. */
  query: Float32Array;
  /** This thread's query area in each segment's memory (empty without memories). */
  queries: Float32Array[] = [];
  /** Past one segment in memories: this thread's cross row in each (a vector of another segment is copied there to be compared). */
  crossRows: Float32Array[] = [];
  /** Byte offset of this thread's query area in each memory. */
  readonly queryOffset: number;
  /** Byte offset of this thread's batch area (after its query row) in segment 0's memory: slot numbers, then results (distance-batch.ts). */
  readonly batchOffset: number;
  /** Byte offset of this thread's cross row in each memory of a store of several segments. */
  readonly crossOffset: number;
  /** Byte offset of slot 0's vector in the memory (of each segment's first slot in its memory). */
  readonly base: number;
  readonly segmentSlots: number;
  readonly segmentShift: number;
  readonly segmentMask: number;
  /** The SIMD kernels over segment 0's memory; null while the vectors are in plain arrays. */
  kernels: Kernels | null = null;
  /** The SIMD kernels over each segment's memory (empty while plain). */
  segmentKernels: Kernels[] = [];
  /** Told when the vectors move into WebAssembly memories, gain a segment, or go to or from a file (the distance functions rebind). */
  onRelocate: (() => void) | null = null;
  /** The segments' memories; on disk, the one holding the query areas and rows (or none). */
  private memories: WebAssembly.Memory[] = [];
  /** Where the vectors are while they are on disk (then `vectors` is empty). */
  private file: FloatFile | null = null;
  /** A move of the vectors into a file under way (beginToDisk): the file, and the slots below `next` written to it. */
  private moving: { file: FloatFile; next: number } | null = null;
  /** A move of the vectors back from their file under way (beginToRam): their places in RAM, made aside, and the slots below `next` read into them. */
  private movingBack: { placement: Placement; next: number } | null = null;
  /** On disk: the two rows readRow fills (in the memory, at rowOffsets, when there is one). */
  rows: [Float32Array, Float32Array] = [new Float32Array(0), new Float32Array(0)];
  /** Byte offsets of `rows` in the memory. */
  readonly rowOffsets: [number, number];
  /** The slot each row holds (-1: none), so that comparing one vector with many reads it once. */
  private readonly rowHeld = [-1, -1];
  /** On disk: the buffer a capture reads its pieces of vectors into. */
  private pieceBuffer = new Float32Array(0);
  /** A slot's integer id, or UUID_ID. */
  ids: Float64Array;
  /** Four words per slot, for slots whose id is a UUID; null while there is none. */
  uuidWords: Uint32Array | null = null;
  state: Uint8Array;
  hasVector: Uint8Array;
  payloads: (Payload | null)[] = [];
  labels: (readonly string[])[] = [];
  /** One past the highest slot ever handed out. */
  slotCount = 0;
  liveCount = 0;
  /** Live points that have a vector: kept as they change, so a metrics scrape does not walk every slot. */
  liveVectors = 0;
  private readonly idToSlot = new IdSlotMap();
  private readonly freeSlots: number[] = [];
  private sorted: Int32Array | null = null;
  /** Captures being written (capture()): each keeps the vector of a slot below its count that a new point is given meanwhile. */
  private readonly keepers = new Set<Keeper>();

  /** The most slots the store can hold (no memory caps it: past one segment, it takes more). */
  readonly maxSlots = MAX_SLOTS;

  /**
   * A store of `dim`-dimensional vectors in segments of `segmentSlots` slots (a power of two;
   * by default as many as fill one memory, vector-segments.ts); with `reader`, a search worker's
   * read-only view of another thread's store (its query areas the reader's own), never written.
   */
  constructor(readonly dim: number, capacity = INITIAL_CAPACITY, segmentSlots = segmentSlotsFor(dim), reader?: { layout: StoreLayout; slot: number }) {
    if (!Number.isInteger(Math.log2(segmentSlots))) throw new RangeError(`a vector segment holds a power of two slots, not ${segmentSlots}`);
    const stride = queryStride(dim);
    const area = readerAreaBytes(dim);
    this.base = area * READER_SLOTS;
    this.segmentSlots = segmentSlots;
    this.segmentShift = Math.log2(segmentSlots);
    this.segmentMask = segmentSlots - 1;
    this.queryOffset = reader ? area * reader.slot : 0;
    this.batchOffset = this.queryOffset + stride;
    this.crossOffset = segmentMemoryBytes(dim, segmentSlots) - stride * (READER_SLOTS - (reader?.slot ?? 0));
    this.rowOffsets = [this.base, this.base + stride];
    if (reader) {
      const { layout } = reader;
      this.memories = layout.memories;
      this.ids = layout.ids;
      this.uuidWords = layout.uuidWords;
      this.state = layout.state;
      this.hasVector = layout.hasVector;
      const several = layout.memories.length > 1;
      if (!layout.onDisk) this.segments = layout.memories.map((m) => new Float32Array(m.buffer, this.base, (several ? segmentSlots : layout.ids.length) * dim));
      this.vectors = this.segments[0] ?? new Float32Array(0);
      this.queries = layout.memories.map((m) => new Float32Array(m.buffer, this.queryOffset, dim));
      if (several) this.crossRows = layout.memories.map((m) => new Float32Array(m.buffer, this.crossOffset, dim));
      this.query = this.queries[0]!;
      this.segmentKernels = layout.memories.map((m) => kernelsFor(m));
      this.kernels = this.segmentKernels[0]!;
      return;
    }
    capacity = Math.min(capacity, this.maxSlots);
    this.query = new Float32Array(dim);
    this.vectors = new Float32Array(0);
    this.placeVectors(capacity);
    this.ids = new Float64Array(capacity);
    this.state = new Uint8Array(capacity);
    this.hasVector = new Uint8Array(capacity);
  }

  /**
   * The arrays a search worker reads, or null while the vectors are in plain buffers (such
   * stores are searched in place). The first call moves the arrays onto shared buffers, where
   * they stay as they grow.
   */
  layout(): StoreLayout | null {
    if (!this.memories.length || !CAN_SHARE) return null;
    if (!isShared(this.ids)) {
      const reserve = slotsToReserve(this.capacity);
      this.ids = grownInPlace(this.ids, this.ids.length, reserve, true);
      this.state = grownInPlace(this.state, this.state.length, reserve, true);
      this.hasVector = grownInPlace(this.hasVector, this.hasVector.length, reserve, true);
      if (this.uuidWords) this.uuidWords = grownInPlace(this.uuidWords, this.uuidWords.length, 4 * reserve, true);
    }
    return { dim: this.dim, memories: this.memories, segmentSlots: this.segmentSlots, ids: this.ids, uuidWords: this.uuidWords, state: this.state, hasVector: this.hasVector, onDisk: this.file !== null };
  }

  /** Whether the vectors are in a float file rather than in RAM. */
  get onDisk(): boolean {
    return this.file !== null;
  }

  /** Writes a prepared query into this thread's query area of every segment. */
  setQuery(q: ArrayLike<number>): void {
    this.query.set(q);
    for (let k = 1; k < this.queries.length; k++) this.queries[k]!.set(q);
  }

  /** Slots whose vectors make one chunk of a float file's reads and writes (about FILE_CHUNK_BYTES). */
  private get chunkRows(): number {
    return Math.max(1, Math.floor(FILE_CHUNK_BYTES / (this.dim * 4)));
  }

  /** Calls each(first, count) for the runs of chunkRows slots in [0, n), none crossing a segment's end. */
  private forEachChunk(n: number, each: (first: number, count: number) => void, from = 0): void {
    const rows = this.chunkRows;
    for (let first = from; first < n; ) {
      const count = Math.min(rows, n - first, this.segmentSlots - (first & this.segmentMask));
      each(first, count);
      first += count;
    }
  }

  /** The vectors of slots [first, first + count), which are in one segment: a view of RAM (of `segments`, by default the store's). */
  private rowsOf(first: number, count: number, segments = this.segments): Float32Array {
    const at = (first & this.segmentMask) * this.dim;
    return segments[first >>> this.segmentShift]!.subarray(at, at + count * this.dim);
  }

  /** Moves the vectors into `file` and lets their RAM go (the distance functions rebind). */
  toDisk(file: FloatFile): void {
    this.stayOnDisk();
    if (this.file) return;
    this.cancelMove();
    this.forEachChunk(this.slotCount, (slot, count) => file.write(slot, this.rowsOf(slot, count), count));
    this.onFile(file);
  }

  /**
   * Begins moving the vectors into `file` a step at a time (moveStep), for a store too large to
   * move while requests wait: until every one is written they stay in RAM, where reads and
   * searches find them, and a vector added below the move's place is written to the file too.
   */
  beginToDisk(file: FloatFile): void {
    if (this.file || this.moving) return;
    this.moving = { file, next: 0 };
  }

  /** Whether a move into a file is under way (beginToDisk). */
  get movingToDisk(): boolean {
    return this.moving !== null;
  }

  /** Writes the next `slots` vectors of a move into its file; once all are, the store is on disk as toDisk leaves it. Answers whether the move goes on. */
  moveStep(slots: number): boolean {
    const m = this.moving;
    if (!m) return false;
    const to = Math.min(this.slotCount, m.next + slots);
    this.forEachChunk(to, (slot, count) => m.file.write(slot, this.rowsOf(slot, count), count), m.next);
    m.next = to;
    if (to < this.slotCount) return true;
    this.moving = null;
    this.onFile(m.file);
    return false;
  }

  /** Stops a move under way and lets its file go (the vectors never left RAM). */
  private cancelMove(): void {
    this.moving?.file.close();
    this.moving = null;
  }

  /** The vectors are in `file` from now on: their RAM goes. */
  private onFile(file: FloatFile): void {
    const query = Float32Array.from(this.query);
    this.file = file;
    this.dropVectors();
    this.placeRows(query);
  }

  /** Lets go of the vectors' arrays and memories. */
  private dropVectors(): void {
    this.vectors = new Float32Array(0);
    this.segments = [];
    this.queries = [];
    this.crossRows = [];
    this.memories = [];
    this.kernels = null;
    this.segmentKernels = [];
  }

  /** Closes the float file for good (a closed database); a later read of the vectors throws. */
  closeFile(): void {
    this.cancelMove();
    this.stayOnDisk();
    if (!this.file || this.file === CLOSED_FILE) return;
    this.file.close();
    this.file = CLOSED_FILE;
  }

  /** Reads the vectors back from their file into RAM and closes it (the distance functions rebind); a move into a file under way stops. */
  toRam(): void {
    this.cancelMove();
    if (!this.file) return;
    this.beginToRam();
    this.toRamStep(this.slotCount);
  }

  /**
   * Begins moving the vectors back from their file a step at a time (toRamStep), for a store too
   * large to read back while requests wait: their places in RAM are made now, aside (the pages
   * only virtual until written), and filled a step at a time while reads and searches still go
   * to the file; a vector added meanwhile below the move's place is written to RAM too. Growing
   * the store begins the move again at its new size.
   */
  beginToRam(): void {
    if (!this.file || this.movingBack) return;
    const onDisk = this.placement();
    const { file, rows, onRelocate } = this;
    const query = Float32Array.from(this.query);
    // Made by the code that places them when the store grows, on a store briefly without its file; nothing is told of it.
    this.onRelocate = null;
    this.file = null;
    this.dropVectors();
    this.query = new Float32Array(this.dim);
    this.placeVectors(this.capacity);
    this.setQuery(query);
    const ram = this.placement();
    this.adopt(onDisk);
    this.file = file;
    this.rows = rows;
    this.onRelocate = onRelocate;
    this.movingBack = { placement: ram, next: 0 };
  }

  /** Whether a move back from the file is under way (beginToRam). */
  get movingToRam(): boolean {
    return this.movingBack !== null;
  }

  /** Reads the next `slots` vectors of a move back into RAM; once all are, the store is in RAM as toRam leaves it (the file closed). Answers whether the move goes on. */
  toRamStep(slots: number): boolean {
    const m = this.movingBack;
    const file = this.file;
    if (!m || !file) return false;
    const to = Math.min(this.slotCount, m.next + slots);
    const { segments } = m.placement;
    this.forEachChunk(to, (slot, count) => file.read(slot, this.rowsOf(slot, count, segments), count), m.next);
    m.next = to;
    if (to < this.slotCount) return true;
    this.movingBack = null;
    const query = Float32Array.from(this.query);
    this.file = null;
    this.adopt(m.placement);
    this.rows = [new Float32Array(0), new Float32Array(0)];
    this.setQuery(query);
    file.close();
    this.onRelocate?.();
    return false;
  }

  /** Calls off a move back into RAM under way: the vectors stay in their file. */
  stayOnDisk(): void {
    this.movingBack = null;
  }

  /** Where the vectors are read now. */
  private placement(): Placement {
    const { vectors, segments, query, queries, crossRows, memories, kernels, segmentKernels } = this;
    return { vectors, segments, query, queries, crossRows, memories, kernels, segmentKernels };
  }

  private adopt(p: Placement): void {
    ({ vectors: this.vectors, segments: this.segments, query: this.query, queries: this.queries, crossRows: this.crossRows, memories: this.memories, kernels: this.kernels, segmentKernels: this.segmentKernels } = p);
  }

  /**
   * On disk: the query areas and the two rows, in a small WebAssembly memory once the store is as
   * large as one whose vectors would be in one (so search workers can walk its codes), else in
   * plain arrays.
   */
  private placeRows(query: Float32Array, cap = this.capacity): void {
    const stride = this.rowOffsets[1] - this.rowOffsets[0];
    if (!this.memories.length && this.base + cap * this.dim * 4 >= SIMD_FROM_BYTES) {
      const memory = tryMemory(this.base + 2 * stride, this.base + 2 * stride);
      if (memory) this.memories = [memory];
    }
    const memory = this.memories[0];
    if (memory) {
      this.query = new Float32Array(memory.buffer, this.queryOffset, this.dim);
      this.queries = [this.query];
      this.rows = [new Float32Array(memory.buffer, this.rowOffsets[0], this.dim), new Float32Array(memory.buffer, this.rowOffsets[1], this.dim)];
      this.kernels = kernelsFor(memory);
      this.segmentKernels = [this.kernels];
    } else {
      this.query = new Float32Array(this.dim);
      this.rows = [new Float32Array(this.dim), new Float32Array(this.dim)];
    }
    this.query.set(query);
    this.rowHeld.fill(-1);
    this.onRelocate?.();
  }

  /** Reads slot's vector from the file into rows[which] (on disk only); answers that row. */
  readRow(slot: number, which: 0 | 1): Float32Array {
    const row = this.rows[which];
    if (this.rowHeld[which] === slot) return row;
    this.file!.read(slot, row, 1);
    this.rowHeld[which] = slot;
    return row;
  }

  /** A slot's vector to read at once: a view of RAM, or, on disk, rows[0] filled from the file (valid until the next read). */
  row(slot: number): Float32Array {
    return this.file ? this.readRow(slot, 0) : this.rowsOf(slot, 1);
  }

  /**
   * Calls visit for every slot in [from, to) (by default, every slot below slotCount) that holds
   * a vector, with an array and the offset of the vector in it (RAM in place; on disk, a chunk at
   * a time read from the file).
   */
  forEachVector(visit: (slot: number, vectors: Float32Array, at: number) => void, from = 0, to = this.slotCount): void {
    const { dim } = this;
    to = Math.min(to, this.slotCount);
    if (!this.file) {
      const { segments, segmentShift, segmentMask } = this;
      for (let slot = from; slot < to; slot++) if (this.hasVector[slot]) visit(slot, segments[slot >>> segmentShift]!, (slot & segmentMask) * dim);
      return;
    }
    const file = this.file;
    const chunk = new Float32Array(Math.max(0, Math.min(to - from, this.chunkRows)) * dim);
    this.forEachChunk(
      to,
      (first, count) => {
        file.read(first, chunk, count);
        for (let k = 0; k < count; k++) if (this.hasVector[first + k]) visit(first + k, chunk, k * dim);
      },
      from,
    );
  }

  get capacity(): number {
    return this.ids.length;
  }

  /** Slots holding a point or waiting to be unlinked from the index. */
  get usedSlots(): number {
    return this.slotCount - this.freeSlots.length;
  }

  slotOf(id: PointId): number {
    return this.idToSlot.get(id);
  }

  has(id: PointId): boolean {
    return this.idToSlot.has(id);
  }

  /** The id of the point in `slot`. */
  idOf(slot: number): PointId {
    const id = this.ids[slot]!;
    return id !== UUID_ID ? id : uuidFromWords(this.uuidWords!, slot * 4);
  }

  /** Orders two slots by their points' ids (integers first, then UUIDs by their bytes). */
  compareSlots(a: number, b: number): number {
    const ia = this.ids[a]!;
    const ib = this.ids[b]!;
    if (ia !== UUID_ID && ib !== UUID_ID) return ia - ib;
    if (ia !== UUID_ID) return -1;
    if (ib !== UUID_ID) return 1;
    const w = this.uuidWords!;
    for (let k = 0; k < 4; k++) {
      const d = w[a * 4 + k]! - w[b * 4 + k]!;
      if (d !== 0) return d;
    }
    return 0;
  }

  /**
   * Where the vectors live: room for `cap` slots, in plain arrays while small, from
   * SIMD_FROM_BYTES on in a WebAssembly memory per segment. A store of one segment grows its
   * memory as it fills; past one, every segment is made at its full size (the pages are only
   * virtual until written), segment 0 grown to it first, each with its cross rows at the end.
   */
  private placeVectors(cap: number): void {
    if (this.file) {
      if (!this.memories.length && this.base + cap * this.dim * 4 >= SIMD_FROM_BYTES) this.placeRows(Float32Array.from(this.query), cap);
      return;
    }
    const count = Math.max(1, Math.ceil(cap / this.segmentSlots));
    const rowsEach = count === 1 ? cap : this.segmentSlots;
    const had = this.memories.length;
    const segments = this.segments.length;
    if (had || this.base + cap * this.dim * 4 >= SIMD_FROM_BYTES) {
      if (this.placeInMemories(count, rowsEach)) {
        if (had !== this.memories.length) this.onRelocate?.();
        return;
      }
    }
    for (let k = 0; k < count; k++) {
      const old = this.segments[k];
      if (old && old.length >= rowsEach * this.dim) continue;
      const grown = new Float32Array(rowsEach * this.dim);
      if (old) grown.set(old);
      this.segments[k] = grown;
    }
    this.vectors = this.segments[0]!;
    if (had || (segments > 0 && segments !== count)) this.onRelocate?.();
  }

  /**
   * Places `count` segments of `rowsEach` rows in WebAssembly memories (the vectors in plain
   * arrays or in memories already copied in); false, with the vectors back in plain arrays, when
   * the process can create no more memories.
   */
  private placeInMemories(count: number, rowsEach: number): boolean {
    const { dim, base } = this;
    const full = segmentMemoryBytes(dim, this.segmentSlots);
    const bytes = count === 1 ? base + rowsEach * dim * 4 : full;
    const memories = this.memories.slice();
    for (let k = memories.length; k < count; k++) {
      const memory = tryMemory(bytes, count === 1 ? full : bytes);
      if (!memory) {
        if (this.memories.length) this.segments = this.segments.map((v) => v.slice());
        this.query = Float32Array.from(this.query);
        this.memories = [];
        this.queries = [];
        this.crossRows = [];
        this.kernels = null;
        this.segmentKernels = [];
        return false;
      }
      memories.push(memory);
    }
    for (let k = 0; k < count; k++) {
      const memory = memories[k]!;
      const needed = Math.ceil(bytes / PAGE) - memory.buffer.byteLength / PAGE;
      if (needed > 0) memory.grow(needed);
      const view = new Float32Array(memory.buffer, base, rowsEach * dim);
      const old = this.segments[k];
      if (k >= this.memories.length && old) view.set(old);
      this.segments[k] = view;
      this.queries[k] = new Float32Array(memory.buffer, this.queryOffset, dim);
      if (count > 1) this.crossRows[k] = new Float32Array(memory.buffer, this.crossOffset, dim);
      if (k >= this.memories.length) {
        this.queries[k]!.set(k === 0 ? this.query : this.queries[0]!);
        this.segmentKernels[k] = kernelsFor(memory);
      }
    }
    this.memories = memories;
    this.vectors = this.segments[0]!;
    this.query = this.queries[0]!;
    this.kernels = this.segmentKernels[0]!;
    return true;
  }

  /** Doubles the capacity, or takes it to `atLeast` at once (a snapshot's slots, without a copy per doubling). */
  private grow(atLeast = 0): void {
    const cap = Math.min(Math.max(this.capacity * 2, atLeast), this.maxSlots);
    this.placeVectors(cap);
    const reserve = slotsToReserve(cap);
    this.ids = grownInPlace(this.ids, cap, reserve);
    if (this.uuidWords) this.growUuidWords(cap);
    this.state = grownInPlace(this.state, cap, reserve);
    this.hasVector = grownInPlace(this.hasVector, cap, reserve);
    // A move back into RAM made room for the old size: it begins again, at this one.
    if (this.movingBack) {
      this.movingBack = null;
      this.beginToRam();
    }
  }

  private growUuidWords(cap: number): void {
    this.uuidWords = grownInPlace(this.uuidWords ?? new Uint32Array(0), cap * 4, 4 * slotsToReserve(cap), isShared(this.ids));
  }

  private placeId(slot: number, id: PointId): void {
    if (typeof id === 'number') {
      this.ids[slot] = id;
      return;
    }
    if (!this.uuidWords) this.growUuidWords(this.capacity);
    this.ids[slot] = UUID_ID;
    uuidIntoWords(id, this.uuidWords!, slot * 4);
  }

  /** Stores a new point in a free slot; the id must not be present. */
  add(id: PointId, vector: Float32Array | null, payload: Payload, labels: readonly string[]): number {
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      if (this.slotCount === this.capacity) this.grow();
      slot = this.slotCount++;
    } else {
      for (const keeper of this.keepers) if (slot < keeper.slots && !keeper.kept.has(slot)) keeper.kept.set(slot, this.vectorOf(slot).slice());
    }
    this.placeId(slot, id);
    this.state[slot] = LIVE;
    this.hasVector[slot] = vector ? 1 : 0;
    if (this.file) {
      const written = vector ?? new Float32Array(this.dim);
      this.file.write(slot, written, 1);
      this.rowHeld.fill(-1);
      if (this.movingBack && slot < this.movingBack.next) this.rowsOf(slot, 1, this.movingBack.placement.segments).set(written);
    } else {
      const segment = this.segments[slot >>> this.segmentShift]!;
      const at = (slot & this.segmentMask) * this.dim;
      if (vector) segment.set(vector, at);
      else segment.fill(0, at, at + this.dim);
      if (this.moving && slot < this.moving.next) this.moving.file.write(slot, segment.subarray(at, at + this.dim), 1);
    }
    this.payloads[slot] = payload;
    this.labels[slot] = labels.length ? labels : EMPTY_LABELS;
    this.idToSlot.set(id, slot);
    this.liveCount++;
    if (vector) this.liveVectors++;
    this.sorted = null;
    return slot;
  }

  /** Takes the point out of view; its slot waits as REMOVED until released. */
  remove(id: PointId): number {
    const slot = this.slotOf(id);
    if (slot < 0) return -1;
    this.idToSlot.delete(id);
    this.state[slot] = REMOVED;
    this.payloads[slot] = null;
    this.labels[slot] = EMPTY_LABELS;
    this.liveCount--;
    if (this.hasVector[slot]) this.liveVectors--;
    this.sorted = null;
    return slot;
  }

  release(slot: number): void {
    this.state[slot] = FREE;
    this.hasVector[slot] = 0;
    this.freeSlots.push(slot);
  }

  /** A slot's vector: a view of RAM (copy it before the next write), or, on disk, a copy read from the file. */
  vectorOf(slot: number): Float32Array {
    if (!this.file) return this.rowsOf(slot, 1);
    const out = new Float32Array(this.dim);
    this.file.read(slot, out, 1);
    return out;
  }

  sameVector(slot: number, vector: Float32Array | null): boolean {
    if (!vector) return this.hasVector[slot] === 0;
    if (!this.hasVector[slot]) return false;
    // In RAM, compared in place (no view made on the upsert path); on disk, read into a row.
    const stored = this.file ? this.readRow(slot, 0) : this.segments[slot >>> this.segmentShift]!;
    const at = this.file ? 0 : (slot & this.segmentMask) * this.dim;
    for (let i = 0; i < this.dim; i++) if (stored[at + i] !== vector[i]) return false;
    return true;
  }

  /** Reads the vectors a capture wrote: into RAM, or a chunk at a time into the file when on disk. */
  private readVectors(r: ByteReader, n: number): void {
    if (!this.file) {
      this.forEachChunk(n, (slot, count) => readRaw(r, this.rowsOf(slot, count), count * this.dim));
      return;
    }
    const file = this.file;
    const chunk = new Float32Array(Math.min(n, this.chunkRows) * this.dim);
    this.forEachChunk(n, (slot, count) => {
      readRaw(r, chunk, count * this.dim);
      file.write(slot, chunk, count);
    });
    this.rowHeld.fill(-1);
  }

  /**
   * Every slot as it is now (snapshots): states, ids, vectors, payloads, labels and the free list,
   * written later; `release` once written or given up. The small arrays are copied and the
   * payloads and labels taken by reference (they are replaced, never changed in place). The
   * vectors are read from the store as they are written: a slot's vector is only ever written
   * when a point is given the slot (add), and until release, add first keeps the vector of a
   * slot below the captured count for this capture, which writes that copy instead.
   */
  capture(): { write: Captured; release(): void } {
    const n = this.slotCount;
    const state = this.state.slice(0, n);
    const hasVector = this.hasVector.slice(0, n);
    const ids = this.ids.slice(0, n);
    const uuidWords = this.uuidWords?.slice(0, n * 4) ?? null;
    const payloads = this.payloads.slice(0, n);
    const labels = this.labels.slice(0, n);
    const freeSlots = this.freeSlots.slice();
    const keeper: Keeper = { slots: n, kept: new Map() };
    this.keepers.add(keeper);
    const store = this;
    return {
      *write(w) {
        w.u32(n);
        yield* rawPieces(w, state, 0, n);
        yield* rawPieces(w, hasVector, 0, n);
        yield* rawPieces(w, ids, 0, n);
        w.u8(uuidWords ? 1 : 0);
        if (uuidWords) yield* rawPieces(w, uuidWords, 0, n * 4);
        yield* store.vectorPieces(w, n, keeper);
        for (let slot = 0; slot < n; slot++) {
          if (state[slot] !== LIVE) continue;
          w.str(payloadText(payloads[slot]!)).u16(labels[slot]!.length);
          for (const label of labels[slot]!) w.str(label);
          if (slot % PAYLOADS_PER_PIECE === 0) yield;
        }
        w.u32(freeSlots.length);
        for (const slot of freeSlots) w.u32(slot);
      },
      release: () => void this.keepers.delete(keeper),
    };
  }

  /**
   * The vectors of slots [0, n) as they were at the capture: each piece read from the array the
   * store has then (it may have grown meanwhile), the slots given to new points since from the
   * keeper's copies. Runs of slots between two kept ones go out a piece at a time.
   */
  private *vectorPieces(w: ByteWriter, n: number, keeper: Keeper): Sliced {
    let from = 0;
    while (from < n) {
      // The next kept slot at or after `from` (the keeper may gain some while this runs).
      let next = n;
      for (const slot of keeper.kept.keys()) if (slot >= from && slot < next) next = slot;
      const segmentEnd = from - (from & this.segmentMask) + this.segmentSlots;
      const end = Math.min(next, segmentEnd, from + Math.max(1, Math.floor(RAW_PIECE_BYTES / (this.dim * 4))));
      if (end > from) {
        w.floats(this.capturedRows(from, end));
        from = end;
        yield;
        continue;
      }
      w.floats(keeper.kept.get(from)!);
      from++;
    }
  }

  /** Slots [from, end)'s vectors for a capture: a view of RAM, or read from the file into a buffer kept for it. */
  private capturedRows(from: number, end: number): Float32Array {
    if (!this.file) return this.rowsOf(from, end - from);
    const floats = (end - from) * this.dim;
    if (this.pieceBuffer.length < floats) this.pieceBuffer = new Float32Array(floats);
    const rows = this.pieceBuffer.subarray(0, floats);
    this.file.read(from, rows, end - from);
    return rows;
  }

  /** Fills an empty store from capture's bytes, slot for slot (`uuids`: the snapshot may hold UUID ids). */
  readFrom(r: ByteReader, uuids: boolean): void {
    const n = r.u32();
    if (n > this.maxSlots) throw new CorruptDataError(`snapshot holds ${n} slots, more than fit`);
    if (this.capacity < n) this.grow(n);
    this.slotCount = n;
    readRaw(r, this.state, n);
    readRaw(r, this.hasVector, n);
    readRaw(r, this.ids, n);
    if (uuids && r.u8() === 1) {
      this.growUuidWords(this.capacity);
      readRaw(r, this.uuidWords!, n * 4);
    }
    this.readVectors(r, n);
    let uuidIds = 0;
    let liveIds = 0;
    for (let slot = 0; slot < n; slot++) {
      if (this.state[slot] !== LIVE) continue;
      liveIds++;
      if (this.ids[slot] === UUID_ID) uuidIds++;
      if (this.hasVector[slot]) this.liveVectors++;
    }
    this.idToSlot.reserve(liveIds - uuidIds, uuidIds);
    for (let slot = 0; slot < n; slot++) {
      if (this.state[slot] !== LIVE) {
        this.payloads[slot] = null;
        this.labels[slot] = EMPTY_LABELS;
        continue;
      }
      this.payloads[slot] = parsePayloadText(r.str(), `the payload of slot ${slot}`);
      const labels: string[] = [];
      for (let k = r.u16(), i = 0; i < k; i++) labels.push(r.str());
      this.labels[slot] = labels.length ? labels : EMPTY_LABELS;
      this.idToSlot.set(this.idOf(slot), slot);
      this.liveCount++;
    }
    for (let k = r.u32(), i = 0; i < k; i++) this.freeSlots.push(r.u32());
  }

  /** Live slots in ascending id order, cached until the next change. */
  sortedSlots(): Int32Array {
    if (!this.sorted) {
      const out = new Int32Array(this.liveCount);
      let i = 0;
      for (let slot = 0; slot < this.slotCount; slot++) if (this.state[slot] === LIVE) out[i++] = slot;
      const ids = this.ids;
      if (this.uuidWords) out.sort((a, b) => this.compareSlots(a, b));
      // Points loaded in id order are in slot order already: sorting them anyway (7-11 ms at
      // 100,000 points) held the request thread at the start of every export.
      else if (!inIdOrder(out, ids)) out.sort((a, b) => ids[a]! - ids[b]!);
      this.sorted = out;
    }
    return this.sorted;
  }

  /** Live ids in ascending order (tools and tests; the hot paths walk sortedSlots). */
  sortedIds(): PointId[] {
    return Array.from(this.sortedSlots(), (slot) => this.idOf(slot));
  }

  /** The first position in sortedSlots() whose id is not below `id`. */
  lowerBound(id: PointId): number {
    const sorted = this.sortedSlots();
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (comparePointIds(this.idOf(sorted[mid]!), id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Whether `slots` are in ascending order of their integer ids. */
function inIdOrder(slots: Int32Array, ids: Float64Array): boolean {
  for (let i = 1; i < slots.length; i++) if (ids[slots[i - 1]!]! > ids[slots[i]!]!) return false;
  return true;
}
