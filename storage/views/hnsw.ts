import { CandidateHeap, ResultHeap } from './distance-heap.js';
import { dotProduct } from './distance.js';
import { LIVE, REMOVED, type PointStore } from './point-store.js';
import type { ByteReader } from '../codec/byte-reader.js';
import { readRaw, writeRaw } from '../codec/raw-arrays.js';
import { RAW_PIECE_BYTES, rawPieces, type Captured, type Sliced } from '../codec/slices.js';
import { grownCopy, grownInPlace, isShared, slotsToReserve } from './shared-arrays.js';
import type { StoreLayout } from './point-store.js';
import { batchToQuery, type DistanceBatch, type QueryBatch } from './distance-batch.js';
import type { VectorSpace } from './vector-space.js';
import { BATCH_SLOTS } from './vector-segments.js';
import { VisitedSet } from './visited-set.js';

/** A repair of removed waypoints under way (HnswIndex.repairSome): the waypoints it frees at its end, the next slot it looks at, and its scratch. */
interface Repair {
  readonly freeing: number[];
  next: number;
  readonly seen: Set<number>;
  keys: Float64Array;
  slots: Int32Array;
}

/** A graph captured for a snapshot (HnswIndex.capture): `copy` takes what `write` writes. */
export interface GraphCapture {
  /** Takes the copies a piece at a time, yielding between pieces; run it to its end before `write`. */
  copy: Sliced;
  write: Captured;
}

function* noCopy(): Sliced {}

/** The links a capture copies in one slice (a raw piece's worth). */
const PIECE_WORDS = RAW_PIECE_BYTES / Uint32Array.BYTES_PER_ELEMENT;

export interface HnswParams {
  m: number;
  m0: number;
  efConstruct: number;
  ml: number;
}

/**
 * The arrays a search worker reads, fixed-length views of shared buffers (see hnsw-sharing.md):
 * all given new lengths together, never in part, when the graph outgrows them, so a reader
 * holding one set walks the nodes they have. `top` holds the entry point.
 */
export interface GraphLayout {
  params: HnswParams;
  metric: VectorSpace['metric'];
  store: StoreLayout;
  levels: Int8Array;
  links0: Uint32Array;
  versions: Int32Array;
  upperAt: Int32Array;
  upperLinks: Uint32Array;
  top: Int32Array;
}

/** Decides whether a live slot may be a result (a payload filter); null admits all. */
export type SlotFilter = ((slot: number) => boolean) | null;

/** Distances from a query to indexed slots other than the float ones: quantized codes (scalar-quantized.ts). */
export interface QueryDistance {
  setQuery(q: Float32Array): void;
  /** A function property, read once per search (so it may be rebound between searches, never during one). */
  readonly toQuery: (x: number) => number;
  /** The same distances batched, where the codes allow; read once per search. */
  readonly batch?: QueryBatch | null;
}

/** Node-to-node distances other than the float ones, for linking (the int8 codes of a store whose floats are on disk). */
export interface NodeDistance {
  between(a: number, b: number): number;
  l2Between(a: number, b: number): number;
}

