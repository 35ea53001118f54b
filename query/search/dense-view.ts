import type { Collection } from '../../storage/collection.js';
import { vectorNamesText } from '../../storage/engine/check-vectors.js';
import { badRequest } from '../../storage/errors.js';
import type { Distance } from '../../storage/events/types.js';
import type { HnswIndex, QueryDistance, SlotFilter } from '../../storage/views/hnsw.js';
import type { QuantizedVectors } from '../../storage/views/quantized-vectors.js';
import type { NamedDenseVectors } from '../../storage/views/named-dense.js';
import { LIVE } from '../../storage/views/point-store.js';

/**
 * One dense vector of a collection seen from the collection's slots, so searches and scorers
 * work alike on the unnamed vector and on a named one (whose own slots are found by point id).
 * Distances are the internal ones (smaller is closer); NaN for a point without this vector.
 */
export interface DenseView {
  name: string;
  size: number;
  distance: Distance;
  /** A query vector as this vector is stored: a unit-length copy for Cosine. */
  prepare(vector: ArrayLike<number>, out?: Float32Array): Float32Array;
  has(slot: number): boolean;
  /** The stored vector of a slot's point (a view: copy it before the next write), or null. */
  stored(slot: number): Float32Array | null;
  setQuery(prepared: Float32Array): void;
  toQuery(slot: number): number;
  /** toQuery of slots[0..n) into out[0..n), batched where the vectors allow (the walk's candidates, rescored). */
  toQueryAll(slots: Int32Array, n: number, out: Float64Array): void;
  between(a: number, b: number): number;
  /** The quantized codes while the collection quantizes its vectors, else null. */
  quantized: QuantizedVectors | null;
  /** The HNSW search: up to k admitted hits, nearest first, as collection slots (keys from `approx` when given). */
  search(prepared: Float32Array, k: number, ef: number, admit: SlotFilter, keys: Float64Array, slots: Int32Array, approx?: QueryDistance | null): number;
  forEachPending(visit: (slot: number) => void): void;
  /** The vectors pending now, to visit later (a graph walk elsewhere meanwhile), as collection slots. */
  capturePending(): (visit: (slot: number) => void) => void;
  /** The graph itself, for a walk on another thread, and its slots as collection slots (-1: the point is gone). */
  graph: HnswIndex;
  fromGraphSlot(slot: number): number;
}

function unnamedView(c: Collection): DenseView {
  const { store, space, index, config } = c;
  return {
    name: '',
    size: config.size,
    distance: config.distance,
    prepare: (v, out) => c.prepareQuery(v, out),
    has: (slot) => store.hasVector[slot] === 1,
    stored: (slot) => (store.hasVector[slot] ? store.vectorOf(slot) : null),
    setQuery: (q) => space.setQuery(q),
    toQuery: (slot) => (store.hasVector[slot] ? space.toQuery(slot) : NaN),
    toQueryAll: (slots, n, out) => {
      space.toQueryAll(slots, n, out);
      for (let i = 0; i < n; i++) if (!store.hasVector[slots[i]!]) out[i] = NaN;
    },
    between: (a, b) => space.between(a, b),
    get quantized() {
      return c.quantized;
    },
    search: (q, k, ef, admit, keys, slots, approx) => index.search(q, k, ef, admit, keys, slots, approx),
    forEachPending: (visit) => c.forEachPending(visit),
    capturePending: () => c.capturePending(),
    graph: index,
    fromGraphSlot: (slot) => slot,
  };
}

function namedView(c: Collection, field: NamedDenseVectors): DenseView {
  const own = field.store;
  const main = c.store;
  const ownSlot = (slot: number) => own.slotOf(main.idOf(slot));
  const mainSlot = (slot: number) => main.slotOf(own.idOf(slot));
  return {
    name: field.name,
    size: field.config.size,
    distance: field.config.distance,
    prepare: (v, out) => field.prepare(v, out),
    has: (slot) => ownSlot(slot) >= 0,
    stored: (slot) => {
      const s = ownSlot(slot);
      return s < 0 ? null : own.vectorOf(s);
    },
    setQuery: (q) => field.space.setQuery(q),
    toQuery: (slot) => {
      const s = ownSlot(slot);
      return s < 0 ? NaN : field.space.toQuery(s);
    },
    toQueryAll(slots, n, out) {
      for (let i = 0; i < n; i++) out[i] = this.toQuery(slots[i]!);
    },
    between: (a, b) => {
      const sa = ownSlot(a);
      const sb = ownSlot(b);
      return sa < 0 || sb < 0 ? NaN : field.space.between(sa, sb);
    },
    get quantized() {
      return field.quantized;
    },
    search: (q, k, ef, admit, keys, slots, approx) => {
      const n = field.index.search(q, k, ef, admit ? (s) => admit(mainSlot(s)) : null, keys, slots, approx);
      for (let i = 0; i < n; i++) slots[i] = mainSlot(slots[i]!);
      return n;
    },
    forEachPending: (visit) => field.forEachPending((s) => visit(mainSlot(s))),
    capturePending: () => {
      const captured = field.capturePending();
      return (visit) => captured((s) => visit(mainSlot(s)));
    },
    graph: field.index,
    fromGraphSlot: (slot) => (own.state[slot] === LIVE ? mainSlot(slot) : -1),
  };
}

/** Views are made once per vector (every function of one reads what it needs when called), not per search. */
const views = new WeakMap<object, DenseView>();

function cachedView(of: object, make: () => DenseView): DenseView {
  let view = views.get(of);
  if (!view) views.set(of, (view = make()));
  return view;
}

/** The dense vector `using` names ("" or absent: the unnamed one), or a 400 naming it. */
export function denseView(c: Collection, using: string | null | undefined): DenseView {
  const name = using ?? '';
  if (c.multi.has(name)) throw badRequest(`${name === '' ? 'the unnamed vector' : `vector "${name}"`} of collection "${c.name}" is a multivector: it ranks only a nearest query of /points/query (a matrix [[...], [...]] or a point id) and the points that query admits`);
  if (name === '') {
    if (c.hasUnnamed) return cachedView(c, () => unnamedView(c));
    throw badRequest(`collection "${c.name}" has no unnamed vector: name the vector to search with using (its vectors: ${vectorNamesText(c.config)})`);
  }
  const field = c.named.get(name);
  if (field) return cachedView(field, () => namedView(c, field));
  if (c.sparse.has(name)) throw badRequest(`vector "${name}" is a sparse vector: query it with a sparse vector {indices, values}`);
  throw badRequest(`collection "${c.name}" has no vector named "${name}" (its vectors: ${vectorNamesText(c.config)})`);
}
