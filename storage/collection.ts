import type { CollectionConfig, PointRecord } from './events/types.js';
import { normalizeInPlace } from './views/distance.js';
import { HnswIndex } from './views/hnsw.js';
import { PayloadIndex } from './views/payload-index.js';
import { LIVE, PointStore } from './views/point-store.js';
import { VectorSpace } from './views/vector-space.js';

/**
 * The materialised views of one collection: points, their HNSW index and the payload index.
 * New vectors are visible at once and wait in `pending` until the background indexer links
 * them into the graph; searches scan the pending ones exactly, so nothing fresh is missed.
 */
export class Collection {
  readonly store: PointStore;
  readonly space: VectorSpace;
  readonly index: HnswIndex;
  readonly payloadIndex = new PayloadIndex();
  private pending: number[] = [];
  private pendingHead = 0;
  private readonly scratch: Float32Array;

  constructor(readonly name: string, readonly config: CollectionConfig, seed: number, maxMemoryBytes?: number) {
    this.store = new PointStore(config.size, 1024, maxMemoryBytes);
    this.space = new VectorSpace(this.store, config.distance);
    this.index = new HnswIndex(this.space, config, seed);
    this.scratch = new Float32Array(config.size);
  }

  /** A query vector as stored vectors are kept: a unit-length copy for Cosine. */
  prepareQuery(vector: ArrayLike<number>, out: Float32Array = new Float32Array(this.config.size)): Float32Array {
    out.set(vector);
    if (this.config.distance === 'Cosine') normalizeInPlace(out, 0, out.length);
    return out;
  }

  get pendingCount(): number {
    return this.pending.length - this.pendingHead;
  }

  /** Calls visit for each live slot not yet in the HNSW graph. */
  forEachPending(visit: (slot: number) => void): void {
    const state = this.store.state;
    for (let i = this.pendingHead; i < this.pending.length; i++) {
      const slot = this.pending[i]!;
      if (state[slot] === LIVE) visit(slot);
    }
  }

  upsert(points: readonly PointRecord[]): void {
    for (const p of points) {
      const vector = p.vector ? this.prepareQuery(p.vector, this.scratch) : null;
      const existing = this.store.slotOf(p.id);
      if (existing >= 0 && this.store.sameVector(existing, vector)) {
        this.payloadIndex.remove(existing, this.store.payloads[existing]!);
        this.store.payloads[existing] = p.payload;
        this.store.labels[existing] = p.labels;
        this.payloadIndex.add(existing, p.payload);
        continue;
      }
      if (existing >= 0) this.remove(p.id);
      const slot = this.store.add(p.id, vector, p.payload, p.labels);
      this.payloadIndex.add(slot, p.payload);
      if (vector) this.pending.push(slot);
    }
  }

  /** Removes a point; answers whether it existed. */
  remove(id: number): boolean {
    const slot = this.store.slotOf(id);
    if (slot < 0) return false;
    this.payloadIndex.remove(slot, this.store.payloads[slot]!);
    const hadVector = this.store.hasVector[slot] === 1;
    this.store.remove(id);
    if (this.index.contains(slot)) this.index.noteRemoved();
    else if (!hadVector) this.store.release(slot);
    return true;
  }

  /** Links up to `budget` pending points into the graph; answers whether work is left. */
  indexSome(budget: number): boolean {
    const state = this.store.state;
    while (budget-- > 0 && this.pendingHead < this.pending.length) {
      const slot = this.pending[this.pendingHead++]!;
      if (state[slot] === LIVE) this.index.insert(slot);
      else this.store.release(slot);
    }
    if (this.pendingHead === this.pending.length) {
      this.pending = [];
      this.pendingHead = 0;
      if (this.index.removedCount > 0 && this.index.removedCount >= this.index.nodeCount * 0.01) this.index.repairRemoved();
    }
    return this.pendingCount > 0;
  }
}
