import type { Collection } from '../../../storage/collection.js';
import { badRequest, notFound } from '../../../storage/errors.js';
import type { SparseVector } from '../../../storage/events/types.js';
import { denseView, type DenseView } from '../dense-view.js';
import { sparseField, sparseScorer, sparseSearch } from '../sparse-search.js';
import { multiScorer, multiTarget } from '../multi-search.js';
import { LIVE } from '../../../storage/views/point-store.js';
import { matchesFilter } from '../../filter/evaluate-filter.js';
import { forEachMatchingSlot } from '../matching-slots.js';
import { passesThreshold, searchCollectionPooled } from '../vector-search.js';
import type { QueryKind, QueryPlan, VectorInput } from './plan.js';
import { scorerFor, similarityScorerFor, slotSimilarity, vectorOf } from './similarity.js';
import { orderValue } from './order-value.js';
import { formulaScorer } from './formula.js';

/** One result of a query: the point's slot, its score, and for order_by the value it ordered by. */
export interface QueryHit {
  slot: number;
  score: number;
  orderValue?: number;
}

/** Best first; ties by the smaller id (DECISIONS.md), not by where the points happen to be stored. */
const byScore =
  (c: Collection) =>
  (a: QueryHit, b: QueryHit): number =>
    b.score - a.score || c.store.compareSlots(a.slot, b.slot);

/** The candidate slots: the prefetches' results (deduplicated, run side by side), or null for the whole collection. */
async function candidatesOf(c: Collection, plan: QueryPlan): Promise<{ lists: QueryHit[][]; slots: number[] } | null> {
  if (plan.prefetch.length === 0) return null;
  const lists = await Promise.all(plan.prefetch.map((p) => runPlan(c, { ...p, filter: p.filter ?? plan.filter }, true)));
  const slots = [...new Set(lists.flat().map((h) => h.slot))];
  return { lists, slots };
}

function admitted(c: Collection, plan: QueryPlan, slots: number[] | null, visit: (slot: number) => void): void {
  if (slots === null) {
    forEachMatchingSlot(c, plan.filter, visit);
    return;
  }
  for (const slot of slots) if (c.store.state[slot] === LIVE && (!plan.filter || matchesFilter(plan.filter, c, slot))) visit(slot);
}

/** Top hits by a scorer over the admitted slots (exact); a NaN score (a point without the vector) is left out. */
function exactTop(c: Collection, plan: QueryPlan, slots: number[] | null, score: (slot: number) => number, exclude: number): QueryHit[] {
  const hits: QueryHit[] = [];
  admitted(c, plan, slots, (slot) => {
    if (slot === exclude) return;
    const s = score(slot);
    if (!Number.isNaN(s)) hits.push({ slot, score: s });
  });
  return hits.sort(byScore(c));
}

/** The sparse query a target means when it is sparse, or names a point while `using` names a sparse vector; else null. */
function sparseTarget(c: Collection, using: string, target: VectorInput): SparseVector | null {
  if ('sparse' in target) return target.sparse;
  if (!('id' in target) || !c.sparse.has(using)) return null;
  const slot = c.store.slotOf(target.id);
  if (slot < 0) throw notFound(`point ${target.id} not found in collection "${c.name}"`);
  const stored = c.sparse.get(using)!.get(target.id);
  if (!stored) throw badRequest(`point ${target.id} has no vector "${using}" to search with`);
  return stored;
}

async function nearest(c: Collection, plan: QueryPlan, target: VectorInput, slots: number[] | null, want: number): Promise<QueryHit[]> {
  const exclude = 'id' in target ? c.store.slotOf(target.id) : -1;
  const matrix = multiTarget(c, plan.using, target);
  if (matrix) return exactTop(c, plan, slots, multiScorer(c, matrix.field, matrix.query), exclude).slice(0, want);
  const sparse = sparseTarget(c, plan.using, target);
  if (sparse) {
    const field = sparseField(c, plan.using, sparse);
    if (slots !== null) return exactTop(c, plan, slots, sparseScorer(c, field, sparse), exclude).slice(0, want);
    return sparseSearch(c, field, sparse, plan.filter)
      .filter((h) => h.slot !== exclude)
      .slice(0, want);
  }
  const view = denseView(c, plan.using);
  const vector = vectorOf(c, view, target);
  if (slots === null && !plan.exact) {
    const extra = exclude >= 0 ? 1 : 0;
    return (await searchCollectionPooled(c, { vector, using: plan.using, limit: want + extra, offset: 0, ef: Math.max(plan.ef, want + extra), filter: plan.filter, scoreThreshold: null, quantization: plan.quantization }))
      .filter((h) => h.slot !== exclude)
      .slice(0, want)
      .map((h) => ({ slot: h.slot, score: h.score }));
  }
  return exactTop(c, plan, slots, scorerFor(view, vector), exclude).slice(0, want);
}