/** mulberry32: a small seeded generator whose state a snapshot keeps, so levels are drawn alike. */
class LevelRandom {
  constructor(public state: number) {}

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/** Tries at a node's sequence lock before a reader stops waiting for its holder (readLinks). */
const SPIN_LIMIT = 1 << 22;

/** Puts (d, slot) into the first `count` sorted pairs, keeping them nearest first. */
function insertByDistance(keys: Float64Array, slots: Int32Array, count: number, d: number, slot: number): void {
  let j = count;
  while (j > 0 && keys[j - 1]! > d) {
    keys[j] = keys[j - 1]!;
    slots[j] = slots[j - 1]!;
    j--;
  }
  keys[j] = d;
  slots[j] = slot;
}

/**
 * Hierarchical navigable small world graph over the slots of a PointStore, after hnswlib's
 * hnswalg.h: layer-0 links in one flat Uint32Array (slot * (m0 + 1), count first), each node's
 * upper layers together in a second flat array (at upperAt[slot]), levels drawn from ml, the
 * select-neighbours heuristic, and a visited set and heaps reused between searches. Removed
 * points stay as waypoints until repairRemoved() relinks their neighbours and frees their slots.
 * The thread that applies writes owns it; search workers read the same arrays through a reader
 * made from its layout(), each node's lists under a sequence lock (hnsw-sharing.md).
 */
export class HnswIndex {
  private levels: Int8Array;
  private links0: Uint32Array;
  /** Per node, a sequence lock over its link lists: odd while the writer changes them. */
  private versions: Int32Array;
  /** Per node above layer 0, the word offset of its upper lists in upperLinks. */
  private upperAt: Int32Array;
  private upperLinks: Uint32Array;
  /** Words of upperLinks handed out; freed runs wait for a node of the same level. */
  private upperTop = 0;
  private readonly upperFree = new Map<number, number[]>();
  /** The entry point, for readers (they take maxLevel as its level). */
  private top: Int32Array;
  private layoutCache: GraphLayout | null = null;
  /** Scratch for one node's links while they are read. */
  private readonly linkScratch: Uint32Array;
  /** Where readLinks left the links it answered: linkScratch from 0, or the list in place. */
  private linkFrom: Uint32Array;
  private linkAt = 0;
  /**
   * Whether another thread may be writing link lists: always on a worker's reader, and on the
   * owning thread while a batch is linked elsewhere (IndexBacklog). Otherwise the owner is the
   * only writer, and reads a list in place with no sequence lock.
   */
  othersWrite: boolean;
  /** On a builder thread: the node it holds (-1: none), so that its pool can let go of it if the thread dies. */
  private readonly holding: Int32Array | null;
  private entry = -1;
  private maxLevel = -1;
  /** Nodes in the graph, removed waypoints included. */
  nodeCount = 0;
  /** Removed points still linked into the graph. */
  removedCount = 0;
  private repair: Repair | null = null;
  private readonly store: PointStore;
  /**
   * Dot is no metric, and a graph built on it navigates badly. For Dot the graph is built in
   * the augmented space of the MIPS-to-nearest-neighbour reduction: x' = [x, sqrt(M² - |x|²)]
   * with M the largest norm seen, where a query [q, 0] ranks points exactly as -q·x does.
   * Searches keep using -q·x; only node-to-node distances use the augmented space.
   */
  private readonly augmented: boolean;
  private norms2: Float64Array;
  private maxNorm2 = 0;
  private readonly random: LevelRandom;
  /** Where node-to-node distances come from while linking and repairing; null: the floats. */
  linkOn: NodeDistance | null = null;
  private readonly visited: VisitedSet;
  private readonly candidates = new CandidateHeap();
  /** A node's unvisited neighbours and their distances, in searchLayer. */
  private readonly fresh: Uint32Array;
  private readonly freshDist: Float64Array;
  private readonly results = new ResultHeap();
  private keys = new Float64Array(256);
  private slots = new Int32Array(256);
  private readonly selected: Int32Array;
  /** A new node's neighbours, m a layer from layer 0 up, and how many at each: connect() reuses `selected`. */
  private chosen: Int32Array;
  private chosenCount: Int32Array;
  private readonly pairKeys: Float64Array;
  private readonly pairSlots: Int32Array;
  /** The query's distances during a search: the float ones, or a QueryDistance's. */
  private queryDistance: (x: number) => number;
  /** The same, batched (null: one at a time). */
  private queryBatch: QueryBatch | null = null;

  /** An index over `space`'s store; with `adopt`, a worker's reader of another thread's index. */
  constructor(private readonly space: VectorSpace, private readonly params: HnswParams, seed: number, adopt?: GraphLayout, holding: Int32Array | null = null) {
    const store = space.store;
    this.store = store;
    this.augmented = space.metric === 'Dot';
    this.norms2 = new Float64Array(this.augmented && !adopt ? store.capacity : 0);
    this.random = new LevelRandom(seed >>> 0);
    this.holding = holding;
    if (adopt) {
      ({ levels: this.levels, links0: this.links0, versions: this.versions, upperAt: this.upperAt, upperLinks: this.upperLinks, top: this.top } = adopt);
    } else {
      this.levels = new Int8Array(store.capacity).fill(-1);
      this.links0 = new Uint32Array(store.capacity * (params.m0 + 1));
      this.versions = new Int32Array(store.capacity);
      this.upperAt = new Int32Array(store.capacity);
      this.upperLinks = new Uint32Array(this.upperWordsFor(store.capacity));
      this.top = new Int32Array(1).fill(-1);
    }
    this.visited = new VisitedSet(this.levels.length);
    const most = Math.max(params.m0, params.m) + 1;
    this.linkScratch = new Uint32Array(most);
    this.fresh = new Uint32Array(most);
    this.freshDist = new Float64Array(most);
    this.linkFrom = this.linkScratch;
    this.othersWrite = adopt !== undefined;
    this.selected = new Int32Array(most);
    this.chosen = new Int32Array(params.m);
    this.chosenCount = new Int32Array(1);
    this.pairKeys = new Float64Array(most);
    this.pairSlots = new Int32Array(most);
    this.queryDistance = space.toQuery;
    this.queryBatch = space.batch;
  }

  contains(slot: number): boolean {
    return slot < this.levels.length && this.levels[slot]! >= 0;
  }

  /** A reader (and builder: linkPrepared) of this index on another thread (workers/search-worker.ts); `holding` as the field says. */
  static reader(space: VectorSpace, layout: GraphLayout, holding: Int32Array | null = null): HnswIndex {
    return new HnswIndex(space, layout.params, 0, layout, holding);
  }

