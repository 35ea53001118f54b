import type { PointId } from '../../storage/point-id.js';
import type { Collection } from '../../storage/collection.js';
import { badRequest } from '../../storage/errors.js';
import { ResultHeap } from '../../storage/views/distance-heap.js';
import { scoreOf } from '../../storage/views/distance.js';
import { LIVE } from '../../storage/views/point-store.js';
import { candidateSlots } from '../filter/candidates.js';
import { matchesFilter } from '../filter/evaluate-filter.js';
import type { Filter } from '../filter/types.js';
import { forEachMatchingSlot } from './matching-slots.js';
import { denseView } from './dense-view.js';
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
  /** Qdrant's params.quantization (absent: the defaults). */
  quantization?: QuantizationParams | null;
}

/**
 * How a search of quantized vectors goes: `ignore` walks the graph on the floats; otherwise the
 * walk uses the int8 codes and collects max(ef, limit * oversampling) candidates, which `rescore`
 * (the default) ranks again by their float vectors; without it the codes' distances are the scores.
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

/**
 * Exact top-k semantics over the HNSW index: best first, ties by smaller id. A filter is
 * answered by scanning its matches when they are few or rare (so recall holds), otherwise by
 * a filter-aware graph walk. Points not yet indexed are always scanned exactly.
 */
export function searchCollection(c: Collection, q: VectorQuery): ScoredSlot[] {
  const { store } = c;
  if (q.sparse) {
    const hits = sparseSearch(c, sparseField(c, q.using, q.sparse), q.sparse, q.filter);
    const kept = q.scoreThreshold === null ? hits : hits.filter((h) => h.score >= q.scoreThreshold!);
    return kept.slice(q.offset, q.offset + q.limit).map((h) => ({ ...h, id: store.idOf(h.slot) }));
  }
  const view = denseView(c, q.using);
  const config = { size: view.size, distance: view.distance };
  if (q.vector.length !== config.size) {
    throw badRequest(`query vector has ${q.vector.length} dimensions, ${view.name === '' ? '' : `vector "${view.name}" of `}collection "${c.name}" expects ${config.size}`);
  }
  for (let i = 0; i < q.vector.length; i++) {
    if (!Number.isFinite(q.vector[i])) throw badRequest(`query vector element ${i} is not a finite number`);
  }
  const k = q.offset + q.limit;
  const quantization = q.quantization ?? DEFAULT_QUANTIZATION;
  const approx = quantization.ignore ? null : view.quantized;
  const wide = approx ? Math.max(k, Math.ceil(k * quantization.oversampling), quantization.rescore ? q.ef : 0) : k;
  const { heap, keys, slots, query } = scratchFor(wide, config.size);
  view.prepare(q.vector, query);
  heap.ids = store.ids;
  heap.idOrder = store.uuidWords ? (a, b) => store.compareSlots(a, b) : null;
  const offer = (slot: number): void => {
    const d = view.toQuery(slot);
    if (!Number.isNaN(d)) heap.offer(d, slot, k);
  };
  const filter = q.filter;
  const admit = filter ? (slot: number) => matchesFilter(filter, c, slot) : null;

  view.setQuery(query);
  let scanned = false;
  if (filter) {
    const candidates = candidateSlots(filter, c);
    const few = candidates !== null && candidates.size <= SCAN_MATCHES;
    const selectivity = few ? 0 : estimateSelectivity(c, filter);
    if (few || selectivity * store.liveCount <= SCAN_MATCHES || selectivity <= SCAN_SELECTIVITY) {
      forEachMatchingSlot(c, filter, offer);
      scanned = true;
    }
  }
  if (!scanned) {
    const n = view.search(query, wide, Math.max(q.ef, wide), admit, keys, slots, approx);
    const rescore = approx !== null && quantization.rescore;
    for (let i = 0; i < n; i++) heap.offer(rescore ? view.toQuery(slots[i]!) : keys[i]!, slots[i]!, k);
    view.forEachPending((slot) => {
      if (!admit || admit(slot)) offer(slot);
    });
  }

  const count = heap.drainAscending(keys, slots);
  const out: ScoredSlot[] = [];
  for (let i = q.offset; i < count; i++) {
    const score = scoreOf(config.distance, keys[i]!);
    if (q.scoreThreshold !== null && score < q.scoreThreshold) break;
    out.push({ slot: slots[i]!, id: store.idOf(slots[i]!), score });
  }
  return out;
}
