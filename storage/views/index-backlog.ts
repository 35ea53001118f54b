import type { ByteReader } from '../codec/byte-reader.js';
import type { Captured } from '../codec/slices.js';
import type { GraphBuilder } from './graph-builder.js';
import type { GraphCapture, HnswIndex } from './hnsw.js';
import { LIVE, REMOVED, type PointStore } from './point-store.js';
import type { QuantizedVectors } from './quantized-vectors.js';

/** Slots a call of linkSome repairs: with 1% of a graph removed, a fifth of them relinked, 0.4 ms (median; 200,000 x 32). */
const REPAIR_SLOTS = 256;
/** Slots repaired before each batch sent to other threads (a batch of 256 nodes keeps them busy for tens of ms). */
const BATCH_REPAIR_SLOTS = 2048;

/**
 * The vectors of one store waiting to be linked into its HNSW index, and the slot lifecycle
 * around them: a removed slot waits until the index lets it go, and while an export is pinned
 * no slot is freed for reuse (its vectors stay put), so freed slots are held until the last unpin.
 * The collection's unnamed vector and each named dense vector keep one each.
 * Vectors are linked in place (linkSome) or, a batch at a time, by a GraphBuilder on other
 * threads (linkElsewhere); while a batch is out, nothing else writes the graph.
 */
export class IndexBacklog {
  private pending: number[] = [];
  private head = 0;
  private pins = 0;
  private readonly held: number[] = [];
  /** The batch being linked on other threads, and its slots (still scanned by searches until it is done). */
  private batch: Promise<void> | null = null;
  private linking: Int32Array | null = null;
  /** Nothing is linked here (see linkNothing). */
  private linksNothing = false;
  /** Snapshot captures still copying the graph (captureGraph): nothing links into it until they are done. */
  private copies = 0;
  private copied: Promise<void> | null = null;
  private wake: () => void = () => undefined;

  constructor(
    private readonly store: PointStore,
    private readonly index: HnswIndex,
  ) {}

  /** Vectors not yet linked, a batch out included. */
  get count(): number {
    return this.pending.length - this.head + (this.linking?.length ?? 0);
  }

  /** Whether a batch is being linked on other threads. */
  get building(): boolean {
    return this.batch !== null;
  }

  /** Whether a snapshot capture is copying the graph, so that nothing may link into it now. */
  get copying(): boolean {
    return this.copies > 0;
  }

  /** Resolves once no batch is out and no capture is copying the graph. */
  async settled(): Promise<void> {
    while (this.batch || this.copied) await (this.batch ?? this.copied);
  }

  /** A slot whose new vector waits to be linked. */
  push(slot: number): void {
    if (!this.linksNothing) this.pending.push(slot);
  }

  /**
   * A slot the store has just removed and the index does not hold: freed now when no vector of
   * it waits to be linked (it had none, or nothing is linked here), else when linking passes it.
   */
  removed(slot: number, hadVector: boolean): void {
    if (!hadVector || this.linksNothing) this.release(slot);
  }

  /**
   * For a copy that no search walks (a Cypher replica's): nothing waits to be linked from now
   * on, and the slots that are removed and not in the index, now and later, are freed at once,
   * where linking or a repair would have freed them. Such a copy never links, so it used to
   * keep the slot of every point deleted or given a new vector, and a pending entry for every
   * vector written, until it was replaced.
   */
  linkNothing(): void {
    this.linksNothing = true;
    this.pending = [];
    this.head = 0;
    const state = this.store.state;
    for (let slot = 0; slot < this.store.slotCount; slot++) if (state[slot] === REMOVED && !this.index.contains(slot)) this.release(slot);
  }

  /** Calls visit for each live slot not yet in the HNSW graph (every search: no closure made). */
  forEach(visit: (slot: number) => void): void {
    this.visitLive(this.pending, this.head, this.pending.length, this.linking, visit);
  }

  /**
   * The slots pending now, to visit later (a search whose graph walk runs on another thread):
   * the array is only appended to until it is replaced, so the range taken stays as it was.
   * Visits only those still live then.
   */
  capture(): (visit: (slot: number) => void) => void {
    const { pending, head, linking } = this;
    const end = pending.length;
    return (visit) => this.visitLive(pending, head, end, linking, visit);
  }

  private visitLive(pending: number[], from: number, to: number, linking: Int32Array | null, visit: (slot: number) => void): void {
    const state = this.store.state;
    for (let i = from; i < to; i++) {
      const slot = pending[i]!;
      if (state[slot] === LIVE) visit(slot);
    }
    if (linking) for (const slot of linking) if (state[slot] === LIVE) visit(slot);
  }

  /** Frees a slot the index does not hold, or holds it while an export is pinned. */
  release(slot: number): void {
    if (this.pins > 0) this.held.push(slot);
    else this.store.release(slot);
  }

  pin(): void {
    this.pins++;
  }

  unpin(): void {
    if (--this.pins > 0) return;
    for (const slot of this.held.splice(0)) this.store.release(slot);
  }

  /** Whether a repair of the graph's removed waypoints is under way and may go on (no export pinned). */
  get repairing(): boolean {
    return this.index.repairing && this.pins === 0;
  }

