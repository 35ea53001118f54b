import * as z from 'zod';
import { filter } from './filter.js';
import { finiteNumber, intIn, pointId, vector, withPayload, withVector } from './fields.js';
import { MAX_LIMIT } from './points.js';
import { MAX_BATCH, MAX_EF, searchVector } from './search.js';
import { quantizationParams } from './quantization.js';
import { lookupFrom } from './universal-query.js';

const example = z.union([pointId, vector()]).meta({ description: 'a point id or a vector' });
const common = {
  filter: filter.nullish(),
  params: z.strictObject({ hnsw_ef: intIn(1, MAX_EF).nullish(), exact: z.boolean().nullish(), quantization: quantizationParams.nullish() }).nullish(),
  limit: intIn(1, MAX_LIMIT).nullish(),
  offset: intIn(0, MAX_LIMIT).nullish(),
  score_threshold: finiteNumber().nullish(),
  with_payload: withPayload.nullish(),
  with_vector: withVector.nullish(),
  using: z.string().nullish().meta({ description: 'the name of the vector to recommend by ("" or absent: the unnamed vector)' }),
  lookup_from: lookupFrom.nullish(),
};

/** Qdrant's recommend: points like the positive examples and unlike the negative ones. */
export const recommendBody = z
  .strictObject({
    positive: z.array(example).nullish(),
    negative: z.array(example).nullish(),
    strategy: z.enum(['average_vector', 'best_score', 'sum_scores']).nullish(),
    ...common,
  })
  .meta({ id: 'RecommendBody' });

export const recommendBatchBody = z.strictObject({ searches: z.array(recommendBody).max(MAX_BATCH) }).meta({ id: 'RecommendBatchBody' });

const groupFields = {
  group_by: z.string().min(1).meta({ description: 'the payload path to group by (a.b, a[].b)' }),
  group_size: intIn(1, MAX_LIMIT).nullish(),
};

/** Named, so that a grouped search given an offset is told why it is refused. */
const noOffset = z.undefined().optional().meta({ description: 'absent (a grouped search takes no offset, as in Qdrant: it answers limit groups of group_size points)' });

/** Qdrant's recommend grouped by a payload key. */
export const recommendGroupsBody = recommendBody.extend({
  ...groupFields,
  offset: noOffset,
  with_lookup: z.null().optional().meta({ description: "absent (with_lookup, reading each group's point from another collection, is not supported)" }),
}).meta({ id: 'RecommendGroupsBody' });

const contextPair = z.strictObject({ positive: example, negative: example }).meta({ description: 'an object {positive, negative}: point ids or vectors' });

/** Qdrant's discovery search: near the target, on the positive side of each context pair (no target: context search). */
export const discoverBody = z
  .strictObject({ target: example.nullish(), context: z.array(contextPair).nullish(), ...common })
  .meta({ id: 'DiscoverBody' });

export const discoverBatchBody = z.strictObject({ searches: z.array(discoverBody).max(MAX_BATCH) }).meta({ id: 'DiscoverBatchBody' });

export const MAX_MATRIX_SAMPLE = 1_000;

/** Qdrant's distance matrix: a sample of the points, each with its nearest among the sample. */
export const searchMatrixBody = z
  .strictObject({ filter: filter.nullish(), sample: intIn(1, MAX_MATRIX_SAMPLE).nullish().meta({ description: `how many points to sample, at most ${MAX_MATRIX_SAMPLE} (each is compared with every other)` }), limit: intIn(1, MAX_LIMIT).nullish(), using: common.using })
  .meta({ id: 'SearchMatrixBody' });

/** Qdrant's search grouped by a payload key. */
export const searchGroupsBody = z
  .strictObject({ vector: searchVector(), ...groupFields, ...common, offset: noOffset, lookup_from: z.null().optional().meta({ description: 'absent or null (a search by a vector reads no points by id)' }) })
  .meta({ id: 'SearchGroupsBody' });

/** Counts of points per value of a payload key. */
export const facetBody = z
  .strictObject({ key: z.string().min(1), filter: filter.nullish(), limit: intIn(1, MAX_LIMIT).nullish(), exact: z.boolean().nullish() })
  .meta({ id: 'FacetBody' });
