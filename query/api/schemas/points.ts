import * as z from 'zod';
import { filter } from './filter.js';
import { intIn, labels, multiVector, payload, pointId, pointIdList, pointVectors, vector, vectorColumn, withPayload, withVector } from './fields.js';

export const MAX_LIMIT = 10_000;

const POINTS_DESCRIPTION = 'a non-empty array of {id, vector, payload}';

const point = z
  .strictObject({ id: pointId, vector: pointVectors(), payload: payload.nullish(), labels: labels.nullish() })
  .meta({ id: 'PointInput', description: 'an object {id, vector, payload}' });

/** Upsert Points, as a list of points. */
/** Qdrant's conditional update: an existing point is written only when it matches (query/api/point-updates-body.ts). */
const updateFilter = { update_filter: filter.nullish() };

export const upsertPointsBody = z
  .strictObject({ points: z.array(point).min(1).meta({ description: POINTS_DESCRIPTION }), ...updateFilter })
  .meta({ id: 'UpsertPointsBody' });

/** Upsert Points' fields around its list, whose points are checked apart (parseUpsertBodyInSlices). */
export const upsertPointsHead = z.strictObject({ points: z.array(z.unknown()).min(1).meta({ description: POINTS_DESCRIPTION }), ...updateFilter });

/** Upsert Points in Qdrant's columnar form. */
export const upsertBatchBody = z
  .strictObject({
    batch: z
      .strictObject({
        ids: z.array(pointId).min(1).meta({ description: 'a non-empty array of point ids' }),
        vectors: z
          .union([z.array(z.union([vector(), multiVector()])), z.record(z.string(), vectorColumn())])
          .meta({ description: 'an array of vectors, one per id, or an object from vector names to such arrays' }),
        payloads: z.array(payload.nullable()).nullish().meta({ description: 'an array of payloads (objects or null), one per id' }),
      })
      .meta({ description: 'an object {ids, vectors, payloads}' }),
    ...updateFilter,
  })
  .meta({ id: 'UpsertBatchBody' });

export const upsertBody = z.union([upsertPointsBody, upsertBatchBody]).meta({ id: 'UpsertBody' });

const output = { with_payload: withPayload.nullish(), with_vector: withVector.nullish() };

/** Get Points by ids. */
export const retrieveBody = z.strictObject({ ids: pointIdList(), ...output }).meta({ id: 'RetrieveBody' });

/** Delete Points, by ids or by filter. */
export const deleteBody = z.strictObject({ points: pointIdList().nullish(), filter: filter.nullish() }).meta({ id: 'DeleteBody' });

/** Scroll. */
export const scrollBody = z
  .strictObject({
    limit: intIn(1, MAX_LIMIT).nullish(),
    offset: pointId.nullish().meta({ description: 'the smallest point id to return (integers sort before UUIDs)' }),
    order_by: z
      .union([z.string().min(1), z.strictObject({ key: z.string().min(1), direction: z.enum(['asc', 'desc']).nullish(), start_from: z.union([z.number(), z.string()]).nullish() })])
      .nullish()
      .meta({ description: 'a payload key, or {key, direction, start_from}: points in the order of that value (numbers or date-times); no next page offset' }),
    filter: filter.nullish(),
    ...output,
  })
  .meta({ id: 'ScrollBody' });

/** Count; counts are always exact, so Qdrant's `exact` changes nothing. */
export const countBody = z.strictObject({ filter: filter.nullish(), exact: z.boolean().nullish() }).meta({ id: 'CountBody' });
