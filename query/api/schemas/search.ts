import * as z from 'zod';
import { filter } from './filter.js';
import { finiteNumber, intIn, sparseVector, vector, withPayload, withVector } from './fields.js';
import { MAX_LIMIT } from './points.js';
import { quantizationParams } from './quantization.js';

export const MAX_EF = 10_000;
export const MAX_BATCH = 1_000;

const ef = () => intIn(1, MAX_EF).nullish();

/** Qdrant's search vector: a vector (the unnamed one), or {name, vector} naming a dense or sparse vector. */
export const searchVector = () =>
  z
    .union([vector(), z.strictObject({ name: z.string(), vector: z.union([vector(), sparseVector]) })])
    .meta({ description: 'the query vector: a non-empty array of numbers, or {name, vector} (a dense vector, or a sparse {indices, values})' });

const searchFields = {
  limit: intIn(1, MAX_LIMIT).nullish(),
  offset: intIn(0, MAX_LIMIT).nullish(),
  ef: ef(),
  params: z
    .strictObject({ hnsw_ef: ef(), ef: ef(), quantization: quantizationParams.nullish() })
    .nullish()
    .meta({ description: 'an object {hnsw_ef, quantization} (hnsw_ef is Qdrant\'s name for ef)' }),
  filter: filter.nullish(),
  score_threshold: finiteNumber().nullish(),
  with_payload: withPayload.nullish(),
  with_vector: withVector.nullish(),
};

/** Qdrant's search, and each entry of a batch search. */
export const searchBody = z
  .strictObject({ vector: searchVector(), ...searchFields })
  .meta({ id: 'SearchBody', description: 'an object {vector, limit, filter, params, with_payload, with_vector}' });

export const batchSearchBody = z
  .strictObject({ searches: z.array(searchBody).max(MAX_BATCH).meta({ description: `an array of at most ${MAX_BATCH} search requests` }) })
  .meta({ id: 'BatchSearchBody' });