  /** Lets go of a node that a dead builder thread held (`holding`), over a layout's arrays. */
  static release(layout: GraphLayout, slot: number): void {
    if ((Atomics.load(layout.versions, slot) & 1) === 1) Atomics.add(layout.versions, slot, 1);
  }

  /**
   * The arrays a reader on another thread needs (the same object until they are replaced), or
   * null while the store's vectors are in a plain buffer (such a store is searched in place).
   * The first call moves the arrays onto shared buffers, where they stay as they grow (a graph
   * read from a snapshot of a store in shared memory is read onto them: see readFrom).
   */
  layout(): GraphLayout | null {
    const store = this.store.layout();
    if (!store) return null;
    if (!isShared(this.links0)) this.replaceArrays(this.levels.length, this.upperLinks.length, true);
    const cached = this.layoutCache;
    if (cached && cached.store.ids === store.ids && cached.store.uuidWords === store.uuidWords && cached.store.memories.length === store.memories.length && cached.store.memories[0] === store.memories[0]) return cached;
    const { levels, links0, versions, upperAt, upperLinks, top, params } = this;
    this.layoutCache = { params, metric: this.space.metric, store, levels, links0, versions, upperAt, upperLinks, top };
    return this.layoutCache;
  }

  /** Lets go of what refers to the store's old vectors or codes after they moved (the layout, the last walk's distances), so their memory can be freed. */
  storeMoved(): void {
    this.layoutCache = null;
    this.queryDistance = this.space.toQuery;
    this.queryBatch = this.space.batch;
  }

  /** Room for every slot of the store, on shared buffers if `shared` (by default, as they are now). */
  private ensureCapacity(shared = isShared(this.links0)): void {
    const cap = this.store.capacity;
    if (this.levels.length >= cap && shared === isShared(this.links0)) return;
    this.replaceArrays(Math.max(cap, this.levels.length), Math.max(this.upperLinks.length, this.upperWordsFor(cap)), shared);
    if (this.augmented && this.norms2.length < cap) {
      const norms2 = new Float64Array(cap);
      norms2.set(this.norms2);
      this.norms2 = norms2;
    }
  }

  /**
   * Gives every array its new length at once, as a new layout: shared arrays grow in place
   * (grownInPlace), so a reader still on the old layout reads the same memory through shorter
   * views and leaves out the nodes past them (readLinks); `top` is a copy, so that its entry
   * point stays one of its nodes.
   */
  private replaceArrays(cap: number, upperWords: number, shared = isShared(this.links0)): void {
    const had = this.levels.length;
    const reserve = slotsToReserve(cap);
    this.levels = grownInPlace(this.levels, cap, reserve, shared).fill(-1, had);
    this.links0 = grownInPlace(this.links0, cap * (this.params.m0 + 1), reserve * (this.params.m0 + 1), shared);
    this.versions = grownInPlace(this.versions, cap, reserve, shared);
    this.upperAt = grownInPlace(this.upperAt, cap, reserve, shared);
    this.upperLinks = grownInPlace(this.upperLinks, upperWords, this.upperWordsFor(reserve), shared);
    this.top = grownCopy(this.top, 1, shared);
    this.layoutCache = null;
  }

  /**
   * Room for the upper lists of `nodes` nodes, a quarter over what they take on average: a node
   * has its level l or higher with probability exp(-l / ml), so the lists of a node average
   * (m + 1) / (exp(1 / ml) - 1) words (1.13 at m 16). Grown with the store, so that filling them
   * rarely makes a new layout, which every worker that walks the graph is then sent.
   */
  private upperWordsFor(nodes: number): number {
    return Math.ceil((1.25 * nodes * (this.params.m + 1)) / Math.expm1(1 / this.params.ml));
  }

  private setEntry(slot: number, level: number): void {
    this.entry = slot;
    this.maxLevel = level;
    Atomics.store(this.top, 0, slot);
  }

  /** Room for a node's upper lists (`level` lists of m + 1 words): a freed run of its level, or new words. */
  private allocateUpper(slot: number, level: number): void {
    const words = level * (this.params.m + 1);
    let at = this.upperFree.get(level)?.pop();
    if (at === undefined) {
      at = this.upperTop;
      if (at + words > this.upperLinks.length) this.replaceArrays(this.levels.length, Math.max(this.upperLinks.length * 2, at + words));
      this.upperTop += words;
    }
    this.upperLinks.fill(0, at, at + words);
    this.upperAt[slot] = at;
  }

  private freeUpper(slot: number, level: number): void {
    const runs = this.upperFree.get(level) ?? [];
    runs.push(this.upperAt[slot]!);
    this.upperFree.set(level, runs);
  }

  /** Distance between two nodes of the graph. */
  private nodeDist(a: number, b: number): number {
    const on = this.linkOn ?? this.space;
    if (!this.augmented) return on.between(a, b);
    const extra = Math.sqrt(Math.max(0, this.maxNorm2 - this.norms2[a]!)) - Math.sqrt(Math.max(0, this.maxNorm2 - this.norms2[b]!));
    return on.l2Between(a, b) + extra * extra;
  }

