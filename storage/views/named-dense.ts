import type { ByteReader } from '../codec/byte-reader.js';
import type { Captured, Sliced } from '../codec/slices.js';
import type { NamedVectorConfig, PointId } from '../events/types.js';
import { normalizeInPlace } from './distance.js';
import { HnswIndex } from './hnsw.js';
import { IndexBacklog } from './index-backlog.js';
import type { GraphBuilder } from './graph-builder.js';
import { PointStore } from './point-store.js';
import { VectorSpace } from './vector-space.js';
import type { Quantization } from './quantization-config.js';
import { quantizedVectors, type QuantizedVectors } from './quantized-vectors.js';

const NO_PAYLOAD = Object.freeze({});

/**
 * One named dense vector of a collection: its own slots (one contiguous vector buffer), its own
 * HNSW index and its own backlog of vectors waiting to be linked. Its slots are not the
 * collection's: a point is found here by its id, and only points that have this vector have a slot.
 * The slot lifecycle is the collection's own (a removed slot waits until the index lets it go,
 * and no slot is reused while an export is pinned).
 */
export class NamedDenseVectors {
  readonly store: PointStore;
  readonly space: VectorSpace;
  readonly index: HnswIndex;
  private readonly backlog: IndexBacklog;
  private readonly scratch: Float32Array;
  /** The quantized codes while the collection asks for quantization: whole, or still being built in steps. */
  private codes: QuantizedVectors | null = null;

  constructor(readonly name: string, readonly config: NamedVectorConfig, seed: number, segmentSlots?: number) {
    this.store = new PointStore(config.size, undefined, segmentSlots);
    this.space = new VectorSpace(this.store, config.distance);
    this.index = new HnswIndex(this.space, config, seed);
    this.backlog = new IndexBacklog(this.store, this.index);
    this.scratch = new Float32Array(config.size);
  }

  /** A vector as this field keeps it: a unit-length copy for Cosine. */
  prepare(vector: ArrayLike<number>, out: Float32Array = new Float32Array(this.config.size)): Float32Array {
    out.set(vector);
    if (this.config.distance === 'Cosine') normalizeInPlace(out, 0, out.length);
    return out;
  }

  /** The codes searches walk: once whole (a build in steps is walked on the floats until it ends). */
  get quantized(): QuantizedVectors | null {
    return this.codes?.whole ? this.codes : null;
  }

  /** Whether it has codes, whole or still being built. */
  get hasCodes(): boolean {
    return this.codes !== null;
  }

  /** Whether its codes are being built in steps or made anew (the collection is optimizing). */
  get coding(): boolean {
    return this.codes?.recoding ?? false;
  }

  /** One step of its codes' coding under way (QuantizedVectors.recodeStep); whether one still is after it. */
  codingStep(): boolean {
    return this.codes?.recodeStep() ?? false;
  }

  /** Codes the vectors as `quantization` asks (now when `atOnce`, see quantizedVectors), or, with null, drops the codes. */
  quantize(quantization: Quantization | null, atOnce: boolean): void {
    this.codes = quantization ? quantizedVectors(this.store, this.config.distance, quantization, atOnce) : null;
  }

  get pendingCount(): number {
    return this.backlog.count;
  }

  /** Calls visit for each live slot not yet in the HNSW graph. */
  forEachPending(visit: (slot: number) => void): void {
    this.backlog.forEach(visit);
  }

  /** The slots pending now, to visit later (IndexBacklog.capture). */
  capturePending(): (visit: (slot: number) => void) => void {
    return this.backlog.capture();
  }

  /** Gives a point this vector (prepared here), or takes it away with null. */
  set(id: PointId, vector: ArrayLike<number> | null): void {
    const prepared = vector ? this.prepare(vector, this.scratch) : null;
    const existing = this.store.slotOf(id);
    if (existing >= 0 && prepared && this.store.sameVector(existing, prepared)) return;
    if (existing >= 0) this.drop(id, existing);
    if (prepared) this.backlog.push(this.store.add(id, prepared, NO_PAYLOAD, []));
  }

  remove(id: PointId): void {
    const slot = this.store.slotOf(id);
    if (slot >= 0) this.drop(id, slot);
  }

  /** The stored vector of a point (a view: copy it before the next write), or null. */
  vectorOf(id: PointId): Float32Array | null {
    const slot = this.store.slotOf(id);
    return slot < 0 ? null : this.store.vectorOf(slot);
  }

  /** An indexed slot waits as a waypoint until repairRemoved; a pending one until indexSome passes it (IndexBacklog.removed). */
  private drop(id: PointId, slot: number): void {
    this.store.remove(id);
    if (this.index.contains(slot)) this.index.noteRemoved();
    else this.backlog.removed(slot, true);
  }

  /** See IndexBacklog.linkNothing (a copy no search walks). */
  linkNothing(): void {
    this.backlog.linkNothing();
  }

  pin(): void {
    this.backlog.pin();
  }

  unpin(): void {
    this.backlog.unpin();
  }

  /** Links up to `budget` pending vectors into the graph; answers how much budget is left. */
  indexSome(budget: number): number {
    return this.backlog.linkSome(budget, this.codes);
  }

  /** Whether a repair of the graph's removed waypoints is under way (IndexBacklog.repairing). */
  get repairing(): boolean {
    return this.backlog.repairing;
  }

  /** Sends a batch of pending vectors to be linked on other threads (IndexBacklog.linkElsewhere). */
  indexElsewhere(builder: GraphBuilder, most: number): Promise<void> | null {
    return this.backlog.linkElsewhere(builder, most, this.codes);
  }

  get building(): boolean {
    return this.backlog.building;
  }

  settled(): Promise<void> {
    return this.backlog.settled();
  }

  get copying(): boolean {
    return this.backlog.copying;
  }

  /**
   * The store, the graph and the backlog as they are now (snapshots), written later once `copy`
   * has run (IndexBacklog.captureGraph); `release` once written or given up (PointStore.capture).
   */
  capture(links = true): { copy: Sliced; write: Captured; release(): void } {
    const slots = this.backlog.captureSlots();
    const store = this.store.capture();
    const graph = this.backlog.captureGraph(links);
    const parts = [store.write, graph.write, slots];
    return {
      copy: graph.copy,
      *write(w) {
        for (const part of parts) yield* part(w);
      },
      release: () => {
        graph.release();
        store.release();
      },
    };
  }

  readFrom(r: ByteReader): void {
    this.store.readFrom(r, true);
    this.index.readFrom(r);
    this.backlog.readFrom(r);
  }
}
