import type { ByteReader } from './codec/byte-reader.js';
import type { Captured, Sliced } from './codec/slices.js';
import type { CollectionConfig, CollectionSettings, FieldIndex, MultiVector, Payload, PointId, PointRecord, SparseVector } from './events/types.js';
import { readFieldIndexes, readSettings, writeFieldIndexes } from './events/codec.js';
import { normalizeInPlace } from './views/distance.js';
import { GraphStore } from './views/graph-store.js';
import { HnswIndex } from './views/hnsw.js';
import { LabelIndex } from './views/label-index.js';
import { PayloadIndex } from './views/payload-index.js';
import { SlotJournal } from './views/slot-journal.js';
import { NamedDenseVectors } from './views/named-dense.js';
import { LIVE, PointStore } from './views/point-store.js';
import { SparseVectors } from './views/sparse-vectors.js';
import { MultiVectors } from './views/multi-vectors.js';
import { quantizationOf } from './views/quantization-config.js';
import type { FloatFiles } from './views/float-file.js';
import { onDiskOf } from './views/on-disk-config.js';
import { quantizedVectors, type QuantizedVectors } from './views/quantized-vectors.js';
import { VectorSpace } from './views/vector-space.js';
import { IndexBacklog } from './views/index-backlog.js';
import { graphBuilder, type GraphBuilder } from './views/graph-builder.js';
import type { FullTextIndex } from './views/fulltext-index.js';
import { FullTextViews } from './views/fulltext-views.js';

/** Float values moved into a file, or back into RAM, at once when a collection's on_disk changes (16 MiB); more are moved a step at a time. */
const MOVE_AT_ONCE_VALUES = 2 ** 22;
/** Float values a step of such a move writes or reads (32 KiB). */
const MOVE_STEP_VALUES = 8192;

/** One step of a store's move into its file (PointStore.moveStep) or back into RAM (toRamStep); whether it goes on. */
function moveStep(store: PointStore): boolean {
  const slots = Math.max(1, Math.floor(MOVE_STEP_VALUES / store.dim));
  return store.movingToRam ? store.toRamStep(slots) : store.moveStep(slots);
}

const moving = (store: PointStore): boolean => store.movingToDisk || store.movingToRam;

/** Stored points a payload index declared over is built from at once (a text field's: about 10-20 ms of tokenizing); more are built by the indexer's turns. */
const FIELD_AT_ONCE_SLOTS = 1024;

/** A collection's state captured for a snapshot (Collection.capture). */
export interface CollectionCapture {
  /** Takes the HNSW links a piece at a time; run it to its end before `write` (the graphs link nothing meanwhile). */
  copy: Sliced;
  write: Captured;
  /** Stops keeping vectors for it (idempotent). */
  release(): void;
}

/**
 * The materialised views of one collection: points, the HNSW index of their unnamed vector, their
 * named dense vectors and sparse vectors (each with its own index), their multivectors, the payload and label
 * indexes, and the graph of edges between points.
 * New vectors are visible at once and wait in a backlog (views/index-backlog.ts) until the
 * background indexer links them into the graph; searches scan the pending ones exactly, so
 * nothing fresh is missed.
 */
export class Collection {
  readonly store: PointStore;
  readonly space: VectorSpace;
  readonly index: HnswIndex;
  readonly payloadIndex = new PayloadIndex();
  /** Slots whose payload changed, while a view derived from payloads reads them (SlotJournal). */
  readonly payloadChanges = new SlotJournal();
  readonly labelIndex = new LabelIndex();
  readonly graph = new GraphStore();
  /** The full-text indexes queried so far, following every node write (FullTextViews). */
  private readonly fullText = new FullTextViews();
  /** The unnamed vector's backlog; running exports pin it, so no slot is freed for reuse under them. */
  private readonly backlog: IndexBacklog;
  private readonly scratch: Float32Array;
  /** Above every point id ever used here, deleted ones included: Cypher CREATE takes ids from it. */
  nextNodeId = 0;
  /** The payload indexes declared on fields (Qdrant's payload_schema). */
  readonly fieldIndexes = new Map<string, FieldIndex>();
  /** The aliases that name this collection (storage/aliases.ts). */
  readonly aliases = new Set<string>();
  private givenSettings: CollectionSettings = {};
  /** The quantized codes of the unnamed vector while the settings ask for quantization: whole, or still being built in steps. */
  private codes: QuantizedVectors | null = null;
  /** Where the floats of an on_disk vector go; null (no data dir: the browser library, tools, tests) keeps them in RAM. */
  private floatFiles: FloatFiles | null = null;
  /** Whether quantization_config makes codes here (see keepNoCodes). */
  private codesKept = true;
  /** A copy whose indexSome is never called (unsearched): what the indexer would do in steps is done at once. */
  private noIndexer = false;
  /** The named dense vectors, by name (the unnamed one, "", is `store`'s). */
  readonly named = new Map<string, NamedDenseVectors>();
  readonly sparse = new Map<string, SparseVectors>();
  /** The multivectors, by name ("" when the unnamed vector is one); scanned exactly, no graph. */
  readonly multi = new Map<string, MultiVectors>();