  /** Distance from the query in the store's scratch area (`from` < 0), or from node `from` while building, to node x. */
  private distTo(from: number, x: number): number {
    return from >= 0 ? this.nodeDist(from, x) : this.queryDistance(x);
  }

  private ensureScratch(n: number): void {
    if (this.keys.length >= n) return;
    this.keys = new Float64Array(n * 2);
    this.slots = new Int32Array(n * 2);
  }

  private drawLevel(): number {
    const level = Math.floor(-Math.log(1 - this.random.next()) * this.params.ml);
    return Math.min(level, 100);
  }

  private linkArray(level: number): Uint32Array {
    return level === 0 ? this.links0 : this.upperLinks;
  }

  private linkOffset(slot: number, level: number): number {
    return level === 0 ? slot * (this.params.m0 + 1) : this.upperAt[slot]! + (level - 1) * (this.params.m + 1);
  }

  /**
   * A node's links at one layer: answers how many, read from linkFrom at linkAt. While others
   * write (othersWrite), they are copied into linkScratch on the reader side of the sequence
   * lock: a copy taken while the version was odd or changed is taken again. A lock held past
   * SPIN_LIMIT tries (a builder thread that died holding it) no longer blocks: the copy is then
   * taken as it is, valid slot numbers all the same. Otherwise the list is read in place.
   */
  private readLinks(slot: number, level: number): number {
    const arr = this.linkArray(level);
    const off = this.linkOffset(slot, level);
    if (!this.othersWrite) {
      this.linkFrom = arr;
      this.linkAt = off + 1;
      return arr[off]!;
    }
    const versions = this.versions;
    const out = this.linkScratch;
    this.linkFrom = out;
    this.linkAt = 0;
    // On a layout older than the graph's arrays (they grow in place: replaceArrays), a node's
    // lists may lie past this reader's upper array, and its links reach nodes past its slots:
    // nodes newer than its graph, which it leaves out.
    const room = arr.length - off - 1;
    if (room < 0) return 0;
    const slots = this.levels.length;
    for (let tries = 0; ; tries++) {
      const before = Atomics.load(versions, slot);
      if ((before & 1) === 0 || tries > SPIN_LIMIT) {
        const n = Math.min(arr[off]!, out.length, room);
        let k = 0;
        for (let i = 0; i < n; i++) {
          const next = arr[off + 1 + i]!;
          if (next < slots) out[k++] = next;
        }
        if (Atomics.load(versions, slot) === before) return k;
      }
    }
  }

  /**
   * The writer side: a node's version is odd while one thread holds it (taken from even by
   * compare-and-swap, so builders on several threads take turns at a node, as hnswlib's
   * per-node mutexes), even again once its lists are whole.
   */
  private lockNode(slot: number): void {
    const versions = this.versions;
    // Named before it is taken: a thread that dies in between leaves nothing held that its pool cannot find.
    if (this.holding) Atomics.store(this.holding, 0, slot);
    for (;;) {
      const v = Atomics.load(versions, slot);
      if ((v & 1) === 0 && Atomics.compareExchange(versions, slot, v, v + 1) === v) return;
    }
  }

  private unlockNode(slot: number): void {
    if (this.holding) Atomics.store(this.holding, 0, -1);
    Atomics.add(this.versions, slot, 1);
  }

  /** Takes the entry point (and the top level, its level) as other threads may have moved it. */
  private syncEntry(): void {
    this.entry = Atomics.load(this.top, 0);
    this.maxLevel = this.entry >= 0 ? this.levels[this.entry]! : -1;
  }

  /** Walks down from the entry point to `stopLevel + 1`, one closest node per layer. */
  private descend(from: number, stopLevel: number): number {
    let cur = this.entry;
    let curDist = this.distTo(from, cur);
    for (let level = this.maxLevel; level > stopLevel; level--) {
      let changed = true;
      while (changed) {
        changed = false;
        const n = this.readLinks(cur, level);
        const links = this.linkFrom;
        const at = this.linkAt;
        for (let i = 0; i < n; i++) {
          const next = links[at + i]!;
          const d = this.distTo(from, next);
          if (d < curDist) {
            curDist = d;
            cur = next;
            changed = true;
          }
        }
      }
    }
    return cur;
  }

