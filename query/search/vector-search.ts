import type { PointId } from '../../storage/point-id.js';
import type { Collection } from '../../storage/collection.js';
import { badRequest } from '../../storage/errors.js';
import { ResultHeap } from '../../storage/views/distance-heap.js';
import { scoreOf } from '../../storage/views/distance.js';
import { LIVE } from '../../storage/views/point-store.js';
import { candidateSlots } from '../filter/candidates.js';
import { filterBitsets } from '../filter/filter-bitsets.js';
import { matchesFilter } from '../filter/evaluate-filter.js';
import type { Filter } from '../filter/types.js';
import { forEachMatchingSlot } from './matching-slots.js';
import { denseView, type DenseView } from './dense-view.js';
import { graphWalker } from './graph-walker.js';
import type { SlotFilter } from '../../storage/views/hnsw.js';
import type { QuantizedVectors } from '../../storage/views/quantized-vectors.js';
import type { Distance } from '../../storage/events/types.js';
import { sparseField, sparseSearch } from './sparse-search.js';
import type { SparseVector } from '../../storage/events/types.js';

export interface VectorQuery {
  vector: ArrayLike<number>;
  /** The vector to search ("" or absent: the unnamed one). */
  using?: string | null;
  /** A sparse query (then `vector` is not read): `using` names a sparse vector. */
  sparse?: SparseVector | null;
  limit: number;
  offset: number;
  ef: number;
  filter: Filter | null;
  scoreThreshold: number | null;
  /** Keep only scores strictly above scoreThreshold (Qdrant's port); else (absent) at or above it. */
  thresholdExclusive?: boolean;
  /** Qdrant's params.quantization (absent: the defaults). */
  quantization?: QuantizationParams | null;
}

/**
 * How a search of quantized vectors goes: `ignore` walks the graph on the floats; otherwise the
 * walk uses the codes, and `rescore` (the default) ranks again by their float vectors the first
 * max(limit * oversampling, the codes' own count) of its ef candidates (QuantizedVectors.rescoreCount:
 * 4 * limit, at most ef, for int8; all ef for binary); without it the codes' distances are the scores.
 */
export interface QuantizationParams {
  ignore: boolean;
  rescore: boolean;
  oversampling: number;
}

export const DEFAULT_QUANTIZATION: QuantizationParams = { ignore: false, rescore: true, oversampling: 1 };

export interface ScoredSlot {
  slot: number;
  id: PointId;
  score: number;
}

/** Filters matching at most this many points are answered by an exact scan of the matches. */
const SCAN_MATCHES = 10_000;
/** ... and so are filters admitting at most this share of the points, where a graph walk would wander. */
const SCAN_SELECTIVITY = 0.05;
const SAMPLE_SIZE = 512;

/** Buffers reused by every search (they run one at a time on the one thread): no per-call arrays. */
const scratch = { heap: new ResultHeap(64), keys: new Float64Array(64), slots: new Int32Array(64), query: new Float32Array(0) };

function scratchFor(k: number, dim: number): typeof scratch {
  if (scratch.keys.length < k) {
    scratch.keys = new Float64Array(k * 2);
    scratch.slots = new Int32Array(k * 2);
  }
  if (scratch.query.length !== dim) scratch.query = new Float32Array(dim);
  scratch.heap.clear();
  return scratch;
}

/** The share of live points a filter admits, from a fixed pseudo-random sample of slots. */
function estimateSelectivity(c: Collection, filter: Filter): number {
  const { store } = c;
  let seed = 0x9e3779b9;
  let live = 0;
  let matched = 0;
  for (let i = 0; i < SAMPLE_SIZE * 4 && live < SAMPLE_SIZE; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    const slot = seed % store.slotCount;
    if (store.state[slot] !== LIVE) continue;
    live++;
    if (matchesFilter(filter, c, slot)) matched++;
  }
  return live === 0 ? 1 : matched / live;
}

/** What a dense search needs once its query is checked: the vector's view and how wide to walk. */
interface DensePlan {
  view: DenseView;
  distance: Distance;
  k: number;
  wide: number;
  ef: number;
  approx: QuantizedVectors | null;
  rescore: boolean;
  admit: SlotFilter;
  /** The filter's matches are few or rare: scan them exactly instead of walking the graph. */
  scan: boolean;
}

