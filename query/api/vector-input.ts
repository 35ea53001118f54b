import type { PointRecord, SparseVector } from '../../storage/events/types.js';

type Dense = number[] | Float32Array | Float64Array;
type Sparse = { indices: number[]; values: number[] };

const isDense = (v: Dense | Sparse): v is Dense => Array.isArray(v) || ArrayBuffer.isView(v);

/** A sparse vector as stored: indices ascending (a repeated index is left for validation to name). */
export function sparseFrom(v: Sparse): SparseVector {
  const order = v.indices.map((_, k) => k).sort((a, b) => v.indices[a]! - v.indices[b]!);
  const sortedValues = v.values.length === v.indices.length ? order.map((k) => v.values[k]!) : v.values;
  return { indices: Uint32Array.from(order.map((k) => v.indices[k]!)), values: Float32Array.from(sortedValues) };
}

/** A point's vectors as given (one vector, or a map of names: "" is the unnamed vector) by kind. */
export function pointVectorsFrom(given: Dense | Record<string, Dense | Sparse> | null | undefined): Pick<PointRecord, 'vector' | 'named' | 'sparse'> {
  if (given === null || given === undefined) return { vector: null };
  if (isDense(given as Dense)) return { vector: Float32Array.from(given as Dense) };
  const out: Pick<PointRecord, 'vector' | 'named' | 'sparse'> = { vector: null };
  for (const [name, v] of Object.entries(given as Record<string, Dense | Sparse>)) {
    if (!isDense(v)) (out.sparse ??= {})[name] = sparseFrom(v);
    else if (name === '') out.vector = Float32Array.from(v);
    else (out.named ??= {})[name] = Float32Array.from(v);
  }
  return out;
}