/** Maximal marginal relevance: greedily the candidate most like the query and least like those chosen. */
function mmr(view: DenseView, candidates: QueryHit[], want: number, diversity: number): QueryHit[] {
  const chosen: QueryHit[] = [];
  const rest = [...candidates];
  while (chosen.length < want && rest.length > 0) {
    let best = -1;
    let bestValue = -Infinity;
    for (let i = 0; i < rest.length; i++) {
      let redundancy = -Infinity;
      for (const s of chosen) redundancy = Math.max(redundancy, slotSimilarity(view, rest[i]!.slot, s.slot));
      const value = (1 - diversity) * rest[i]!.score - diversity * (chosen.length === 0 ? 0 : redundancy);
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    }
    chosen.push(rest.splice(best, 1)[0]!);
  }
  return chosen;
}

async function recommend(c: Collection, plan: QueryPlan, q: Extract<QueryKind, { kind: 'recommend' }>, slots: number[] | null, want: number): Promise<QueryHit[]> {
  if (q.positive.length === 0 && (q.strategy === 'average_vector' || q.negative.length === 0)) throw badRequest('recommend needs at least one positive example');
  const excluded = new Set([...q.positive, ...q.negative].flatMap((e) => ('id' in e ? [c.store.slotOf(e.id)] : [])));
  const view = denseView(c, plan.using);
  const positives = q.positive.map((e) => vectorOf(c, view, e));
  const negatives = q.negative.map((e) => vectorOf(c, view, e));
  const keep = (hits: QueryHit[]) => hits.filter((h) => !excluded.has(h.slot)).slice(0, want);
  if (q.strategy === 'average_vector') {
    // Qdrant's average: the mean of the positives, moved away from the mean of the negatives.
    const target = new Float32Array(view.size);
    const mean = (vs: Float32Array[], out: Float32Array) => vs.forEach((v) => v.forEach((x, i) => (out[i]! += x / vs.length)));
    mean(positives, target);
    if (negatives.length > 0) {
      const neg = new Float32Array(view.size);
      mean(negatives, neg);
      for (let i = 0; i < target.length; i++) target[i] = 2 * target[i]! - neg[i]!;
    }
    return keep(await nearest(c, plan, { vector: target }, slots, want + excluded.size));
  }
  // Qdrant's strategies combine raw similarities (minus the squared distance for Euclid).
  const pos = positives.map((v) => similarityScorerFor(view, v));
  const neg = negatives.map((v) => similarityScorerFor(view, v));
  const score =
    q.strategy === 'sum_scores'
      ? (slot: number) => pos.reduce((s, f) => s + f(slot), 0) - neg.reduce((s, f) => s + f(slot), 0)
      : (slot: number) => {
          const p = pos.reduce((m, f) => Math.max(m, f(slot)), -Infinity);
          const n = neg.reduce((m, f) => Math.max(m, f(slot)), -Infinity);
          // Closer to a positive than to any negative: in (0, 1) by its best positive; else in (-1, 0) by its best negative.
          return p > n ? scaledFastSigmoid(p) : -scaledFastSigmoid(n);
        };
  return keep(exactTop(c, plan, slots, score, -1));
}

/** Qdrant's stand-in for a sigmoid, x / (1 + |x|), in (-1, 1). */
function fastSigmoid(x: number): number {
  return x / (1 + Math.abs(x));
}

/** fastSigmoid scaled to (0, 1). */
function scaledFastSigmoid(x: number): number {
  return 0.5 * (fastSigmoid(x) + 1);
}

/** Qdrant's margin in a context pair's loss: the 32-bit float epsilon. */
const CONTEXT_MARGIN = 2 ** -23;