function planDense(c: Collection, q: VectorQuery): DensePlan {
  const view = denseView(c, q.using);
  if (q.vector.length !== view.size) {
    throw badRequest(`query vector has ${q.vector.length} dimensions, ${view.name === '' ? '' : `vector "${view.name}" of `}collection "${c.name}" expects ${view.size}`);
  }
  for (let i = 0; i < q.vector.length; i++) {
    if (!Number.isFinite(q.vector[i])) throw badRequest(`query vector element ${i} is not a finite number`);
  }
  const k = q.offset + q.limit;
  const quantization = q.quantization ?? DEFAULT_QUANTIZATION;
  const approx = quantization.ignore ? null : view.quantized;
  const wide = approx ? Math.max(k, Math.ceil(k * quantization.oversampling), quantization.rescore ? approx.rescoreCount(k, q.ef) : 0) : k;
  const filter = q.filter;
  let scan = false;
  if (filter) {
    const candidates = candidateSlots(filter, c);
    const few = candidates !== null && candidates.size <= SCAN_MATCHES;
    // A filter whose matches are kept as bits knows their count; others are sampled.
    const kept = few ? null : filterBitsets(c).matchCount(filter);
    const selectivity = few ? 0 : kept !== null ? kept / Math.max(1, c.store.liveCount) : estimateSelectivity(c, filter);
    scan = few || selectivity * c.store.liveCount <= SCAN_MATCHES || selectivity <= SCAN_SELECTIVITY;
  }
  const admit = filter ? (slot: number) => matchesFilter(filter, c, slot) : null;
  return { view, distance: view.distance, k, wide, ef: Math.max(q.ef, wide), approx, rescore: approx !== null && quantization.rescore, admit, scan };
}

/** Whether a score passes the query's threshold (none: every score does). */
export function passesThreshold(score: number, threshold: number | null, exclusive = false): boolean {
  return threshold === null || (exclusive ? score > threshold : score >= threshold);
}

/** The hits after offset, best first, down to the score threshold. */
function scored(c: Collection, q: VectorQuery, distance: Distance, keys: Float64Array, slots: Int32Array, count: number): ScoredSlot[] {
  const out: ScoredSlot[] = [];
  for (let i = q.offset; i < count; i++) {
    const score = scoreOf(distance, keys[i]!);
    if (!passesThreshold(score, q.scoreThreshold, q.thresholdExclusive)) break;
    out.push({ slot: slots[i]!, id: c.store.idOf(slots[i]!), score });
  }
  return out;
}

function sparseHits(c: Collection, q: VectorQuery & { sparse: SparseVector }): ScoredSlot[] {
  const hits = sparseSearch(c, sparseField(c, q.using, q.sparse), q.sparse, q.filter);
  const kept = hits.filter((h) => passesThreshold(h.score, q.scoreThreshold, q.thresholdExclusive));
  return kept.slice(q.offset, q.offset + q.limit).map((h) => ({ ...h, id: c.store.idOf(h.slot) }));
}

/**
 * Exact top-k semantics over the HNSW index: best first, ties by smaller id. A filter is
 * answered by scanning its matches when they are few or rare (so recall holds), otherwise by
 * a filter-aware graph walk. Points not yet indexed are always scanned exactly.
 */
export function searchCollection(c: Collection, q: VectorQuery): ScoredSlot[] {
  if (q.sparse) return sparseHits(c, { ...q, sparse: q.sparse });
  return searchPlanned(c, q, planDense(c, q));
}

/** searchCollection of a dense query once planned. */
function searchPlanned(c: Collection, q: VectorQuery, plan: DensePlan): ScoredSlot[] {
  const { view, k, wide, admit } = plan;
  const { heap, keys, slots, query } = scratchFor(wide, view.size);
  view.prepare(q.vector, query);
  const offer = offerTo(c, view, heap, k);
  view.setQuery(query);
  if (plan.scan) forEachMatchingSlot(c, q.filter!, offer);
  else {
    const n = view.search(query, wide, plan.ef, admit, keys, slots, plan.approx);
    if (plan.rescore) view.toQueryAll(slots, n, keys);
    for (let i = 0; i < n; i++) heap.offer(keys[i]!, slots[i]!, k);
    // Vectors being linked on other threads are scanned too, and the walk may have met them.
    const walked = lazySet(slots, n);
    view.forEachPending((slot) => {
      if ((!admit || admit(slot)) && !walked(slot)) offer(slot);
    });
  }
  return scored(c, q, plan.distance, keys, slots, heap.drainAscending(keys, slots));
}