  /** Best-first search of one layer; leaves up to `ef` admitted live nodes in this.results. */
  private searchLayer(from: number, start: number, ef: number, level: number, admit: SlotFilter): void {
    const state = this.store.state;
    const candidates = this.candidates;
    const results = this.results;
    candidates.clear();
    results.clear();
    results.ids = this.store.ids;
    this.visited.reset(this.levels.length);
    const d0 = this.distTo(from, start);
    this.visited.visit(start);
    candidates.push(d0, start);
    if (state[start] === LIVE && (admit === null || admit(start))) results.push(d0, start);
    const batch = this.batchFor(from);
    while (candidates.size > 0) {
      const cd = candidates.topKey();
      const c = candidates.topSlot();
      if (results.size >= ef && cd > results.topKey()) break;
      candidates.pop();
      const n = this.readLinks(c, level);
      const links = this.linkFrom;
      const at = this.linkAt;
      // The unvisited neighbours first, then their distances all together (distancesFrom).
      const fresh = this.fresh;
      const dists = this.freshDist;
      let k = 0;
      for (let i = 0; i < n; i++) {
        const next = links[at + i]!;
        if (!this.visited.visit(next)) fresh[k++] = next;
      }
      this.distancesFrom(from, k, batch);
      for (let i = 0; i < k; i++) {
        const next = fresh[i]!;
        const d = dists[i]!;
        if (results.size < ef || d < results.topKey()) {
          candidates.push(d, next);
          if (state[next] === LIVE && (admit === null || admit(next))) {
            results.push(d, next);
            if (results.size > ef) results.pop();
          }
        }
      }
    }
  }

  /** The batch distancesFrom uses from the query (from < 0) or from a node, or null. */
  private batchFor(from: number): QueryBatch | null {
    return from < 0 ? this.queryBatch : this.linkOn === null ? this.space.batch : null;
  }

  /**
   * distTo(from, fresh[i]) into freshDist[i] for i < k: in one kernel call per BATCH_SLOTS where
   * the vectors (or the query's codes) allow (their rows then come from memory together), else
   * one at a time.
   */
  private distancesFrom(from: number, k: number, batch: QueryBatch | null): void {
    if (batch !== null) {
      this.batchDistances(batch, from, k);
      return;
    }
    const fresh = this.fresh;
    const dists = this.freshDist;
    for (let i = 0; i < k; i++) dists[i] = this.distTo(from, fresh[i]!);
  }

  /** distancesFrom with a batch: BATCH_SLOTS at a time (from >= 0 only with the floats' DistanceBatch). */
  private batchDistances(batch: QueryBatch, from: number, k: number): void {
    const fresh = this.fresh;
    const dists = this.freshDist;
    if (from < 0) {
      batchToQuery(batch, fresh, k, dists);
      return;
    }
    const node = batch as DistanceBatch;
    const { slots, out, shift, sign, scale, offset } = node;
    const augmented = this.augmented;
    for (let first = 0; first < k; first += BATCH_SLOTS) {
      const n = Math.min(BATCH_SLOTS, k - first);
      for (let i = 0; i < n; i++) slots[i] = fresh[first + i]!;
      if (augmented) {
        node.l2FromSlot(from, n);
        const norms2 = this.norms2;
        const max2 = this.maxNorm2;
        const own = Math.sqrt(Math.max(0, max2 - norms2[from]!));
        for (let i = 0; i < n; i++) {
          const extra = own - Math.sqrt(Math.max(0, max2 - norms2[slots[i]!]!));
          dists[first + i] = out[i]! + extra * extra;
        }
      } else {
        node.fromSlot(from, n);
        for (let i = 0; i < n; i++) dists[first + i] = shift + sign * (scale * out[i]! + offset);
      }
    }
  }

  /**
   * hnswlib's getNeighborsByHeuristic2: from candidates sorted nearest first, keep one only if
   * it is closer to the base than to every neighbour already kept. Writes into this.selected.
   */
  private selectNeighbours(keys: Float64Array, slots: Int32Array, n: number, most: number): number {
    const selected = this.selected;
    let count = 0;
    for (let i = 0; i < n && count < most; i++) {
      const c = slots[i]!;
      const dc = keys[i]!;
      let good = true;
      for (let j = 0; j < count; j++) {
        if (this.nodeDist(c, selected[j]!) < dc) {
          good = false;
          break;
        }
      }
      if (good) selected[count++] = c;
    }
    return count;
  }

  /** Writes a node's list at one layer; the caller holds the node (lockNode). */
  private writeLinks(slot: number, level: number, from: Int32Array, count: number): void {
    const arr = this.linkArray(level);
    const off = this.linkOffset(slot, level);
    arr[off] = count;
    for (let i = 0; i < count; i++) arr[off + 1 + i] = from[i]!;
  }

  /** Adds a back link from `slot` to `added`, pruning with the heuristic when full, holding `slot` meanwhile. */
  private connect(slot: number, added: number, level: number): void {
    const most = level === 0 ? this.params.m0 : this.params.m;
    const arr = this.linkArray(level);
    const off = this.linkOffset(slot, level);
    this.lockNode(slot);
    const n = arr[off]!;
    let present = false;
    for (let i = 1; i <= n && !present; i++) present = arr[off + i] === added;
    if (!present && n < most) {
      arr[off + 1 + n] = added;
      arr[off] = n + 1;
    } else if (!present) {
      const keys = this.pairKeys;
      const slots = this.pairSlots;
      const fresh = this.fresh;
      for (let i = 0; i < n; i++) fresh[i] = arr[off + 1 + i]!;
      fresh[n] = added;
      this.distancesFrom(slot, n + 1, this.batchFor(slot));
      for (let i = 0; i <= n; i++) insertByDistance(keys, slots, i, this.freshDist[i]!, fresh[i]!);
      this.writeLinks(slot, level, this.selected, this.selectNeighbours(keys, slots, n + 1, most));
    }
    this.unlockNode(slot);
  }

