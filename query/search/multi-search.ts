import type { Collection } from '../../storage/collection.js';
import { multiProblem, vectorNamesText } from '../../storage/engine/check-vectors.js';
import { badRequest, notFound } from '../../storage/errors.js';
import type { MultiVectors } from '../../storage/views/multi-vectors.js';
import type { VectorInput } from './universal/plan.js';

/**
 * A nearest query on a multivector: the field `using` names and the query matrix prepared for it
 * (given, or the stored matrix of the point an id names); null when `using` names no multivector
 * and the target is no matrix (a dense or sparse search). A matrix sent to a vector that is not a
 * multivector, or a plain vector to one that is, is a 400 naming it.
 */
export function multiTarget(c: Collection, using: string, target: VectorInput): { field: MultiVectors; query: Float32Array } | null {
  const field = c.multi.get(using);
  if (!field && !('multi' in target)) return null;
  const which = using === '' ? 'the unnamed vector' : `vector "${using}"`;
  if (!field) throw badRequest(`query is a multivector (array of vectors), but ${which} of collection "${c.name}" is not one (its vectors: ${vectorNamesText(c.config)})`);
  if ('vector' in target || 'sparse' in target) throw badRequest(`${which} of collection "${c.name}" is a multivector: query it with an array of vectors of ${field.config.size} numbers ([[...], [...]]) or a point id`);
  if ('multi' in target) {
    const problem = multiProblem(c.config, c.name, using, target.multi);
    if (problem) throw badRequest(`query: ${problem}`);
    return { field, query: field.prepare(target.multi) };
  }
  if (c.store.slotOf(target.id) < 0) throw notFound(`point ${target.id} not found in collection "${c.name}"`);
  const stored = field.get(target.id);
  if (!stored) throw badRequest(using === '' ? `point ${target.id} has no vector to search with` : `point ${target.id} has no vector "${using}" to search with`);
  return { field, query: field.prepare(stored) };
}

/** MaxSim of collection slots against a prepared query matrix (NaN: the point has no such multivector): an exact scan, no graph. */
export function multiScorer(c: Collection, field: MultiVectors, query: Float32Array): (slot: number) => number {
  return (slot) => field.maxSim(query, c.store.idOf(slot)) ?? NaN;
}
