import type { MultiVector, PointRecord, SparseVector } from '../../storage/events/types.js';

type Dense = number[] | Float32Array | Float64Array;
type Sparse = { indices: number[]; values: number[] };
type Matrix = Dense[];

const isMatrix = (v: unknown): v is Matrix => Array.isArray(v) && v.length > 0 && (Array.isArray(v[0]) || ArrayBuffer.isView(v[0]));
const isDense = (v: Dense | Sparse | Matrix): v is Dense => (Array.isArray(v) || ArrayBuffer.isView(v)) && !isMatrix(v);

/** A matrix (rows of one size, as the schema checked) as stored: its rows one after the other. */
export function multiFrom(rows: Matrix): MultiVector {
  const dim = rows[0]!.length;
  const values = new Float32Array(rows.length * dim);
  rows.forEach((row, i) => values.set(row, i * dim));
  return { dim, values };
}

/** A sparse vector as stored: indices ascending (a repeated index is left for validation to name). */
export function sparseFrom(v: Sparse): SparseVector {
  const order = v.indices.map((_, k) => k).sort((a, b) => v.indices[a]! - v.indices[b]!);
  const sortedValues = v.values.length === v.indices.length ? order.map((k) => v.values[k]!) : v.values;
  return { indices: Uint32Array.from(order.map((k) => v.indices[k]!)), values: Float32Array.from(sortedValues) };
}

/** A point's vectors as given (one vector or matrix, or a map of names: "" is the unnamed vector) by kind. */
export function pointVectorsFrom(given: Dense | Matrix | Record<string, Dense | Sparse | Matrix> | null | undefined): Pick<PointRecord, 'vector' | 'named' | 'sparse' | 'multi'> {
  if (given === null || given === undefined) return { vector: null };
  if (isMatrix(given)) return { vector: null, multi: { '': multiFrom(given) } };
  if (isDense(given as Dense)) return { vector: Float32Array.from(given as Dense) };
  const out: Pick<PointRecord, 'vector' | 'named' | 'sparse' | 'multi'> = { vector: null };
  for (const [name, v] of Object.entries(given as Record<string, Dense | Sparse | Matrix>)) {
    if (isMatrix(v)) (out.multi ??= {})[name] = multiFrom(v);
    else if (!isDense(v)) (out.sparse ??= {})[name] = sparseFrom(v);
    else if (name === '') out.vector = Float32Array.from(v);
    else (out.named ??= {})[name] = Float32Array.from(v);
  }
  return out;
}