  /**
   * Links up to `budget` pending vectors into the graph (adding each to `quantized`, when the
   * vectors are quantized); answers how much budget is left. Once the backlog is empty, a graph
   * with enough removed waypoints is repaired, REPAIR_SLOTS slots a call (repairStep), and a
   * repair under way goes on with every call.
   */
  linkSome(budget: number, quantized: QuantizedVectors | null): number {
    if (this.batch || this.copying) return budget;
    const state = this.store.state;
    while (budget > 0 && this.head < this.pending.length) {
      budget--;
      const slot = this.pending[this.head++]!;
      if (state[slot] === LIVE) {
        // Coded first: a graph linked on the codes (floats on disk) compares the new node by its code.
        quantized?.add(slot);
        this.index.insert(slot);
      } else this.release(slot);
    }
    if (this.head === this.pending.length) {
      this.pending = [];
      this.head = 0;
      this.repairStep(REPAIR_SLOTS);
    } else if (this.index.repairing) this.repairStep(REPAIR_SLOTS);
    return budget;
  }

  /**
   * A step of the repair of the graph's removed waypoints: begun once they are 1% of its nodes,
   * carried on while one is under way, never while an export is pinned (freeing slots would give
   * them to new points under it).
   */
  private repairStep(slots: number): void {
    if (this.pins > 0) return;
    const worthIt = this.index.removedCount > 0 && this.index.removedCount >= this.index.nodeCount * 0.01;
    if (worthIt || this.index.repairing) this.index.repairSome(slots);
  }

  /**
   * Sends up to `most` pending vectors to `builder` to be linked on other threads, after
   * preparing each here (its level and room for its lists); the quantized codes follow once the
   * batch is done. Answers the batch, or null when none was started: one is out already, there
   * is nothing to link, or the graph cannot be built elsewhere (then linkSome links it). A batch
   * that fails is linked here, the nodes the builder linked in part included.
   */
  linkElsewhere(builder: GraphBuilder, most: number, quantized: QuantizedVectors | null): Promise<void> | null {
    // Floats on disk are read through a file only this thread has open: such graphs are linked here.
    if (this.batch || this.copying || this.head === this.pending.length || !this.index.buildsElsewhere || !(this.index.layout()?.store.onDisk === false)) return null;
    // Between two batches, the only moments this thread may write the graph while points keep
    // coming: without a step here a repair would wait for the end of a long load, and the slots
    // of replaced vectors with it.
    this.repairStep(BATCH_REPAIR_SLOTS);
    const state = this.store.state;
    const taken: number[] = [];
    while (taken.length < most && this.head < this.pending.length) {
      const slot = this.pending[this.head++]!;
      if (state[slot] !== LIVE) this.release(slot);
      else if (this.index.prepareInsert(slot)) taken.push(slot);
      else quantized?.add(slot);
    }
    if (this.head === this.pending.length) {
      this.pending = [];
      this.head = 0;
    }
    if (taken.length === 0) return null;
    const slots = Int32Array.from(taken);
    const finish = (): void => {
      for (const slot of slots) if (this.store.state[slot] === LIVE) quantized?.add(slot);
      this.index.othersWrite = false;
      this.linking = null;
      this.batch = null;
    };
    const linked = builder.link(this.index, slots);
    if (!linked) {
      for (const slot of slots) this.index.linkPrepared(slot);
      finish();
      return null;
    }
    // Searches on this thread read the graph under its sequence locks until the batch is done.
    this.index.othersWrite = true;
    this.linking = slots;
    this.batch = linked.then(finish, () => {
      for (const slot of slots) this.index.linkPrepared(slot);
      finish();
    });
    return this.batch;
  }

  /**
   * The graph as it is now, for a snapshot (HnswIndex.capture): nothing links into it, here or on
   * other threads, until its copy has run to its end or the capture is released (idempotent).
   * `links` false: the graph as if nothing were linked (captureEmpty), holding nothing off.
   */
  captureGraph(links: boolean): GraphCapture & { release(): void } {
    if (!links) return { ...this.index.captureEmpty(), release: () => undefined };
    const graph = this.index.capture();
    const release = this.holdLinking();
    function* copy() {
      try {
        yield* graph.copy;
      } finally {
        release();
      }
    }
    return { copy: copy(), write: graph.write, release };
  }

  /** Holds linking off until the answer is called (once: later calls do nothing). */
  private holdLinking(): () => void {
    if (this.copies++ === 0) this.copied = new Promise((resolve) => (this.wake = resolve));
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.copies > 0) return;
      this.copied = null;
      this.wake();
    };
  }

  /** The pending and held slots as they are now (snapshots; never while a batch is out), copied, written later. */
  captureSlots(): Captured {
    if (this.batch) throw new Error('a snapshot of a graph while a batch is linked elsewhere');
    const pending = this.pending.slice(this.head);
    const held = this.held.slice();
    return function* (w) {
      w.u32(pending.length);
      for (const slot of pending) w.u32(slot);
      w.u32(held.length);
      for (const slot of held) w.u32(slot);
    };
  }

  /** captureSlots's slots, into an empty backlog: the held ones are free again (no export runs after a load). */
  readFrom(r: ByteReader): void {
    for (let k = r.u32(), i = 0; i < k; i++) this.pending.push(r.u32());
    for (let k = r.u32(), i = 0; i < k; i++) this.store.release(r.u32());
  }
}