/**
 * searchCollection, with the graph walk on a search worker when one is installed and can take
 * it (a walk of a store in shared memory, on its float vectors or on its quantized codes with
 * rescoring); otherwise the same search in place. A filtered walk goes there once the filter's
 * matches are kept as bits the worker reads (query/filter/filter-bitsets.ts: from the second
 * time a filter is searched; the unnamed vector's graph, whose slots are the collection's). The
 * vectors pending at the call are taken then and scanned when the walk returns, and the walk's
 * slots are scored again against the vectors as they are then and the filter read again (a slot
 * the walk found may have been deleted meanwhile, or freed and reused), so a write acknowledged
 * before the call is always seen and every hit is a live, matching point with its true score;
 * when that leaves fewer hits than asked for, the search runs again in place.
 */
export async function searchCollectionPooled(c: Collection, q: VectorQuery): Promise<ScoredSlot[]> {
  const walker = graphWalker();
  if (!walker || q.sparse) return searchCollection(c, q);
  const plan = planDense(c, q);
  // Unrescored codes' scores would have to come back from the walk: such searches stay here.
  if (plan.approx && !plan.rescore) return searchPlanned(c, q, plan);
  const { view, k, admit } = plan;
  // A filter answered by a scan, on a named vector (its graph has slots of its own), or whose matches are not kept yet, is searched here.
  const allow = q.filter && !plan.scan && view.name === '' ? filterBitsets(c).bitsFor(q.filter) : null;
  if (q.filter && !allow) return searchPlanned(c, q, plan);
  const prepared = view.prepare(q.vector);
  const walking = walker.walk(view.graph, prepared, plan.wide, plan.ef, view.quantized, plan.approx !== null, allow);
  if (!walking) return searchPlanned(c, q, plan);
  const pending = view.capturePending();
  const found = await walking;
  const { heap, keys, slots } = scratchFor(plan.wide, view.size);
  const offer = offerTo(c, view, heap, k);
  view.setQuery(prepared);
  let gone = 0;
  let kept = 0;
  for (let i = 0; i < found.length; i++) {
    const slot = view.fromGraphSlot(found[i]!);
    if (slot >= 0 && c.store.state[slot] === LIVE && (!admit || admit(slot))) slots[kept++] = slot;
    else gone++;
  }
  view.toQueryAll(slots, kept, keys);
  for (let i = 0; i < kept; i++) if (!Number.isNaN(keys[i])) heap.offer(keys[i]!, slots[i]!, k);
  // A vector pending at the call may have been linked, and found, while the walk ran.
  const walked = lazySet(found, found.length, view.fromGraphSlot);
  pending((slot) => {
    if (!walked(slot) && (!admit || admit(slot))) offer(slot);
  });
  // Hits deleted, or no longer matching, while the walk ran left fewer than asked for: walk again here.
  if (gone > 0 && heap.size < k) return searchPlanned(c, q, plan);
  return scored(c, q, plan.distance, keys, slots, heap.drainAscending(keys, slots));
}

/** Whether a slot is among the first `n` of `slots` (as `as` maps them), with the set made at the first question. */
function lazySet(slots: Int32Array, n: number, as: (slot: number) => number = (slot) => slot): (slot: number) => boolean {
  let set: Set<number> | null = null;
  return (slot) => (set ??= new Set(Array.from(slots.subarray(0, n), as))).has(slot);
}

/** Offers a slot to the heap by its distance to the query set on the view (no vector: left out). */
function offerTo(c: Collection, view: DenseView, heap: ResultHeap, k: number): (slot: number) => void {
  const { store } = c;
  heap.ids = store.ids;
  heap.idOrder = store.uuidWords ? (a, b) => store.compareSlots(a, b) : null;
  return (slot) => {
    const d = view.toQuery(slot);
    if (!Number.isNaN(d)) heap.offer(d, slot, k);
  };
}