  /** `seed` (the creating operation_id) seeds the HNSW level draws; `segmentSlots` sets the vectors' segments (tests; by default one memory's worth, vector-segments.ts). */
  constructor(readonly name: string, readonly config: CollectionConfig, readonly seed: number, segmentSlots?: number) {
    this.store = new PointStore(config.size, undefined, segmentSlots);
    this.space = new VectorSpace(this.store, config.distance);
    this.index = new HnswIndex(this.space, config, seed);
    this.backlog = new IndexBacklog(this.store, this.index);
    this.scratch = new Float32Array(config.size);
    for (const [vector, params] of Object.entries(config.named ?? {})) this.named.set(vector, new NamedDenseVectors(vector, params, seed, segmentSlots));
    for (const [vector, params] of Object.entries(config.sparse ?? {})) this.sparse.set(vector, new SparseVectors(vector, params));
    for (const [vector, params] of Object.entries(config.multi ?? {})) this.multi.set(vector, new MultiVectors(vector, params));
  }

  /** Qdrant settings kept as given and reported (optimizers_config, HNSW extras, quantization_config). */
  get settings(): CollectionSettings {
    return this.givenSettings;
  }

  /**
   * New settings; a change of their quantization_config rebuilds (or drops) the quantized codes,
   * one of on_disk moves floats; either lets go of large buffers, which the float files' owner
   * is told of (so that their memory is given back at once).
   */
  set settings(next: CollectionSettings) {
    const before = JSON.stringify(quantizationOf(this.givenSettings));
    this.givenSettings = next;
    this.fullText.keepDeclared(next);
    const requantized = JSON.stringify(quantizationOf(next)) !== before;
    const hadCodes = this.codes !== null || [...this.named.values()].some((field) => field.hasCodes);
    if (requantized) this.quantize(false);
    const moved = this.placeFloats(this.noIndexer);
    if (moved || requantized) this.letGo(moved || hadCodes);
  }

  /**
   * After vectors or codes moved: their old memory goes back at once, here (each graph lets go of
   * the last walk's distances, which may be the dropped codes') and on the builder's threads.
   * `freed`: large buffers were let go of (floats moved, codes dropped or replaced), which the
   * float files' owner is told of (a full collection: none when codes were only added).
   */
  private letGo(freed = true): void {
    const indexes = [this.index, ...[...this.named.values()].map((field) => field.index)];
    for (const index of indexes) index.storeMoved();
    if (freed) this.floatFiles?.released();
    const builder = graphBuilder();
    for (const index of indexes) builder?.vectorsMoved(index);
  }

  /** Whether the dense vector `name` ("" the unnamed one) asks for its floats on disk (Qdrant's on_disk). */
  onDisk(name: string): boolean {
    return onDiskOf(this.config, this.givenSettings, name);
  }

  /** Gives the collection a place for on-disk floats (the engine's data dir), and moves there those that ask for it. */
  useFloatFiles(files: FloatFiles | null): void {
    this.floatFiles = files;
    if (this.placeFloats(true)) this.letGo();
  }

  /** Closes the float files of vectors on disk (a closed database): a later read of them throws. */
  closeFloatFiles(): void {
    this.store.closeFile();
    for (const field of this.named.values()) field.store.closeFile();
  }

