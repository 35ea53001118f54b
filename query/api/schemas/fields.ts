import * as z from 'zod';
import { checkPointId, MAX_POINT_ID } from '../../../storage/engine/validate-event.js';
import { canonicalUuid } from '../../../storage/point-id.js';
import { explainedBy, quote } from './explainers.js';

/**
 * Field schemas shared by the request bodies. Each `description` is written to finish the
 * sentence "<field> must be …": it documents the field and is the 400's message when refused.
 */

export const intIn = (min: number, max: number) => z.int().min(min).max(max).meta({ description: `an integer from ${min} to ${max}` });

export const finiteNumber = () => z.number().meta({ description: 'a finite number' });

const UUID_TEXT = /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$/;

/** A point id: an integer in range, or a UUID (hyphenated or 32 hex digits, any case) made canonical. */
export const pointId = explainedBy(
  z
    .union([z.int().min(0).max(MAX_POINT_ID), z.string().regex(UUID_TEXT).transform((text) => canonicalUuid(text)!)])
    .meta({ id: 'PointId', description: `a point id: an integer from 0 to ${MAX_POINT_ID} or a UUID` }),
  (where, value) => {
    try {
      checkPointId(typeof value === 'string' ? (canonicalUuid(value) ?? value) : value);
      return undefined;
    } catch (err) {
      return `${where}: ${(err as Error).message}`;
    }
  },
);

export const pointIdList = () => z.array(pointId).meta({ description: 'an array of point ids' });

type VectorInput = number[] | Float32Array | Float64Array;

const isVector = (v: unknown): v is VectorInput =>
  v instanceof Float32Array || v instanceof Float64Array ? v.length > 0 : Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number');

/**
 * A vector: checked in one pass without a copy (vectors are the bulk of an upsert), so its JSON
 * Schema is written out in its meta. The browser library may pass a typed array.
 */
export const vector = () =>
  explainedBy(
    z.custom<VectorInput>(isVector).meta({ type: 'array', items: { type: 'number' }, minItems: 1, description: 'a non-empty array of numbers' }),
    (where, value) => {
      const items: unknown[] = Array.isArray(value) ? value : [];
      const bad = items.findIndex((x) => typeof x !== 'number');
      return bad >= 0 ? `${where}[${bad}] must be a number, got ${quote(items[bad])}` : undefined;
    },
  );

export const payload = z.record(z.string(), z.unknown()).meta({ id: 'Payload', description: 'a JSON object' });

export const labels = z.array(z.string().min(1)).meta({ description: 'an array of non-empty strings' });

const payloadKeys = () => z.array(z.string()).meta({ description: 'an array of payload keys' });

export const withPayload = z
  .union([z.boolean(), payloadKeys(), z.strictObject({ include: payloadKeys() }), z.strictObject({ exclude: payloadKeys() })])
  .meta({ id: 'WithPayload', description: 'a boolean, a list of keys, or {"include"|"exclude": [keys]}' });

export const withVector = z
  .union([z.boolean(), z.array(z.string()).meta({ description: 'an array of vector names' })])
  .meta({ id: 'WithVector', description: 'true, false, or a list of vector names ("" is the unnamed vector)' });

/** Qdrant's sparse vector: dimension indices (any order, each once) and their values. */
export const sparseVector = z
  .strictObject({
    indices: z.array(z.int().min(0).max(2 ** 32 - 1)).meta({ description: 'an array of integers from 0 to 4294967295' }),
    values: z.array(z.number()).meta({ description: 'an array of finite numbers, one per index' }),
  })
  .meta({ id: 'SparseVector', description: 'an object {indices: [integers], values: [numbers]}' });

/** A point's vectors: one (unnamed) vector, or Qdrant's map from names to dense or sparse vectors. */
export const pointVectors = () =>
  z
    .union([vector(), z.record(z.string(), z.union([vector(), sparseVector]).meta({ description: 'a dense vector (array of numbers) or a sparse vector {indices, values}' }))])
    .meta({ description: 'a vector (array of numbers), or an object from vector names to vectors (arrays of numbers, or {indices, values} for a sparse vector)' });