  /** Links a live slot of the store into the graph. */
  insert(slot: number): void {
    if (this.prepareInsert(slot)) this.linkPrepared(slot);
  }

  /** Whether other threads may link prepared nodes (linkPrepared): not for Dot, whose augmented space moves as norms arrive. */
  get buildsElsewhere(): boolean {
    return !this.augmented;
  }

  /**
   * The writing thread's part of an insert: draws the node's level, makes room for its lists
   * and clears them. Answers false when the node needs no linking (the first of the graph,
   * which becomes the entry point at once).
   */
  prepareInsert(slot: number): boolean {
    this.ensureCapacity();
    const level = this.drawLevel();
    // Not yet linked from anywhere, so no reader reaches it before its lists are written.
    this.levels[slot] = level;
    this.links0[slot * (this.params.m0 + 1)] = 0;
    if (level > 0) this.allocateUpper(slot, level);
    this.nodeCount++;
    if (this.augmented) {
      const dim = this.store.dim;
      const v = this.store.row(slot);
      const n2 = dotProduct(v, 0, v, 0, dim);
      this.norms2[slot] = n2;
      if (n2 > this.maxNorm2) this.maxNorm2 = n2;
    }
    this.syncEntry();
    if (this.entry >= 0) return true;
    this.setEntry(slot, level);
    return false;
  }

  /**
   * Links a prepared node into the graph: on the writing thread, or on a builder thread
   * (workers/search-worker.ts) beside others, each node's lists changed only while held.
   * The node's own lists are written at every layer before any back link to it: once another
   * builder can reach it at some layer, its lists below are whole, so that builder never walks
   * on from a node whose lower lists are still empty (it would link to that node alone, and the
   * node's own list, written later, would drop the link back: a node no walk reaches).
   */
  linkPrepared(slot: number): void {
    this.syncEntry();
    const level = this.levels[slot]!;
    const top = this.maxLevel;
    const m = this.params.m;
    const layers = Math.min(level, top) + 1;
    if (this.chosenCount.length < layers) {
      this.chosen = new Int32Array(layers * m);
      this.chosenCount = new Int32Array(layers);
    }
    let cur = this.descend(slot, level);
    this.ensureScratch(this.params.efConstruct + 1);
    for (let l = layers - 1; l >= 0; l--) {
      this.chosenCount[l] = 0;
      this.searchLayer(slot, cur, this.params.efConstruct, l, null);
      const n = this.results.drainAscending(this.keys, this.slots);
      if (n === 0) continue;
      const count = this.selectNeighbours(this.keys, this.slots, n, m);
      this.lockNode(slot);
      this.writeLinks(slot, l, this.selected, count);
      this.unlockNode(slot);
      this.chosen.set(this.selected.subarray(0, count), l * m);
      this.chosenCount[l] = count;
      cur = this.slots[0]!;
    }
    for (let l = layers - 1; l >= 0; l--) {
      for (let i = 0; i < this.chosenCount[l]!; i++) this.connect(this.chosen[l * m + i]!, slot, l);
    }
    if (level <= top) return;
    // A new top level: the entry point moves here, unless another thread has put it higher meanwhile.
    for (;;) {
      const entry = Atomics.load(this.top, 0);
      if (this.levels[entry]! >= level) break;
      if (Atomics.compareExchange(this.top, 0, entry, slot) === entry) break;
    }
    this.syncEntry();
  }

  /** Notes that an indexed slot's point was removed from the store. */
  noteRemoved(): void {
    this.removedCount++;
  }

  /**
   * The k nearest admitted live points, nearest first, into outKeys/outSlots; returns how many.
   * `q` must be prepared as the store's vectors are (unit length for Cosine). With `approx` the
   * walk and the keys use its distances (quantized codes of every indexed slot) instead of the floats.
   */
  search(q: Float32Array, k: number, ef: number, admit: SlotFilter, outKeys: Float64Array, outSlots: Int32Array, approx: QueryDistance | null = null): number {
    this.syncEntry();
    if (this.entry < 0) return 0;
    const width = Math.max(ef, k);
    this.ensureScratch(width + 1);
    this.space.setQuery(q);
    approx?.setQuery(q);
    // Both are rebound when their arrays move, so they are read at each search.
    this.queryDistance = approx ? approx.toQuery : this.space.toQuery;
    this.queryBatch = approx ? (approx.batch ?? null) : this.space.batch;
    this.searchLayer(-1, this.descend(-1, 0), width, 0, admit);
    const n = this.results.drainAscending(this.keys, this.slots);
    const count = Math.min(n, k);
    for (let i = 0; i < count; i++) {
      outKeys[i] = this.keys[i]!;
      outSlots[i] = this.slots[i]!;
    }
    return count;
  }

