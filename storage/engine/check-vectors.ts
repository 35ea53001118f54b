import type { CollectionConfig, MultiVector, PointId, SparseVector } from '../events/types.js';

/** A point's vectors by kind: the unnamed one, the named dense ones, the sparse ones and the multivectors. */
export interface PointVectors {
  vector?: Float32Array | null;
  named?: Record<string, Float32Array>;
  sparse?: Record<string, SparseVector>;
  multi?: Record<string, MultiVector>;
}

/** The collection's vector names, for a message: `dense: a, b; sparse: s; multivector: m`. */
export function vectorNamesText(config: CollectionConfig): string {
  const dense = [...(config.size > 0 ? ['""'] : []), ...Object.keys(config.named ?? {}).map((n) => JSON.stringify(n))];
  const sparse = Object.keys(config.sparse ?? {}).map((n) => JSON.stringify(n));
  const multi = Object.keys(config.multi ?? {}).map((n) => JSON.stringify(n));
  return [dense.length > 0 ? `dense: ${dense.join(', ')}` : '', sparse.length > 0 ? `sparse: ${sparse.join(', ')}` : '', multi.length > 0 ? `multivector: ${multi.join(', ')}` : ''].filter(Boolean).join('; ') || 'none';
}

/** The size of a dense vector of this name ("" the unnamed one), or null when the collection has none. */
export function denseSize(config: CollectionConfig, name: string): number | null {
  if (name === '') return config.size > 0 ? config.size : null;
  return config.named?.[name]?.size ?? null;
}

function denseProblem(config: CollectionConfig, collection: string, name: string, v: Float32Array, values: boolean): string | null {
  const size = denseSize(config, name);
  const label = name === '' ? 'vector' : `vector "${name}"`;
  if (size === null) {
    if (config.sparse?.[name]) return `vector "${name}" is a sparse vector: send it as {"indices": [...], "values": [...]}`;
    if (config.multi?.[name]) return `${label} is a multivector: send it as an array of vectors of ${config.multi[name].size} numbers ([[...], [...]])`;
    return name === ''
      ? `collection "${collection}" has no unnamed vector: send the vectors by name (${vectorNamesText(config)})`
      : `collection "${collection}" has no vector named "${name}" (its vectors: ${vectorNamesText(config)})`;
  }
  if (v.length !== size) return `${label} has ${v.length} dimensions, collection "${collection}" expects ${size}`;
  if (!values) return null;
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) return `${label} element ${i} is not a finite 32-bit float`;
  return null;
}

/** What is wrong with a sparse vector of this name, or null (`values`: its indices and values too, not only its name and kind). */
export function sparseProblem(config: CollectionConfig, collection: string, name: string, v: SparseVector, values = true): string | null {
  if (!config.sparse?.[name]) {
    if (denseSize(config, name) !== null) return `vector "${name}" is a dense vector: send it as an array of numbers`;
    if (config.multi?.[name]) return `vector "${name}" is a multivector: send it as an array of vectors ([[...], [...]])`;
    return `collection "${collection}" has no sparse vector named "${name}" (its vectors: ${vectorNamesText(config)})`;
  }
  if (!values) return null;
  if (v.indices.length !== v.values.length) return `sparse vector "${name}" has ${v.indices.length} indices and ${v.values.length} values: give one value per index`;
  for (let k = 0; k < v.indices.length; k++) {
    if (k > 0 && v.indices[k]! <= v.indices[k - 1]!) return `sparse vector "${name}" repeats index ${v.indices[k]}`;
    if (!Number.isFinite(v.values[k])) return `sparse vector "${name}" value ${k} is not a finite 32-bit float`;
  }
  return null;
}

/** What is wrong with a multivector of this name, or null (`values`: its floats too, not only its name, kind and row size). */
export function multiProblem(config: CollectionConfig, collection: string, name: string, m: MultiVector, values = true): string | null {
  const params = config.multi?.[name];
  const label = name === '' ? 'vector' : `vector "${name}"`;
  if (!params) {
    const size = denseSize(config, name);
    if (size !== null) return `${label} is a dense vector, not a multivector: send it as an array of ${size} numbers`;
    if (config.sparse?.[name]) return `vector "${name}" is a sparse vector: send it as {"indices": [...], "values": [...]}`;
    return name === ''
      ? `collection "${collection}" has no unnamed vector: send the vectors by name (${vectorNamesText(config)})`
      : `collection "${collection}" has no vector named "${name}" (its vectors: ${vectorNamesText(config)})`;
  }
  if (m.values.length === 0) return `${label}: multi vector must not be empty`;
  if (m.dim !== params.size) return `${label}: Vector dimension error: expected dim: ${params.size}, got ${m.dim}`;
  if (m.values.length % m.dim !== 0) return `${label} has ${m.values.length} floats, not whole rows of ${m.dim}`;
  if (!values) return null;
  for (let i = 0; i < m.values.length; i++) if (!Number.isFinite(m.values[i])) return `${label} row ${Math.floor(i / m.dim)} element ${i % m.dim} is not a finite 32-bit float`;
  return null;
}

/**
 * What is wrong with a point's vectors for this collection (a message naming the point), or null.
 * `values` false checks only their names, kinds and sizes: the apply path's check that the
 * collection still has the shape an upsert was validated against (its values were checked then).
 */
export function vectorsProblem(config: CollectionConfig, collection: string, id: PointId, p: PointVectors, values = true): string | null {
  const problems: (string | null)[] = [];
  if (p.vector) problems.push(denseProblem(config, collection, '', p.vector, values));
  for (const [name, v] of Object.entries(p.named ?? {})) problems.push(denseProblem(config, collection, name, v, values));
  for (const [name, v] of Object.entries(p.sparse ?? {})) problems.push(sparseProblem(config, collection, name, v, values));
  for (const [name, m] of Object.entries(p.multi ?? {})) problems.push(multiProblem(config, collection, name, m, values));
  const first = problems.find((m) => m !== null);
  return first ? `point ${id}: ${first}` : null;
}

/** Why a file's vectors cannot merge into a collection's (names, kinds or sizes differ), or null. */
export function configMismatch(target: CollectionConfig, file: CollectionConfig, collection: string): string | null {
  if (target.size !== file.size) return `dimension mismatch: the file holds ${file.size}-dimensional vectors, collection "${collection}" has ${target.size}`;
  const shape = (c: CollectionConfig) =>
    JSON.stringify([
      Object.entries(c.named ?? {}).map(([n, v]) => [n, v.size, v.distance]).sort(),
      Object.keys(c.sparse ?? {}).sort(),
      ...(c.multi ? [Object.entries(c.multi).map(([n, v]) => [n, v.size, v.distance, v.comparator]).sort()] : []),
    ]);
  if (shape(target) !== shape(file)) return `vector mismatch: the file's vectors are ${vectorNamesText(file)}, collection "${collection}" has ${vectorNamesText(target)} (with the same sizes and distances)`;
  return null;
}

/** update_vectors' vectors by kind ("" in `dense` is the unnamed vector). */
export function splitDense(dense: Record<string, Float32Array>): { vector: Float32Array | undefined; named: Record<string, Float32Array> } {
  const { '': vector, ...named } = dense;
  return { vector, named };
}

/** Why delete_vectors cannot delete a vector of this name, or null. */
export function deleteNameProblem(config: CollectionConfig, collection: string, name: string): string | null {
  if (denseSize(config, name) !== null || config.sparse?.[name] || config.multi?.[name]) return null;
  return `collection "${collection}" has no vector named "${name}" (its vectors: ${vectorNamesText(config)})`;
}