/**
 * Qdrant's discovery and context search, scored exactly over the admitted points (Qdrant walks its
 * graph with this score; a score that is flat over whole regions, as both are, leads a greedy walk
 * astray, while the exact scan finds every point). Raw similarities as recommend's strategies use.
 * With a target: per pair +1 when nearer its positive, -1 when nearer its negative (0 on a tie),
 * plus the target's similarity squashed into (0, 1). Without: per pair the loss
 * fastSigmoid(min(sim(positive) - sim(negative) - margin, 0)), 0 for a point on the positive side.
 */
function discover(c: Collection, plan: QueryPlan, q: Extract<QueryKind, { kind: 'discover' }>, slots: number[] | null, want: number): QueryHit[] {
  if (q.target === null && q.context.length === 0) throw badRequest('discover needs a target or at least one context pair');
  const examples = [...(q.target ? [q.target] : []), ...q.context.flatMap((p) => [p.positive, p.negative])];
  const excluded = new Set(examples.flatMap((e) => ('id' in e ? [c.store.slotOf(e.id)] : [])));
  const view = denseView(c, plan.using);
  const similarity = (e: VectorInput) => similarityScorerFor(view, vectorOf(c, view, e));
  const pairs = q.context.map((p) => ({ positive: similarity(p.positive), negative: similarity(p.negative) }));
  const target = q.target ? similarity(q.target) : null;
  const score = target
    ? (slot: number) => pairs.reduce((rank, p) => rank + Math.sign(p.positive(slot) - p.negative(slot)), 0) + scaledFastSigmoid(target(slot))
    : (slot: number) => pairs.reduce((loss, p) => loss + fastSigmoid(Math.min(p.positive(slot) - p.negative(slot) - CONTEXT_MARGIN, 0)), 0);
  return exactTop(c, plan, slots, score, -1)
    .filter((h) => !excluded.has(h.slot))
    .slice(0, want);
}

/**
 * Reciprocal rank fusion as Qdrant does it: the sum over the lists of 1 / ((pos + 1) / weight + k - 1),
 * pos from 0 (with weight 1: 1 / (pos + k)); a list of weight 0 or less adds nothing.
 */
function rrf(c: Collection, lists: QueryHit[][], k: number, weights: number[] | null): QueryHit[] {
  const scores = new Map<number, number>();
  lists.forEach((list, l) => {
    const weight = weights?.[l] ?? 1;
    list.forEach((h, pos) => scores.set(h.slot, (scores.get(h.slot) ?? 0) + (weight > 0 ? 1 / ((pos + 1) / weight + k - 1) : 0)));
  });
  return [...scores].map(([slot, score]) => ({ slot, score })).sort(byScore(c));
}

/**
 * Distribution-based score fusion as Qdrant does it: each list's scores mapped linearly so that
 * mean - 3 sd is 0 and mean + 3 sd is 1 (sd: the sample standard deviation, n - 1; not clamped),
 * a list of one point or of equal scores to 0.5, then summed.
 */
function dbsf(c: Collection, lists: QueryHit[][]): QueryHit[] {
  const scores = new Map<number, number>();
  for (const list of lists) {
    if (list.length === 0) continue;
    const mean = list.reduce((s, h) => s + h.score, 0) / list.length;
    const sd = list.length < 2 ? 0 : Math.sqrt(list.reduce((s, h) => s + (h.score - mean) ** 2, 0) / (list.length - 1));
    const lo = mean - 3 * sd;
    const hi = mean + 3 * sd;
    for (const h of list) {
      const normal = hi === lo ? 0.5 : (h.score - lo) / (hi - lo);
      scores.set(h.slot, (scores.get(h.slot) ?? 0) + normal);
    }
  }
  return [...scores].map(([slot, score]) => ({ slot, score })).sort(byScore(c));
}

/** Qdrant's score boosting: every point the prefetches found, scored by the formula (its first error fails the query). */
function formula(c: Collection, plan: QueryPlan, q: Extract<QueryKind, { kind: 'formula' }>, lists: QueryHit[][], slots: number[]): QueryHit[] {
  const scores = lists.map((list, i) => new Map(list.map((h) => [h.slot, q.distances[i] ? -h.score || 0 : h.score])));
  return exactTop(c, plan, slots, formulaScorer(c, q.formula, scores), -1);
}