  /**
   * Each dense vector's floats in a file when it is on_disk and there is a place for them, else
   * in RAM; answers whether any moved (the caller then lets go: letGo). Floats move at once
   * when `atOnce` (start-up) or when they are few; else a step at a time (indexSome carries the
   * move on; searches read them where they were until it ends). A move the other way under way
   * is called off.
   */
  private placeFloats(atOnce: boolean): boolean {
    const files = this.floatFiles;
    let moved = false;
    const place = (store: PointStore, onDisk: boolean): void => {
      const toDisk = onDisk && files !== null;
      const now = atOnce || store.slotCount * store.dim <= MOVE_AT_ONCE_VALUES;
      if (toDisk) {
        store.stayOnDisk();
        if (store.onDisk || store.movingToDisk) return;
        if (!now) return store.beginToDisk(files.open(store.dim));
        store.toDisk(files.open(store.dim));
      } else {
        if (store.movingToDisk) return store.toRam();
        if (!store.onDisk) return;
        if (!now) return store.beginToRam();
        // At once, or the rest of a move under way.
        store.toRam();
      }
      moved = true;
    };
    if (this.hasUnnamed) place(this.store, this.onDisk(''));
    for (const [name, field] of this.named) place(field.store, this.onDisk(name));
    this.chooseLinkDistances();
    return moved;
  }

  /**
   * For a copy that no search walks (a Cypher replica's: vector-index queries run on the request
   * thread): keeps no int8 or binary codes from now on, whatever the settings say, and links
   * nothing into the HNSW graphs, so the slot of a point deleted or given a new vector is freed
   * at once (IndexBacklog.linkNothing). No indexer runs there either, so floats set on_disk move
   * and payload indexes are built at once (on the copy's own thread).
   */
  unsearched(): void {
    this.noIndexer = true;
    this.keepNoCodes();
    this.backlog.linkNothing();
    for (const field of this.named.values()) field.linkNothing();
  }

  /** Keeps no codes from now on (unsearched), dropping those kept. */
  private keepNoCodes(): void {
    if (!this.codesKept) return;
    this.codesKept = false;
    if (quantizationOf(this.givenSettings) === null) return;
    this.quantize(true);
    this.letGo();
  }

  /** The unnamed vector's codes that searches walk: once whole (a build in steps is walked on the floats until it ends). */
  get quantized(): QuantizedVectors | null {
    return this.codes?.whole ? this.codes : null;
  }

  /**
   * Codes every dense vector as the settings ask (or drops the codes), from the float vectors as
   * they are: at once when `atOnce` (a collection being loaded), else as quantizedVectors chooses
   * (a step at a time for many vectors, carried on by indexSome).
   */
  private quantize(atOnce: boolean): void {
    const quantization = this.codesKept ? quantizationOf(this.givenSettings) : null;
    this.codes = quantization && this.hasUnnamed ? quantizedVectors(this.store, this.config.distance, quantization, atOnce) : null;
    for (const field of this.named.values()) field.quantize(quantization, atOnce);
    this.chooseLinkDistances();
  }

  /**
   * Graphs whose floats are on disk link new points on their int8 codes once whole (a file read
   * per distance would make linking several times slower); every other graph links on the floats.
   */
  private chooseLinkDistances(): void {
    this.index.linkOn = this.store.onDisk ? (this.quantized?.nodeDistance() ?? null) : null;
    for (const field of this.named.values()) field.index.linkOn = field.store.onDisk ? (field.quantized?.nodeDistance() ?? null) : null;
  }

  /** Whether the collection has an unnamed vector (a collection of named vectors only has none). */
  get hasUnnamed(): boolean {
    return this.config.size > 0;
  }

  /** A point's named dense, sparse and multivectors as they are stored (copies, or matrices that never change), for a write that keeps them. */
  otherVectors(id: PointId): Pick<PointRecord, 'named' | 'sparse' | 'multi'> {
    const out: Pick<PointRecord, 'named' | 'sparse' | 'multi'> = {};
    for (const [name, field] of this.named) {
      const v = field.vectorOf(id);
      if (v) (out.named ??= {})[name] = Float32Array.from(v);
    }
    for (const [name, field] of this.sparse) {
      const v = field.get(id);
      if (v) (out.sparse ??= {})[name] = v;
    }
    for (const [name, field] of this.multi) {
      const m = field.get(id);
      if (m) (out.multi ??= {})[name] = m;
    }
    return out;
  }

