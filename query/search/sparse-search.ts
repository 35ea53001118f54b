import type { Collection } from '../../storage/collection.js';
import { sparseProblem, vectorNamesText } from '../../storage/engine/check-vectors.js';
import { badRequest } from '../../storage/errors.js';
import type { SparseVector } from '../../storage/events/types.js';
import type { SparseVectors } from '../../storage/views/sparse-vectors.js';
import { matchesFilter } from '../filter/evaluate-filter.js';
import type { Filter } from '../filter/types.js';

/** The sparse vector `using` names, checked against the query, or a 400 naming what is wrong. */
export function sparseField(c: Collection, using: string | null | undefined, query: SparseVector): SparseVectors {
  const name = using ?? '';
  const field = c.sparse.get(name);
  if (!field) {
    if (name === '' || c.named.has(name)) throw badRequest(`a sparse query needs using to name a sparse vector of collection "${c.name}" (its vectors: ${vectorNamesText(c.config)})`);
    throw badRequest(`collection "${c.name}" has no vector named "${name}" (its vectors: ${vectorNamesText(c.config)})`);
  }
  const problem = sparseProblem(c.config, c.name, name, query);
  if (problem) throw badRequest(`query: ${problem}`);
  return field;
}

/** A scorer of collection slots against a sparse query (NaN: the point has no such vector). */
export function sparseScorer(c: Collection, field: SparseVectors, query: SparseVector): (slot: number) => number {
  const weights = field.queryWeights(query, c.store.liveCount);
  return (slot) => field.scoreOne(query, weights, c.store.idOf(slot)) ?? NaN;
}

/**
 * Every point sharing a dimension with the query that the filter admits, by dot product (the
 * inverted index's exact answer), best first, ties by smaller id.
 */
export function sparseSearch(c: Collection, field: SparseVectors, query: SparseVector, filter: Filter | null): { slot: number; score: number }[] {
  const { store } = c;
  const hits: { slot: number; score: number }[] = [];
  for (const [id, score] of field.scoreAll(query, field.queryWeights(query, store.liveCount))) {
    const slot = store.slotOf(id);
    if (slot >= 0 && (!filter || matchesFilter(filter, c, slot))) hits.push({ slot, score });
  }
  return hits.sort((a, b) => b.score - a.score || store.compareSlots(a.slot, b.slot));
}