function orderBy(c: Collection, plan: QueryPlan, q: Extract<QueryKind, { kind: 'order_by' }>, slots: number[] | null): QueryHit[] {
  const hits: QueryHit[] = [];
  const sign = q.direction === 'asc' ? 1 : -1;
  admitted(c, plan, slots, (slot) => {
    const value = orderValue(c.store.payloads[slot], q.key);
    if (value === null) return;
    if (q.startFrom !== null && sign * (value - q.startFrom) < 0) return;
    hits.push({ slot, score: 0, orderValue: value });
  });
  return hits.sort((a, b) => sign * ((a.orderValue as number) - (b.orderValue as number)) || c.store.compareSlots(a.slot, b.slot));
}

function sample(c: Collection, plan: QueryPlan, slots: number[] | null, want: number): QueryHit[] {
  const all: number[] = [];
  admitted(c, plan, slots, (slot) => all.push(slot));
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all.slice(0, want).map((slot) => ({ slot, score: 0 }));
}

/**
 * Runs a plan: the hits best first, after offset, at most limit (a prefetch keeps its own limit).
 * Its graph walks may run on search workers (searchCollectionPooled), so other requests and
 * writes go on between its steps; see queryHits for what keeps its slots meaning the same points.
 */
export async function runPlan(c: Collection, plan: QueryPlan, asPrefetch = false): Promise<QueryHit[]> {
  const want = plan.offset + plan.limit;
  const candidates = await candidatesOf(c, plan);
  const slots = candidates?.slots ?? null;
  const q = plan.query;
  let hits: QueryHit[];
  switch (q.kind) {
    case 'nearest':
      if (q.mmr) {
        const view = denseView(c, plan.using);
        const pool = await nearest(c, plan, q.target, slots, Math.max(q.mmr.candidates, want));
        hits = mmr(view, pool, want, q.mmr.diversity);
      } else hits = await nearest(c, plan, q.target, slots, want);
      break;
    case 'recommend':
      hits = await recommend(c, plan, q, slots, want);
      break;
    case 'discover':
      hits = discover(c, plan, q, slots, want);
      break;
    case 'fusion':
      if (!candidates) throw badRequest('fusion ranks the results of prefetch queries: send prefetch');
      hits = q.method === 'rrf' ? rrf(c, candidates.lists, q.k, q.weights) : dbsf(c, candidates.lists);
      break;
    case 'formula':
      // Qdrant's words: it scores only what prefetches found.
      if (!candidates) throw badRequest('Validation failed: cannot apply Formula without prefetches');
      hits = formula(c, plan, q, candidates.lists, candidates.slots);
      break;
    case 'order_by':
      hits = orderBy(c, plan, q, slots);
      break;
    case 'sample':
      hits = sample(c, plan, slots, want);
      break;
    case 'none':
      // No query: the prefetches' results as they come (first seen first), else points in id order.
      if (candidates) hits = [...new Map(candidates.lists.flat().map((h) => [h.slot, h])).values()];
      else {
        hits = [];
        admitted(c, plan, null, (slot) => hits.push({ slot, score: 0 }));
        hits.sort((a, b) => c.store.compareSlots(a.slot, b.slot));
      }
      break;
  }
  if (plan.scoreThreshold !== null && q.kind !== 'order_by' && q.kind !== 'sample') hits = hits.filter((h) => passesThreshold(h.score, plan.scoreThreshold, plan.thresholdExclusive));
  return asPrefetch ? hits.slice(0, plan.limit) : hits.slice(plan.offset, want);
}

/**
 * A whole query's hits, every one a live point. A plan with prefetches takes several steps with
 * writes between them, so the collection is pinned meanwhile (no slot is freed and reused under
 * it: a slot keeps meaning one point) and points deleted meanwhile are left out at the end.
 */
export async function queryHits(c: Collection, plan: QueryPlan): Promise<QueryHit[]> {
  if (plan.prefetch.length === 0) return runPlan(c, plan);
  c.pin();
  try {
    const hits = await runPlan(c, plan);
    return hits.filter((h) => c.store.state[h.slot] === LIVE);
  } finally {
    c.unpin();
  }
}
