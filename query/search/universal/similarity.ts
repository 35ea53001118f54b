import type { Collection } from '../../../storage/collection.js';
import { badRequest, notFound } from '../../../storage/errors.js';
import { scoreOf } from '../../../storage/views/distance.js';
import type { VectorInput } from './plan.js';

/** The query vector an input names: given, or the stored vector of a point (as stored: unit length for Cosine). */
export function vectorOf(c: Collection, input: VectorInput): Float32Array {
  if ('vector' in input) {
    if (input.vector.length !== c.config.size) throw badRequest(`query vector has ${input.vector.length} dimensions, collection "${c.name}" expects ${c.config.size}`);
    return c.prepareQuery(input.vector);
  }
  const slot = c.store.slotOf(input.id);
  if (slot < 0) throw notFound(`point ${input.id} not found in collection "${c.name}"`);
  if (!c.store.hasVector[slot]) throw badRequest(`point ${input.id} has no vector to search with`);
  return Float32Array.from(c.store.vectorOf(slot));
}

/** Scores of slots against one prepared vector (higher is closer), as searches score them. */
export function scorerFor(c: Collection, prepared: Float32Array): (slot: number) => number {
  const { space, config } = c;
  return (slot) => {
    space.setQuery(prepared);
    return scoreOf(config.distance, space.toQuery(slot));
  };
}

/** The score of slot b as seen from slot a. */
export function slotSimilarity(c: Collection, a: number, b: number): number {
  return scoreOf(c.config.distance, c.space.between(a, b));
}
