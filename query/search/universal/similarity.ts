import type { Collection } from '../../../storage/collection.js';
import { badRequest, notFound } from '../../../storage/errors.js';
import { vectorNamesText } from '../../../storage/engine/check-vectors.js';
import { scoreOf } from '../../../storage/views/distance.js';
import type { DenseView } from '../dense-view.js';
import type { VectorInput } from './plan.js';

/** The query vector an input names: given, or the stored vector of a point (as stored: unit length for Cosine). */
export function vectorOf(c: Collection, view: DenseView, input: VectorInput): Float32Array {
  const which = view.name === '' ? '' : `vector "${view.name}" of `;
  if ('sparse' in input) throw badRequest(`a sparse vector cannot query the dense ${which === '' ? 'vector of ' : which}collection "${c.name}"`);
  if ('multi' in input) throw badRequest(`a multivector (array of vectors) cannot query the dense ${which === '' ? 'vector of ' : which}collection "${c.name}": send one vector, or name a multivector with using (its vectors: ${vectorNamesText(c.config)})`);
  if ('vector' in input) {
    if (input.vector.length !== view.size) throw badRequest(`query vector has ${input.vector.length} dimensions, ${which}collection "${c.name}" expects ${view.size}`);
    return view.prepare(input.vector);
  }
  const slot = c.store.slotOf(input.id);
  if (slot < 0) throw notFound(`point ${input.id} not found in collection "${c.name}"`);
  const stored = view.stored(slot);
  if (!stored) throw badRequest(view.name === '' ? `point ${input.id} has no vector to search with` : `point ${input.id} has no vector "${view.name}" to search with`);
  return Float32Array.from(stored);
}

/** Scores of slots against one prepared vector (higher is closer), as searches score them; NaN for a point without the vector. */
export function scorerFor(view: DenseView, prepared: Float32Array): (slot: number) => number {
  return (slot) => {
    view.setQuery(prepared);
    return scoreOf(view.distance, view.toQuery(slot));
  };
}

/**
 * Qdrant's raw similarity of slots to one prepared vector, which its recommend strategies
 * best_score and sum_scores combine: the score for Cosine, Dot and Manhattan (minus the L1
 * distance), minus the squared distance for Euclid (internal distances are squared there); NaN
 * for a point without the vector.
 */
export function similarityScorerFor(view: DenseView, prepared: Float32Array): (slot: number) => number {
  if (view.distance !== 'Euclid') return scorerFor(view, prepared);
  return (slot) => {
    view.setQuery(prepared);
    return -view.toQuery(slot);
  };
}

/** The score of slot b as seen from slot a. */
export function slotSimilarity(view: DenseView, a: number, b: number): number {
  return scoreOf(view.distance, view.between(a, b));
}