  /** Whether a repair of removed waypoints is under way (repairSome). */
  get repairing(): boolean {
    return this.repair !== null;
  }

  /** Repairs every removed waypoint away at once (tools and tests; the indexer repairs a step at a time). */
  repairRemoved(): void {
    while (this.repairSome(Infinity));
  }

  /**
   * A step of the repair of removed waypoints, begun when none is under way and some are
   * removed: relinks each node of the next `budget` slots that points at a removed waypoint,
   * choosing among its live links and the removed neighbours' live links with the heuristic;
   * once past the last slot, frees the waypoints that were removed when it began (every live
   * node has been relinked away from them since, and new nodes link only live ones). Answers
   * whether it is still under way. In steps, so that a repair never holds the thread for long:
   * at once, a graph of 50,000 nodes with 1% removed took 65-130 ms, and the time grows with
   * the graph (every node's lists are read).
   */
  repairSome(budget: number): boolean {
    let repair = this.repair;
    if (!repair) {
      this.syncEntry();
      if (this.removedCount === 0) return false;
      const freeing: number[] = [];
      for (let s = 0; s < this.store.slotCount; s++) if (this.isWaypoint(s)) freeing.push(s);
      repair = this.repair = { freeing, next: 0, seen: new Set(), keys: new Float64Array(64), slots: new Int32Array(64) };
    }
    const end = Math.min(this.store.slotCount, repair.next + budget);
    for (; repair.next < end; repair.next++) this.relinkAroundWaypoints(repair, repair.next);
    if (repair.next < this.store.slotCount) return true;
    this.repair = null;
    this.syncEntry();
    if (this.entry >= 0 && this.isWaypoint(this.entry)) this.chooseEntry();
    for (const s of repair.freeing) {
      if (this.levels[s]! > 0) this.freeUpper(s, this.levels[s]!);
      this.lockNode(s);
      this.levels[s] = -1;
      this.links0[s * (this.params.m0 + 1)] = 0;
      this.unlockNode(s);
      this.nodeCount--;
      this.store.release(s);
    }
    this.removedCount -= repair.freeing.length;
    return false;
  }

  /** A removed point still linked into the graph. */
  private isWaypoint(s: number): boolean {
    return this.store.state[s] === REMOVED && this.levels[s]! >= 0;
  }

  /** Relinks each layer's list of live node `s` that holds a removed waypoint (repairSome). */
  private relinkAroundWaypoints(repair: Repair, s: number): void {
    const state = this.store.state;
    if (state[s] !== LIVE || this.levels[s]! < 0) return;
    const { seen } = repair;
    for (let level = this.levels[s]!; level >= 0; level--) {
      const arr = this.linkArray(level);
      const off = this.linkOffset(s, level);
      const n = arr[off]!;
      let touched = false;
      for (let i = 1; i <= n && !touched; i++) touched = this.isWaypoint(arr[off + i]!);
      if (!touched) continue;
      seen.clear();
      seen.add(s);
      let count = 0;
      const consider = (c: number): void => {
        if (seen.has(c) || state[c] !== LIVE) return;
        seen.add(c);
        if (count === repair.keys.length) {
          const keys = new Float64Array(count * 2);
          keys.set(repair.keys);
          repair.keys = keys;
          const slots = new Int32Array(count * 2);
          slots.set(repair.slots);
          repair.slots = slots;
        }
        insertByDistance(repair.keys, repair.slots, count++, this.nodeDist(s, c), c);
      };
      for (let i = 1; i <= n; i++) {
        const t = arr[off + i]!;
        if (!this.isWaypoint(t)) {
          consider(t);
          continue;
        }
        if (this.levels[t]! < level) continue;
        const tArr = this.linkArray(level);
        const tOff = this.linkOffset(t, level);
        for (let j = 1; j <= tArr[tOff]!; j++) consider(tArr[tOff + j]!);
      }
      const most = level === 0 ? this.params.m0 : this.params.m;
      const kept = this.selectNeighbours(repair.keys, repair.slots, count, most);
      this.lockNode(s);
      this.writeLinks(s, level, this.selected, kept);
      this.unlockNode(s);
    }
  }

