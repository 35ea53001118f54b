import type { Collection } from '../../../storage/collection.js';
import { badRequest, notFound } from '../../../storage/errors.js';
import { canonicalUuid, type PointId } from '../../../storage/point-id.js';
import type { Filter } from '../../filter/types.js';
import { denseView } from '../dense-view.js';
import type { ContextPair, QueryKind, QueryPlan, VectorInput } from './plan.js';

/**
 * Qdrant's lookup_from: the point ids a query gives as examples (nearest, recommend, discover,
 * context; each prefetch has its own) are read from another collection, or another vector of
 * this one. Resolved before the plan runs, on the thread that holds the collections: each id
 * becomes the vector read from there, so the search itself (on a worker or not) only ever sees
 * vectors. As in Qdrant, ids read from another collection are not left out of the results, and
 * ids read from this one are; a lookup with no id in its query reads nothing (nor checks the name).
 */

type Named = (name: string) => Collection | undefined;

function inputs(q: QueryKind): VectorInput[] {
  switch (q.kind) {
    case 'nearest':
      return [q.target];
    case 'recommend':
      return [...q.positive, ...q.negative];
    case 'discover':
      return [...(q.target ? [q.target] : []), ...q.context.flatMap((p) => [p.positive, p.negative])];
    default:
      return [];
  }
}

function mapInputs(q: QueryKind, f: (v: VectorInput) => VectorInput): QueryKind {
  const pair = (p: ContextPair): ContextPair => ({ positive: f(p.positive), negative: f(p.negative) });
  switch (q.kind) {
    case 'nearest':
      return { ...q, target: f(q.target) };
    case 'recommend':
      return { ...q, positive: q.positive.map(f), negative: q.negative.map(f) };
    case 'discover':
      return { ...q, target: q.target && f(q.target), context: q.context.map(pair) };
    default:
      return q;
  }
}

/** The size of the dense vector a collection's query ranks by, or null (sparse, or no such vector: the search says so). */
function denseSize(c: Collection, using: string): number | null {
  if (using === '') return c.hasUnnamed ? c.config.size : null;
  return c.named.get(using)?.config.size ?? null;
}

/** The vector of point `id` in `from` (Qdrant's messages when the point or its vector is missing, or its size differs). */
function readVector(from: Collection, name: string, id: PointId, expectedSize: number | null): VectorInput {
  const slot = from.store.slotOf(id);
  if (slot < 0) throw notFound(`No point with id ${id} found`);
  const missing = () => notFound(`Vector with name ${JSON.stringify(name)} for point not found`);
  const sparse = from.sparse.get(name);
  if (sparse) {
    const stored = sparse.get(id);
    if (!stored) throw missing();
    return { sparse: stored };
  }
  const multi = from.multi.get(name);
  if (multi) {
    const stored = multi.get(id);
    if (!stored) throw missing();
    return { multi: stored };
  }
  const stored = denseView(from, name).stored(slot);
  if (!stored) throw missing();
  if (expectedSize !== null && stored.length !== expectedSize) throw badRequest(`Vector dimension error: expected dim: ${expectedSize}, got ${stored.length}`);
  return { vector: Float32Array.from(stored) };
}

/** The stage's filter, also leaving out the points whose ids it gave as examples. */
function excluding(filter: Filter | null, ids: PointId[]): Filter {
  const base = filter ?? { must: [], should: [], mustNot: [] };
  const canonical = ids.map((id) => (typeof id === 'string' ? (canonicalUuid(id) ?? id) : id));
  return { ...base, mustNot: [...base.mustNot, { kind: 'has_id', ids: new Set(canonical) }] };
}

/** The plan with every lookup_from read: point ids turned into the vectors they name there. */
export function resolveLookups(plan: QueryPlan, searched: Collection, named: Named): QueryPlan {
  const prefetch = plan.prefetch.map((p) => resolveLookups(p, searched, named));
  const lookup = plan.lookupFrom;
  const ids = inputs(plan.query).flatMap((v) => ('id' in v ? [v.id] : []));
  if (!lookup || ids.length === 0) return { ...plan, prefetch, lookupFrom: null };
  const from = named(lookup.collection);
  if (!from) throw notFound(`Collection ${lookup.collection} not found`);
  const vector = lookup.vector ?? plan.using;
  // This collection's own vector: the ids mean what they mean without lookup_from.
  if (from === searched && vector === plan.using) return { ...plan, prefetch, lookupFrom: null };
  const size = denseSize(searched, plan.using);
  const query = mapInputs(plan.query, (v) => ('id' in v ? readVector(from, vector, v.id, size) : v));
  const filter = from === searched ? excluding(plan.filter, ids) : plan.filter;
  return { ...plan, prefetch, query, filter, lookupFrom: null };
}
