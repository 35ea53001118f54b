import type { Collection } from '../../storage/collection.js';
import { badRequest } from '../../storage/errors.js';
import type { Distance } from '../../storage/events/types.js';
import type { QueryPlan } from '../search/universal/plan.js';
import type { VectorQuery } from '../search/vector-search.js';

/**
 * Scores as Qdrant's port shows them. The engine's scores are higher-is-better everywhere (for
 * Euclid and Manhattan: minus the distance, DECISIONS.md's score, which port 6333 shows). Qdrant
 * shows a nearest search on Euclid or Manhattan as the distance itself, best (smallest) first, and
 * reads its score_threshold as an upper bound on that distance. Qdrant's vector queries (nearest,
 * recommend, discover) keep scores strictly past the threshold; its fusions and formulas keep scores at or above it.
 */

/** The distance of a dense vector ("": the unnamed one); null for a sparse or unknown name. */
function metricOf(c: Collection, using: string): Distance | null {
  if (using === '') return c.hasUnnamed ? c.config.distance : null;
  return c.named.get(using)?.config.distance ?? null;
}

/** Whether Qdrant scores a dense vector by a distance (smaller is better): Euclid and Manhattan. */
function byDistance(c: Collection, using: string): boolean {
  const metric = metricOf(c, using);
  return metric === 'Euclid' || metric === 'Manhattan';
}

/** Whether a plan's own hits score by a distance: a dense nearest or an average-vector recommend on Euclid or Manhattan. */
function distanceScored(c: Collection, plan: QueryPlan): boolean {
  const q = plan.query;
  if (q.kind === 'nearest') return !('sparse' in q.target) && byDistance(c, plan.using);
  if (q.kind === 'recommend') return q.strategy === 'average_vector' && byDistance(c, plan.using);
  return false;
}

/** Whether the hits a plan answers with are minus a distance: its own, or (no query) those of all its prefetches. */
function answersDistances(c: Collection, plan: QueryPlan): boolean {
  if (plan.query.kind === 'none') return plan.prefetch.length > 0 && plan.prefetch.every((p) => answersDistances(c, p));
  return distanceScored(c, plan);
}

/** A plan (and its prefetches) with Qdrant's score_threshold read the engine's way; refused, as Qdrant does, without a query or with order_by. */
export function qdrantPlan(c: Collection, plan: QueryPlan): QueryPlan {
  const q = plan.query;
  const vectorQuery = q.kind === 'nearest' || q.kind === 'recommend' || q.kind === 'discover';
  const threshold = plan.scoreThreshold;
  if (threshold !== null && q.kind === 'none') throw badRequest("A query is needed to use the score_threshold. Can't have score_threshold without defining a query.");
  if (threshold !== null && q.kind === 'order_by') throw badRequest("Can't use score_threshold with an order_by query.");
  // A formula reads each prefetch's scores as this port shows them: a Euclid or Manhattan distance as itself.
  const query = q.kind === 'formula' ? { ...q, distances: plan.prefetch.map((p) => answersDistances(c, p)) } : q;
  return {
    ...plan,
    query,
    prefetch: plan.prefetch.map((p) => qdrantPlan(c, p)),
    scoreThreshold: threshold !== null && distanceScored(c, plan) ? -threshold : threshold,
    thresholdExclusive: vectorQuery,
  };
}

/** A search (/points/search) with Qdrant's score_threshold read the engine's way. */
export function qdrantSearch<Q extends VectorQuery>(c: Collection, q: Q): Q {
  const distance = !q.sparse && byDistance(c, q.using ?? '');
  return { ...q, scoreThreshold: distance && q.scoreThreshold !== null ? -q.scoreThreshold : q.scoreThreshold, thresholdExclusive: true };
}

/** How Qdrant's port shows a score of a plan's hits. */
export function qdrantPlanScore(c: Collection, plan: QueryPlan): (score: number) => number {
  return answersDistances(c, plan) ? negate : same;
}

/** How Qdrant's port shows a score of a search's hits. */
export function qdrantSearchScore(c: Collection, q: VectorQuery): (score: number) => number {
  return !q.sparse && byDistance(c, q.using ?? '') ? negate : same;
}

/** How Qdrant's port shows a score between two stored dense vectors (the distance matrix). */
export function qdrantDenseScore(c: Collection, using: string): (score: number) => number {
  return byDistance(c, using) ? negate : same;
}

const negate = (score: number): number => (score === 0 ? 0 : -score);
const same = (score: number): number => score;