  /** A query vector as stored vectors are kept: a unit-length copy for Cosine. */
  prepareQuery(vector: ArrayLike<number>, out: Float32Array = new Float32Array(this.config.size)): Float32Array {
    out.set(vector);
    if (this.config.distance === 'Cosine') normalizeInPlace(out, 0, out.length);
    return out;
  }

  /** Vectors not yet linked into their HNSW graph, the named ones' included. */
  get pendingCount(): number {
    let n = this.backlog.count;
    for (const field of this.named.values()) n += field.pendingCount;
    return n;
  }

  /** Calls visit for each live slot not yet in the HNSW graph. */
  forEachPending(visit: (slot: number) => void): void {
    this.backlog.forEach(visit);
  }

  /** The slots pending now, to visit later (IndexBacklog.capture). */
  capturePending(): (visit: (slot: number) => void) => void {
    return this.backlog.capture();
  }

  upsert(points: readonly PointRecord[]): void {
    for (const p of points) {
      if (typeof p.id === 'number' && p.id >= this.nextNodeId) this.nextNodeId = p.id + 1;
      const vector = p.vector ? this.prepareQuery(p.vector, this.scratch) : null;
      const existing = this.store.slotOf(p.id);
      this.setOtherVectors(p.id, p.named, p.sparse, p.multi);
      if (existing >= 0 && this.store.sameVector(existing, vector)) {
        this.setPayload(p.id, p.payload, p.labels);
        continue;
      }
      if (existing >= 0) this.dropSlot(p.id, existing);
      const slot = this.store.add(p.id, vector, p.payload, p.labels);
      this.payloadIndex.add(slot, p.payload);
      this.payloadChanges.note(slot);
      this.labelIndex.add(p.id, p.labels);
      this.fullText.put(p.id, p.labels, p.payload);
      if (vector) this.backlog.push(slot);
    }
  }

  /** Sets a point's named dense, sparse and multivectors: each name it lacks is taken away. */
  private setOtherVectors(id: PointId, named: Record<string, Float32Array> | undefined, sparse: Record<string, SparseVector> | undefined, multi: Record<string, MultiVector> | undefined): void {
    for (const [name, field] of this.named) field.set(id, named?.[name] ?? null);
    for (const [name, field] of this.sparse) field.set(id, sparse?.[name] ?? null);
    for (const [name, field] of this.multi) field.set(id, multi?.[name] ?? null);
  }

  /** Replaces a point's payload and labels; its vector, its place in the index and its edges stay. */
  setPayload(id: PointId, payload: PointRecord['payload'], labels: string[]): boolean {
    const slot = this.store.slotOf(id);
    if (slot < 0) return false;
    this.payloadIndex.remove(slot, this.store.payloads[slot]!);
    this.labelIndex.remove(id, this.store.labels[slot]!);
    this.store.payloads[slot] = payload;
    this.store.labels[slot] = labels;
    this.payloadIndex.add(slot, payload);
    this.payloadChanges.note(slot);
    this.labelIndex.add(id, labels);
    this.fullText.put(id, labels, payload);
    return true;
  }

  /** The full-text index over nodes of any of `labels` and their text `properties`, kept as a view (built now if no query read it before). */
  fullTextIndex(labels: readonly string[], properties: readonly string[]): FullTextIndex {
    return this.fullText.get(labels, properties, (index) => {
      for (const label of labels) {
        for (const id of this.labelIndex.pointsWith(label)) {
          if (index.has(id)) continue;
          const slot = this.store.slotOf(id);
          index.put(id, this.store.labels[slot]!, this.store.payloads[slot] ?? {});
        }
      }
    });
  }

  /** Takes a point's slot out of the views; its edges stay (an upsert keeps them). */
  private dropSlot(id: PointId, slot: number): void {
    this.payloadIndex.remove(slot, this.store.payloads[slot]!);
    this.payloadChanges.note(slot);
    this.labelIndex.remove(id, this.store.labels[slot]!);
    this.fullText.remove(id);
    const hadVector = this.store.hasVector[slot] === 1;
    this.store.remove(id);
    if (this.index.contains(slot)) this.index.noteRemoved();
    else this.backlog.removed(slot, hadVector);
  }

  pin(): void {
    this.backlog.pin();
    for (const field of this.named.values()) field.pin();
  }

