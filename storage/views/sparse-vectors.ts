import type { ByteReader } from '../codec/byte-reader.js';
import type { Captured } from '../codec/slices.js';
import { readPointId, writePointId, EVENT_FORMAT_VERSION } from '../events/codec.js';
import type { PointId, SparseVector, SparseVectorConfig } from '../events/types.js';

/** Vectors encoded between two yields of a snapshot's encoding. */
const VECTORS_PER_PIECE = 1024;

/**
 * One sparse vector of a collection: each point's vector (indices ascending) and an inverted
 * index from a dimension to the points that have it and their values. Scores are dot products,
 * exact; with the `idf` modifier each query dimension is first weighed, as Qdrant does, by
 * ln((N - n + 0.5) / (n + 0.5) + 1), N the points in the collection and n those having it.
 */
export class SparseVectors {
  private readonly byId = new Map<PointId, SparseVector>();
  private readonly postings = new Map<number, Map<PointId, number>>();

  constructor(
    readonly name: string,
    readonly config: SparseVectorConfig,
  ) {}

  /** How many points have this vector. */
  get size(): number {
    return this.byId.size;
  }

  get(id: PointId): SparseVector | null {
    return this.byId.get(id) ?? null;
  }

  /** Gives a point this vector (indices ascending, as parsed), or takes it away with null. */
  set(id: PointId, vector: SparseVector | null): void {
    this.remove(id);
    if (!vector) return;
    this.byId.set(id, vector);
    for (let k = 0; k < vector.indices.length; k++) {
      const dim = vector.indices[k]!;
      let list = this.postings.get(dim);
      if (!list) this.postings.set(dim, (list = new Map()));
      list.set(id, vector.values[k]!);
    }
  }

  remove(id: PointId): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.byId.delete(id);
    for (const dim of old.indices) {
      const list = this.postings.get(dim)!;
      list.delete(id);
      if (list.size === 0) this.postings.delete(dim);
    }
  }

  /** The query's weights: its values, times each dimension's IDF with the idf modifier (`points`: N). */
  queryWeights(query: SparseVector, points: number): Float64Array {
    const weights = Float64Array.from(query.values);
    if (this.config.modifier !== 'idf') return weights;
    for (let k = 0; k < weights.length; k++) {
      const n = this.postings.get(query.indices[k]!)?.size ?? 0;
      weights[k]! *= Math.log((points - n + 0.5) / (n + 0.5) + 1);
    }
    return weights;
  }

  /** The score of every point sharing a dimension with the query (weights from queryWeights). */
  scoreAll(query: SparseVector, weights: Float64Array): Map<PointId, number> {
    const scores = new Map<PointId, number>();
    for (let k = 0; k < query.indices.length; k++) {
      const list = this.postings.get(query.indices[k]!);
      if (!list) continue;
      const w = weights[k]!;
      for (const [id, value] of list) scores.set(id, (scores.get(id) ?? 0) + w * value);
    }
    return scores;
  }

  /** One point's score (null: it has no such vector). */
  scoreOne(query: SparseVector, weights: Float64Array, id: PointId): number | null {
    const v = this.byId.get(id);
    if (!v) return null;
    let score = 0;
    let j = 0;
    for (let k = 0; k < query.indices.length; k++) {
      const dim = query.indices[k]!;
      while (j < v.indices.length && v.indices[j]! < dim) j++;
      if (j < v.indices.length && v.indices[j] === dim) score += weights[k]! * v.values[j]!;
    }
    return score;
  }

  /**
   * Every point's vector as it is now (snapshots), written later: the vectors taken by reference
   * (a point's is replaced, never changed in place); the inverted index is rebuilt on load.
   */
  capture(): Captured {
    const vectors = [...this.byId];
    return function* (w) {
      w.u32(vectors.length);
      for (const [k, [id, v]] of vectors.entries()) {
        writePointId(w, id);
        w.u32(v.indices.length);
        for (const i of v.indices) w.u32(i);
        w.floats(v.values);
        if (k % VECTORS_PER_PIECE === 0) yield;
      }
    };
  }

  readFrom(r: ByteReader): void {
    for (let n = r.u32(), i = 0; i < n; i++) {
      const id = readPointId(r, EVENT_FORMAT_VERSION);
      const count = r.u32();
      const indices = new Uint32Array(count);
      for (let k = 0; k < count; k++) indices[k] = r.u32();
      const values = new Float32Array(count);
      r.floatsInto(values, 0, count);
      this.set(id, { indices, values });
    }
  }
}