  /**
   * The whole graph as it is now (snapshots): levels, the flat layer-0 links, upper links, entry
   * and generator state, each written later from a copy of its own (the upper lists gathered into
   * one). The levels, norms and counters are copied now; `copy` takes the links a piece at a time
   * (13 MB at 100,000 points: taken at once, a pause of every request), and nothing may link into
   * the graph until it has run to its end (IndexBacklog.captureGraph holds linking off). Slots the
   * graph's arrays have no room for yet (points added since they last grew, none linked) are
   * written unlinked, as a growth would have made them. Never while a batch is linked elsewhere:
   * the arrays are then being written.
   */
  capture(): GraphCapture {
    this.syncEntry();
    const n = this.store.slotCount;
    const room = Math.min(n, this.levels.length);
    const head = [this.entry, this.maxLevel, this.nodeCount, this.removedCount, this.random.state, this.maxNorm2] as const;
    const levels = new Int8Array(n).fill(-1);
    levels.set(this.levels.subarray(0, room));
    const words0 = this.params.m0 + 1;
    const words = this.params.m + 1;
    let total = 0;
    for (let s = 0; s < room; s++) if (levels[s]! > 0) total += levels[s]! * words;
    // Taken into pieces of their own as the copy goes, so that no slice allocates the whole.
    const pieces0: Uint32Array[] = [];
    const upper = new Uint32Array(total);
    let norms2: Float64Array | null = null;
    if (this.augmented) {
      norms2 = new Float64Array(n);
      norms2.set(this.norms2.subarray(0, Math.min(n, this.norms2.length)));
    }
    // The arrays of the moment: a growth meanwhile gives the graph new ones (longer views of the same memory, or copies), and the copy reads only the `room` slots of these.
    const { links0: from0, upperAt, upperLinks } = this;
    function* copy(): Sliced {
      for (let at = 0, end = room * words0; at < end; at += PIECE_WORDS) {
        pieces0.push(from0.slice(at, Math.min(end, at + PIECE_WORDS)));
        yield;
      }
      for (let s = 0, at = 0, piece = 0; s < room; s++) {
        if (levels[s]! <= 0) continue;
        const length = levels[s]! * words;
        upper.set(upperLinks.subarray(upperAt[s]!, upperAt[s]! + length), at);
        at += length;
        if (at - piece >= PIECE_WORDS) {
          piece = at;
          yield;
        }
      }
    }
    return {
      copy: copy(),
      *write(w) {
        const [entry, maxLevel, nodeCount, removedCount, randomState, maxNorm2] = head;
        w.u32(n).f64(entry).f64(maxLevel).u32(nodeCount).u32(removedCount).u32(randomState).f64(maxNorm2);
        writeRaw(w, levels, n);
        for (const piece of pieces0) yield* rawPieces(w, piece, 0, piece.length);
        // The slots past the arrays' room, unlinked: an empty list each.
        const unlinked = (n - room) * words0;
        const zeros = new Uint32Array(Math.min(unlinked, PIECE_WORDS));
        for (let left = unlinked; left > 0; left -= zeros.length) yield* rawPieces(w, zeros, 0, Math.min(left, zeros.length));
        yield* rawPieces(w, upper, 0, upper.length);
        if (norms2) writeRaw(w, norms2, n);
      },
    };
  }

  /**
   * The index with no node linked, in capture's layout: for a copy of the views that never walks
   * its graphs (a Cypher replica's), which then holds none of the links.
   */
  captureEmpty(): GraphCapture {
    const head = [this.random.state, this.maxNorm2] as const;
    return {
      copy: noCopy(),
      *write(w) {
        w.u32(0).f64(-1).f64(-1).u32(0).u32(0).u32(head[0]).f64(head[1]);
      },
    };
  }

  /** Fills an empty index from capture's bytes; the store must be restored first. */
  readFrom(r: ByteReader): void {
    // A store whose vectors are shared is walked by the search workers: the links are read
    // straight into shared arrays, which layout() would otherwise copy them into at the first
    // search (about 20 ms at 100,000 x 128 on this machine, ten times that at a million points).
    this.ensureCapacity(this.store.layout() !== null || isShared(this.links0));
    const n = r.u32();
    this.entry = r.f64();
    this.maxLevel = r.f64();
    this.nodeCount = r.u32();
    this.removedCount = r.u32();
    this.random.state = r.u32();
    this.maxNorm2 = r.f64();
    readRaw(r, this.levels, n);
    readRaw(r, this.links0, n * (this.params.m0 + 1));
    const words = this.params.m + 1;
    let total = 0;
    for (let s = 0; s < n; s++) total += Math.max(0, this.levels[s]!) * words;
    if (total > this.upperLinks.length) this.replaceArrays(this.levels.length, total);
    for (let s = 0; s < n; s++) {
      const level = this.levels[s]!;
      if (level <= 0) continue;
      this.allocateUpper(s, level);
      readRaw(r, this.upperLinks.subarray(this.upperAt[s]!), level * words);
    }
    Atomics.store(this.top, 0, this.entry);
    if (this.augmented) readRaw(r, this.norms2, n);
  }

  private chooseEntry(): void {
    let entry = -1;
    let maxLevel = -1;
    const state = this.store.state;
    for (let s = 0; s < this.store.slotCount; s++) {
      if (state[s] === LIVE && this.levels[s]! > maxLevel) {
        entry = s;
        maxLevel = this.levels[s]!;
      }
    }
    this.setEntry(entry, maxLevel);
  }
}