  unpin(): void {
    for (const field of this.named.values()) field.unpin();
    this.backlog.unpin();
  }

  /**
   * Declares (or, with null, drops) a field's payload index: its points counted and a text
   * field's words indexed, at once over a few stored points (or on load, or in a copy with no
   * indexer), else by the indexer's turns (PayloadIndex.declareField).
   */
  declareIndex(field: string, index: FieldIndex | null, loading = false): void {
    this.payloadIndex.dropField(field);
    // A text index changes what a full-text match means (words, not substrings): kept filter matches start over.
    if (this.fieldIndexes.get(field)?.type === 'text' || index?.type === 'text') this.payloadChanges.restart();
    if (index === null) {
      this.fieldIndexes.delete(field);
      return;
    }
    this.fieldIndexes.set(field, index);
    // Loading adds every payload to the indexes next; else a field declared over many points is
    // counted (and a text field's words indexed) by the indexer's turns: tokenizing 500,000
    // sentences at once held every request for 9 s.
    this.payloadIndex.declareField(field, index.type === 'text', loading);
    if (this.noIndexer || this.store.slotCount <= FIELD_AT_ONCE_SLOTS) this.payloadIndex.buildFieldNow(field, this.store.slotCount, this.payloadAt);
  }

  /** A slot's payload, or null where no live point is (what the payload index builds declared fields from). */
  private readonly payloadAt = (slot: number): Payload | null => (this.store.state[slot] === LIVE ? this.store.payloads[slot]! : null);

  /** Deletes a point and every edge that starts or ends at it; answers whether it existed. */
  remove(id: PointId): boolean {
    const slot = this.store.slotOf(id);
    if (slot < 0) return false;
    this.dropSlot(id, slot);
    for (const field of this.named.values()) field.remove(id);
    for (const field of this.sparse.values()) field.remove(id);
    for (const field of this.multi.values()) field.remove(id);
    this.graph.removeIncident(id);
    return true;
  }

  /**
   * Every view as it is now (snapshots), written later a piece at a time once `copy` has run (the
   * HNSW links, IndexBacklog.captureGraph); the payload and label indexes are rebuilt on load.
   * `release` once written or given up (PointStore.capture). `links` false: the HNSW graphs as if
   * nothing were linked, for a copy no search walks.
   */
  capture(links = true): CollectionCapture {
    const slots = this.backlog.captureSlots();
    const store = this.store.capture();
    const graph = this.backlog.captureGraph(links);
    const named = [...this.named.values()].map((f) => f.capture(links));
    const parts = [store.write, graph.write, this.graph.capture(), slots];
    const nextNodeId = this.nextNodeId;
    const indexes = Object.fromEntries(this.fieldIndexes);
    const aliases = [...this.aliases].sort();
    const settings = JSON.stringify(this.settings);
    const fields = [...named.map((f) => f.write), ...[...this.sparse.values()].map((f) => f.capture()), ...[...this.multi.values()].map((f) => f.capture())];
    return {
      copy: (function* () {
        yield* graph.copy;
        for (const f of named) yield* f.copy;
      })(),
      *write(w) {
        w.str(settings);
        for (const part of parts) yield* part(w);
        w.f64(nextNodeId);
        writeFieldIndexes(w, indexes);
        w.u32(aliases.length);
        for (const alias of aliases) w.str(alias);
        for (const field of fields) yield* field(w);
      },
      release: () => {
        graph.release();
        store.release();
        for (const f of named) f.release();
      },
    };
  }

