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

const isRow = (v: unknown): boolean => Array.isArray(v) || ArrayBuffer.isView(v);

/** Qdrant's words for a matrix whose rows are not vectors of one size; undefined for a value that is no matrix (an array whose first item is not an array). */
function matrixProblem(where: string, value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0 || !isRow(value[0])) return undefined;
  const rows = value as unknown[];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (!isRow(row)) return `${where}[${i}] must be a vector (array of numbers), got ${quote(row)}`;
    const items = Array.from(row as ArrayLike<unknown>);
    if (items.length === 0) return `${where}: all vectors must be non-empty`;
    const bad = items.findIndex((x) => typeof x !== 'number');
    if (bad >= 0) return `${where}[${i}][${bad}] must be a number, got ${quote(items[bad])}`;
  }
  const dim = (rows[0] as ArrayLike<unknown>).length;
  const other = rows.find((row) => (row as ArrayLike<unknown>).length !== dim) as ArrayLike<unknown> | undefined;
  return other ? `${where}: all vectors must have the same dimension, found vector with dimension ${other.length}` : undefined;
}

/** Qdrant's multivector: a matrix, as a non-empty array of vectors of one size (one row per vector). */
export const multiVector = () =>
  explainedBy(
    z
      .custom<VectorInput[]>((v) => Array.isArray(v) && v.length > 0 && v.every(isVector) && v.every((row: VectorInput) => row.length === (v[0] as VectorInput).length))
      .meta({ type: 'array', items: { type: 'array', items: { type: 'number' }, minItems: 1 }, minItems: 1, description: 'a non-empty array of vectors of one size (a multivector)' }),
    matrixProblem,
  );

/** A named vector's value: dense, sparse or a multivector. */
const namedVectorValue = () =>
  explainedBy(
    z.union([vector(), sparseVector, multiVector()]).meta({ description: 'a dense vector (array of numbers), a sparse vector {indices, values} or a multivector (array of vectors)' }),
    matrixProblem,
  );

/** A point's vectors: one (unnamed) vector or multivector, or Qdrant's map from names to dense, sparse or multivectors. */
export const pointVectors = () =>
  explainedBy(
    z
      .union([vector(), multiVector(), z.record(z.string(), namedVectorValue())])
      .meta({ description: 'a vector (array of numbers), or an object from vector names to vectors (arrays of numbers, {indices, values} for a sparse vector, arrays of vectors for a multivector), or a multivector (array of vectors)' }),
    matrixProblem,
  );

/** A column of Qdrant's batch upsert: one vector (dense, sparse or multi) per id. */
export const vectorColumn = () => z.array(namedVectorValue());
