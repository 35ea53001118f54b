import * as z from 'zod';
import { MAX_TRAVERSE_DEPTH } from '../../graph/traverse.js';
import { finiteNumber, intIn, pointId } from './fields.js';

export const MAX_RELATION_LENGTH = 255;

const relation = () =>
  z
    .string()
    .min(1)
    .max(MAX_RELATION_LENGTH)
    .meta({ description: `a non-empty string of at most ${MAX_RELATION_LENGTH} characters, such as "KNOWS"` });

/** Add Edge: from_id/to_id, or their aliases source_id/target_id. */
export const edgeBody = z
  .strictObject({
    from_id: pointId.optional(),
    source_id: pointId.optional(),
    to_id: pointId.optional(),
    target_id: pointId.optional(),
    relation: relation(),
    weight: finiteNumber().nullish(),
  })
  .meta({ id: 'EdgeBody', description: 'an edge: from_id (or source_id), to_id (or target_id), relation, weight (default 1)' });

export const traverseBody = z
  .strictObject({
    start_id: pointId,
    max_depth: intIn(0, MAX_TRAVERSE_DEPTH),
    relations: z.array(z.string()).nullish().meta({ description: 'an array of relation names, or null for all' }),
  })
  .meta({ id: 'TraverseBody' });

const parameters = () => z.record(z.string(), z.unknown()).meta({ description: 'a JSON object mapping names to values' });

/** Graph query: Cypher text and its parameters, named `parameters` or `params`. */
export const graphQueryBody = z
  .strictObject({
    query: z
      .string()
      .regex(/\S/)
      .meta({ description: 'a Cypher text such as "MATCH (n) RETURN n LIMIT 10"' }),
    parameters: parameters().nullish(),
    params: parameters().nullish(),
  })
  .meta({ id: 'GraphQueryBody' });
