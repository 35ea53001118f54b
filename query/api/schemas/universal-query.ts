import * as z from 'zod';
import { filter } from './filter.js';
import { explainedBy, explainerOf, quote } from './explainers.js';
import { finiteNumber, intIn, multiVector, pointId, sparseVector, vector, withPayload, withVector } from './fields.js';
import { MAX_LIMIT } from './points.js';
import { MAX_BATCH, MAX_EF } from './search.js';
import { quantizationParams } from './quantization.js';

/**
 * Qdrant's universal query (POST /points/query), the subset we answer; every other field or
 * query form is refused by name.
 */

const vectorSchema = vector();
const matrixSchema = multiVector();
const vectorInput = explainedBy(z.union([pointId, vectorSchema, sparseVector, matrixSchema]).meta({ description: 'a vector (array of numbers), a sparse vector {indices, values}, a multivector (array of vectors), or the id of a point whose vector to use' }), (where, value) =>
  Array.isArray(value) || ArrayBuffer.isView(value)
    ? (explainerOf(matrixSchema)?.(where, value) ?? explainerOf(vectorSchema)?.(where, value) ?? `${where} must be a vector (array of numbers) or the id of a point, got ${quote(value)}: a vector needs at least one number`)
    : typeof value === 'string' || typeof value === 'number'
      ? explainerOf(pointId)?.(where, value)
      : undefined,
);
const QUERY_FORMS = ['nearest', 'recommend', 'discover', 'context', 'fusion', 'rrf', 'formula', 'order_by', 'sample'];

const mmr = z
  .strictObject({
    diversity: z.number().min(0).max(1).nullish().meta({ description: 'a number from 0 (relevance only) to 1 (diversity only); default 0.5' }),
    candidates_limit: intIn(1, MAX_LIMIT).nullish(),
  })
  .meta({ description: 'an object {diversity, candidates_limit}' });

const recommend = z
  .strictObject({
    positive: z.array(vectorInput).nullish(),
    negative: z.array(vectorInput).nullish(),
    strategy: z.enum(['average_vector', 'best_score', 'sum_scores']).nullish(),
  })
  .meta({ description: 'an object {positive, negative, strategy}' });

const contextPair = z.strictObject({ positive: vectorInput, negative: vectorInput }).meta({ description: 'an object {positive, negative}' });
const context = z.union([contextPair, z.array(contextPair)]).meta({ description: 'a context pair {positive, negative} or a list of them' });

const discover = z.strictObject({ target: vectorInput, context: context.nullish() }).meta({ description: 'an object {target, context}' });

const orderBy = z
  .union([
    z.string().min(1),
    z.strictObject({
      key: z.string().min(1),
      direction: z.enum(['asc', 'desc']).nullish(),
      start_from: z.union([finiteNumber(), z.string()]).nullish(),
    }),
  ])
  .meta({ description: 'a payload key, or {key, direction, start_from}' });

export const queryForm = explainedBy(
  z
  .union([
    vectorInput,
    z.strictObject({ nearest: vectorInput, mmr: mmr.nullish() }),
    z.strictObject({ recommend }),
    z.strictObject({ discover }),
    z.strictObject({ context: context.nullable() }),
    z.strictObject({ fusion: z.enum(['rrf', 'dbsf']) }),
    z.strictObject({
      rrf: z.strictObject({
        k: intIn(1, 1_000_000).nullish(),
        weights: z.array(finiteNumber()).nullish().meta({ description: 'one number per prefetch: how much its ranking counts (default 1; 0 or less: not at all)' }),
      }),
    }),
    z.strictObject({
      formula: z.unknown().meta({ description: 'an expression: a number, a variable ("$score", "$score[i]" or a payload key), a filter condition (1 when it matches, else 0), or {mult}, {sum}, {div}, {pow}, {neg}, {abs}, {sqrt}, {exp}, {log10}, {ln}, {geo_distance}, {datetime}, {datetime_key}, {lin_decay}, {exp_decay}, {gauss_decay}' }),
      defaults: z.record(z.string(), z.unknown()).nullish().meta({ description: 'values of variables a point lacks, by variable ("$score[i]" or a payload key)' }),
    }),
    z.strictObject({ order_by: orderBy }),
    z.strictObject({ sample: z.literal('random') }),
  ])
  .meta({
    id: 'QueryForm',
    description: 'a vector, sparse vector {indices, values} or point id (nearest), {nearest, mmr}, {recommend}, {discover: {target, context}}, {context}, {fusion: "rrf"|"dbsf"}, {rrf: {k, weights}}, {formula, defaults}, {order_by} or {sample: "random"}',
  }),
  (where, value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) return undefined;
    const other = Object.keys(value).find((k) => !QUERY_FORMS.includes(k) && !['mmr', 'indices', 'values', 'defaults'].includes(k));
    return other === undefined ? undefined : `${where}.${other} is not a query we answer: send a vector or point id, or one of ${QUERY_FORMS.join(', ')}`;
  },
);

