import * as z from 'zod';
import { filter } from './filter.js';
import { payload, pointIdList, pointId, pointVectors } from './fields.js';
import { upsertBatchBody, upsertPointsBody } from './points.js';

/** Qdrant's point updates: payload, vectors, and batches of them. Each names points by id or by filter. */

const selector = {
  points: pointIdList().nullish(),
  filter: filter.nullish(),
};

/** The vector names a body may give ("" is the unnamed vector). */
const vectorNames = z.array(z.string()).min(1).meta({ description: 'a non-empty array of vector names ("" is the unnamed vector)' });

/** A point's new vectors: the unnamed vector, or a map from names to vectors (only those change). */
const newVector = pointVectors();

export const setPayloadBody = z.strictObject({ payload, ...selector, key: z.string().min(1).nullish().meta({ description: 'a JSON path to set the payload at (a.b, a[0].b, a[].b)' }) }).meta({ id: 'SetPayloadBody' });
/** Qdrant takes the set body here, key included, and does not read the key. */
export const overwritePayloadBody = z.strictObject({ payload, ...selector, key: z.string().nullish().meta({ description: 'accepted and not read, as Qdrant does' }) }).meta({ id: 'OverwritePayloadBody' });
export const deletePayloadBody = z.strictObject({ keys: z.array(z.string().min(1)).meta({ description: 'an array of payload keys (JSON paths: a.b, a[0].b, a[].b)' }), ...selector }).meta({ id: 'DeletePayloadBody' });
export const pointsSelectorBody = z.strictObject(selector).meta({ id: 'PointsSelector', description: 'an object {points: [ids]} or {filter}' });
export const updateVectorsBody = z
  .strictObject({ points: z.array(z.strictObject({ id: pointId, vector: newVector })).min(1).meta({ description: 'a non-empty array of {id, vector}' }), update_filter: filter.nullish() })
  .meta({ id: 'UpdateVectorsBody' });
export const deleteVectorsBody = z.strictObject({ ...selector, vector: vectorNames }).meta({ id: 'DeleteVectorsBody' });

const operation = z
  .union([
    z.strictObject({ upsert: z.union([upsertPointsBody, upsertBatchBody]) }),
    z.strictObject({ delete: pointsSelectorBody }),
    z.strictObject({ set_payload: setPayloadBody }),
    z.strictObject({ overwrite_payload: overwritePayloadBody }),
    z.strictObject({ delete_payload: deletePayloadBody }),
    z.strictObject({ clear_payload: pointsSelectorBody }),
    z.strictObject({ update_vectors: updateVectorsBody }),
    z.strictObject({ delete_vectors: deleteVectorsBody }),
  ])
  .meta({ description: 'one of {upsert}, {delete}, {set_payload}, {overwrite_payload}, {delete_payload}, {clear_payload}, {update_vectors}, {delete_vectors}' });

export const batchUpdateBody = z
  .strictObject({ operations: z.array(operation).min(1).max(1000).meta({ description: 'a non-empty array of at most 1,000 operations, applied in order as one' }) })
  .meta({ id: 'BatchUpdateBody' });
