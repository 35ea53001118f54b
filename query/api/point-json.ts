import type { PointId } from '../../storage/point-id.js';
import type { Collection } from '../../storage/collection.js';
import type { MultiVector, Payload } from '../../storage/events/types.js';
import { vectorNamesText } from '../../storage/engine/check-vectors.js';
import { badRequest } from '../../storage/errors.js';
import { filterPayload } from '../../storage/json-path.js';
import { searchCollection, searchCollectionPooled, type VectorQuery } from '../search/vector-search.js';
import type { OutputOptions, PayloadSelector } from './output-options.js';

function selectPayload(payload: Payload, selector: PayloadSelector): Payload {
  if (selector === true || selector === false) return payload;
  return 'include' in selector ? filterPayload(payload, selector.include, 'include') : filterPayload(payload, selector.exclude, 'exclude');
}

/** A retrieved or scored point as JSON: id, [score], then payload and labels, vector, as asked. */
export function pointJson(c: Collection, slot: number, options: OutputOptions, score?: number): Record<string, unknown> {
  const { store } = c;
  const out: Record<string, unknown> = { id: store.idOf(slot) };
  if (score !== undefined) out.score = score;
  if (options.withPayload !== false) {
    out.payload = selectPayload(store.payloads[slot] ?? {}, options.withPayload);
    out.labels = store.labels[slot];
  }
  if (options.withVector !== false) out.vector = vectorsJson(c, slot, options.withVector);
  return out;
}

/** A multivector's matrix as JSON: an array of its rows (null: the point has none). */
function matrixJson(m: MultiVector | null): number[][] | null {
  if (!m) return null;
  const rows: number[][] = [];
  for (let off = 0; off < m.values.length; off += m.dim) rows.push(Array.from(m.values.subarray(off, off + m.dim)));
  return rows;
}

/**
 * A point's vectors: the one vector or matrix (or null) of a collection with only an unnamed
 * vector, else an object from names to the vectors the point has (sparse ones as {indices,
 * values}, multivectors as arrays of rows).
 */
function vectorsJson(c: Collection, slot: number, which: true | string[]): unknown {
  const { store } = c;
  const id = store.idOf(slot);
  const unnamedMulti = c.multi.get('');
  const unnamed = unnamedMulti ? matrixJson(unnamedMulti.get(id)) : store.hasVector[slot] ? Array.from(store.vectorOf(slot)) : null;
  if (c.named.size === 0 && c.sparse.size === 0 && c.multi.size === (unnamedMulti ? 1 : 0)) {
    if (which !== true) checkNames(c, which);
    return unnamed;
  }
  const names = which === true ? [...(c.hasUnnamed || unnamedMulti ? [''] : []), ...c.named.keys(), ...c.sparse.keys(), ...[...c.multi.keys()].filter((n) => n !== '')] : checkNames(c, which);
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const dense = name === '' ? unnamed : c.named.get(name)?.vectorOf(id);
    const sparse = c.sparse.get(name)?.get(id);
    const matrix = name === '' ? null : matrixJson(c.multi.get(name)?.get(id) ?? null);
    if (dense) out[name] = Array.isArray(dense) ? dense : Array.from(dense);
    else if (sparse) out[name] = { indices: Array.from(sparse.indices), values: Array.from(sparse.values) };
    else if (matrix) out[name] = matrix;
  }
  return out;
}

function checkNames(c: Collection, names: string[]): string[] {
  const unknown = names.filter((name) => !(name === '' ? c.hasUnnamed || c.multi.has('') : c.named.has(name) || c.sparse.has(name) || c.multi.has(name)));
  if (unknown.length > 0) throw badRequest(`with_vector names ${unknown.map((n) => `"${n}"`).join(', ')}, which collection "${c.name}" does not have (its vectors: ${vectorNamesText(c.config)})`);
  return names;
}

/** Retrieve: the points that exist, in the order asked. */
export function retrievedJson(c: Collection, ids: readonly PointId[], options: OutputOptions): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  for (const id of ids) {
    const slot = c.store.slotOf(id);
    if (slot >= 0) found.push(pointJson(c, slot, options));
  }
  return found;
}

/** A search's scored points, best first. */
export function scoredJson(c: Collection, req: VectorQuery & OutputOptions): Record<string, unknown>[] {
  return searchCollection(c, req).map((hit) => pointJson(c, hit.slot, req, hit.score));
}

/** scoredJson with the graph walk perhaps on a search worker (the server's searches). */
export async function pooledScoredJson(c: Collection, req: VectorQuery & OutputOptions, shown: (score: number) => number = (score) => score): Promise<Record<string, unknown>[]> {
  return (await searchCollectionPooled(c, req)).map((hit) => pointJson(c, hit.slot, req, shown(hit.score)));
}