  /** Fills a new, empty collection from capture's bytes (`version`: the snapshot format's). */
  readFrom(r: ByteReader, version: number, floatFiles: FloatFiles | null = null): void {
    // Version 7 on: the settings first, so that floats on disk are read straight into their file.
    if (version >= 7) {
      this.givenSettings = readSettings(r);
      this.floatFiles = floatFiles;
      this.placeFloats(true);
    }
    this.store.readFrom(r, version >= 3);
    this.index.readFrom(r);
    this.graph.readFrom(r, version);
    this.backlog.readFrom(r);
    // Version 1 did not keep the counter: the best it can know is one past the highest live id.
    this.nextNodeId = version >= 2 ? r.f64() : this.store.ids.reduce((n, id, slot) => (slot < this.store.slotCount && this.store.state[slot] === LIVE ? Math.max(n, id + 1) : n), 0);
    const { store } = this;
    if (version >= 4) {
      for (const [field, index] of Object.entries(readFieldIndexes(r))) this.declareIndex(field, index, true);
      for (let k = r.u32(), i = 0; i < k; i++) this.aliases.add(r.str());
      if (version < 7) this.givenSettings = readSettings(r);
    }
    // Before version 5 a collection had no named or sparse vectors, before version 8 no multivectors (its config names none).
    for (const field of this.named.values()) field.readFrom(r);
    for (const field of this.sparse.values()) field.readFrom(r);
    for (const field of this.multi.values()) field.readFrom(r);
    this.quantize(true);
    this.payloadChanges.restart();
    for (let slot = 0; slot < store.slotCount; slot++) {
      if (store.state[slot] !== LIVE) continue;
      this.payloadIndex.add(slot, store.payloads[slot]!);
      this.labelIndex.add(store.idOf(slot), store.labels[slot]!);
    }
  }

  /**
   * Sends batches of pending vectors (the unnamed vector's and each named one's) to be linked on
   * other threads; answers those started (none: nothing to send, batches already out, or graphs
   * that are linked in place).
   */
  indexElsewhere(builder: GraphBuilder, most: number): Promise<void>[] {
    const started = [this.backlog.linkElsewhere(builder, most, this.codes), ...[...this.named.values()].map((field) => field.indexElsewhere(builder, most))];
    return started.filter((b): b is Promise<void> => b !== null);
  }

  /** Whether a batch of this collection's vectors is being linked on other threads (its graphs are then written by nothing else). */
  get building(): boolean {
    return this.backlog.building || [...this.named.values()].some((field) => field.building);
  }

  /** Resolves once no batch of this collection is out. */
  async settled(): Promise<void> {
    await this.backlog.settled();
    for (const field of this.named.values()) await field.settled();
  }

  /** Whether the indexer is repairing a graph after deletes, building or re-coding quantized codes, or building a payload index (the collection's status is yellow meanwhile, as Qdrant's while it optimizes). */
  get optimizing(): boolean {
    if (this.backlog.repairing || this.codes?.recoding || this.payloadIndex.buildingFields || moving(this.store)) return true;
    for (const field of this.named.values()) if (field.repairing || field.coding || moving(field.store)) return true;
    return false;
  }

  /**
   * Links up to `budget` pending points into their graphs (the unnamed vector's first), and takes
   * a step of each coding of quantized codes (a build in steps, a re-code), each repair of a
   * graph and each payload index being built (so that they go on when the writes stop);
   * answers whether work is left.
   */
  indexSome(budget: number): boolean {
    let left = this.backlog.linkSome(budget, this.codes);
    for (const field of this.named.values()) left = field.indexSome(left);
    let coding = this.codes?.recoding ?? false;
    for (const field of this.named.values()) coding ||= field.coding;
    let more = (this.codes?.recodeStep() ?? false) || this.backlog.repairing;
    for (const field of this.named.values()) {
      if (field.codingStep()) more = true;
      if (field.repairing) more = true;
    }
    // While codes are being made, each turn chooses again: once whole, graphs whose floats are on disk link on them.
    if (coding) this.chooseLinkDistances();
    if (this.moveSome()) more = true;
    if (this.payloadIndex.buildingFields && this.payloadIndex.buildFields(this.store.slotCount, this.payloadAt)) more = true;
    return (this.pendingCount > 0 || more) && !this.copying;
  }

  /** One step of each move of floats into a file or back into RAM under way; once one ends, the memory it freed is let go of. Answers whether one still goes on. */
  private moveSome(): boolean {
    let goesOn = false;
    let ended = false;
    const step = (store: PointStore): void => {
      if (!moving(store)) return;
      if (moveStep(store)) goesOn = true;
      else ended = true;
    };
    step(this.store);
    for (const field of this.named.values()) step(field.store);
    if (ended) {
      this.chooseLinkDistances();
      this.letGo();
    }
    return goesOn;
  }

  /** Whether a snapshot capture is copying a graph of this collection, so that nothing links now (IndexBacklog.captureGraph). */
  get copying(): boolean {
    return this.backlog.copying || [...this.named.values()].some((field) => field.copying);
  }
}