const params = z
  .strictObject({ hnsw_ef: intIn(1, MAX_EF).nullish(), ef: intIn(1, MAX_EF).nullish(), exact: z.boolean().nullish(), indexed_only: z.boolean().nullish(), quantization: quantizationParams.nullish() })
  .meta({ description: 'an object {hnsw_ef, exact, indexed_only, quantization}' });

/** Qdrant's lookup_from: where the query's point ids are read (one shard here: no shard_key). */
export const lookupFrom = z
  .strictObject({
    collection: z.string().min(1).meta({ description: 'the collection (or alias) to read the points given by id from' }),
    vector: z.string().nullish().meta({ description: 'the vector to read from them ("" the unnamed one); absent: the one named by using' }),
  })
  .meta({ id: 'LookupFrom', description: 'an object {collection, vector}: read the point ids given as examples from that collection' });

const usingName = z.string().meta({ description: 'the name of the vector to search ("" or absent: the unnamed vector)' });

interface PrefetchShape {
  prefetch?: PrefetchShape | PrefetchShape[] | null;
  query?: z.input<typeof queryForm> | null;
  using?: string | null;
  filter?: unknown;
  params?: z.input<typeof params> | null;
  score_threshold?: number | null;
  limit?: number | null;
  lookup_from?: z.input<typeof lookupFrom> | null;
}

export const prefetch: z.ZodType<PrefetchShape> = z
  .lazy(() =>
    z.strictObject({
      prefetch: z.union([prefetch, z.array(prefetch)]).nullish(),
      query: queryForm.nullish(),
      using: usingName.nullish(),
      filter: filter.nullish(),
      params: params.nullish(),
      score_threshold: finiteNumber().nullish(),
      limit: intIn(1, MAX_LIMIT).nullish(),
      lookup_from: lookupFrom.nullish(),
    }),
  )
  .meta({ id: 'Prefetch', description: 'a query whose results the outer query ranks: {prefetch, query, using, filter, params, score_threshold, limit, lookup_from}' });

const queryFields = {
  prefetch: z.union([prefetch, z.array(prefetch)]).nullish().meta({ description: 'a prefetch query or a list of them: their results are what the query ranks' }),
  query: queryForm.nullish(),
  using: usingName.nullish(),
  filter: filter.nullish(),
  params: params.nullish(),
  score_threshold: finiteNumber().nullish(),
  limit: intIn(1, MAX_LIMIT).nullish(),
  offset: intIn(0, MAX_LIMIT).nullish(),
  ef: intIn(1, MAX_EF).nullish(),
  with_payload: withPayload.nullish(),
  with_vector: withVector.nullish(),
  lookup_from: lookupFrom.nullish(),
};

export const universalQueryBody = z.strictObject(queryFields).meta({ id: 'QueryBody', description: "Qdrant's query: {prefetch, query, using, filter, params, score_threshold, limit, offset, with_payload, with_vector, lookup_from}" });

export const universalBatchBody = z
  .strictObject({ searches: z.array(universalQueryBody).max(MAX_BATCH).meta({ description: `an array of at most ${MAX_BATCH} queries` }) })
  .meta({ id: 'QueryBatchBody' });

export const universalGroupsBody = z
  .strictObject({
    ...queryFields,
    group_by: z.string().min(1).meta({ description: 'the payload path to group by (a.b, a[].b)' }),
    group_size: intIn(1, MAX_LIMIT).nullish(),
    with_lookup: z.null().optional().meta({ description: "absent (with_lookup, reading each group's point from another collection, is not supported)" }),
  })
  .meta({ id: 'QueryGroupsBody' });
