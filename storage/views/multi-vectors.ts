import type { ByteReader } from '../codec/byte-reader.js';
import type { Captured } from '../codec/slices.js';
import { readPointId, writePointId, EVENT_FORMAT_VERSION } from '../events/codec.js';
import type { MultiVector, MultiVectorConfig, PointId } from '../events/types.js';
import { dotProduct, normalizeInPlace, squaredEuclid } from './distance.js';

/** Matrices encoded between two yields of a snapshot's encoding. */
const MATRICES_PER_PIECE = 256;
/** Floats of replaced or deleted matrices left in the buffer before it is compacted (and at least as many as are live). */
const COMPACT_AFTER = 2 ** 20;

/**
 * One multivector of a collection (Qdrant's multivector_config): every point's matrix, its rows
 * one after the other in one contiguous buffer, found through its entry's offset and row count.
 * Scored by MaxSim, the sum over the query's rows of the best similarity to any of the point's
 * rows (Cosine and Dot: the dot product of the rows, Cosine's made unit length; Euclid and
 * Manhattan: minus the distance), exactly, without allocating.
 *
 * The buffer is only ever appended to: a replaced or deleted matrix leaves its floats behind, and
 * once they are many the live ones are copied into a new buffer. So a matrix read out (get, a
 * snapshot or export capture) is a view of floats that never change, whatever comes later.
 */
export class MultiVectors {
  private data = new Float32Array(1024);
  /** Floats written into `data` so far, and how many of them belong to no live matrix. */
  private used = 0;
  private dead = 0;
  private readonly entries = new Map<PointId, number>();
  private offsets = new Float64Array(64);
  private rows = new Int32Array(64);
  private readonly freeEntries: number[] = [];
  private entryCount = 0;
  private readonly dim: number;

  constructor(
    readonly name: string,
    readonly config: MultiVectorConfig,
  ) {
    this.dim = config.size;
  }

  /** How many points have this multivector. */
  get size(): number {
    return this.entries.size;
  }

  has(id: PointId): boolean {
    return this.entries.has(id);
  }

  /** A point's matrix as stored (unit-length rows for Cosine), a view of floats that never change; null when it has none. */
  get(id: PointId): MultiVector | null {
    const entry = this.entries.get(id);
    if (entry === undefined) return null;
    const from = this.offsets[entry]!;
    return { dim: this.dim, values: this.data.subarray(from, from + this.rows[entry]! * this.dim) };
  }

  /** Gives a point this matrix (rows of the configured size, checked before), or takes it away with null. */
  set(id: PointId, matrix: MultiVector | null): void {
    this.remove(id);
    if (!matrix) return;
    const floats = matrix.values.length;
    this.reserve(floats);
    const at = this.used;
    this.data.set(matrix.values, at);
    if (this.config.distance === 'Cosine') for (let off = at; off < at + floats; off += this.dim) normalizeInPlace(this.data, off, this.dim);
    this.used += floats;
    const entry = this.freeEntries.pop() ?? this.newEntry();
    this.offsets[entry] = at;
    this.rows[entry] = floats / this.dim;
    this.entries.set(id, entry);
  }

  remove(id: PointId): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    this.entries.delete(id);
    this.dead += this.rows[entry]! * this.dim;
    this.freeEntries.push(entry);
  }

  /** A query matrix as the stored ones are kept: a copy whose rows are unit length for Cosine. */
  prepare(query: MultiVector): Float32Array {
    const out = Float32Array.from(query.values);
    if (this.config.distance === 'Cosine') for (let off = 0; off < out.length; off += this.dim) normalizeInPlace(out, off, this.dim);
    return out;
  }

  /** MaxSim of a prepared query matrix against a point's matrix; null when the point has none. */
  maxSim(query: Float32Array, id: PointId): number | null {
    const entry = this.entries.get(id);
    if (entry === undefined) return null;
    const { data, dim } = this;
    const start = this.offsets[entry]!;
    const end = start + this.rows[entry]! * dim;
    const metric = this.config.distance;
    let total = 0;
    for (let q = 0; q < query.length; q += dim) {
      let best = -Infinity;
      for (let d = start; d < end; d += dim) {
        const sim =
          metric === 'Cosine' || metric === 'Dot'
            ? dotProduct(query, q, data, d, dim)
            : metric === 'Euclid'
              ? -Math.sqrt(squaredEuclid(query, q, data, d, dim))
              : -manhattan(query, q, data, d, dim);
        if (sim > best) best = sim;
      }
      total += best;
    }
    return total;
  }

  private newEntry(): number {
    if (this.entryCount === this.offsets.length) {
      const offsets = new Float64Array(this.offsets.length * 2);
      offsets.set(this.offsets);
      this.offsets = offsets;
      const rows = new Int32Array(this.rows.length * 2);
      rows.set(this.rows);
      this.rows = rows;
    }
    return this.entryCount++;
  }

  /** Room for `floats` more at the end: the live matrices compacted into a new buffer when the dead ones are many, else a larger one. */
  private reserve(floats: number): void {
    if (this.used + floats <= this.data.length) return;
    const live = this.used - this.dead;
    const compact = this.dead >= COMPACT_AFTER && this.dead >= live;
    const next = new Float32Array(Math.max(1024, 2 * ((compact ? live : this.used) + floats)));
    if (compact) {
      let at = 0;
      for (const entry of this.entries.values()) {
        const from = this.offsets[entry]!;
        const count = this.rows[entry]! * this.dim;
        next.set(this.data.subarray(from, from + count), at);
        this.offsets[entry] = at;
        at += count;
      }
      this.used = at;
      this.dead = 0;
    } else next.set(this.data.subarray(0, this.used));
    this.data = next;
  }

  /** Every point's matrix as it is now (snapshots), written later: views of floats that never change. */
  capture(): Captured {
    const matrices = [...this.entries.keys()].map((id) => [id, this.get(id)!] as const);
    return function* (w) {
      w.u32(matrices.length);
      for (const [k, [id, m]] of matrices.entries()) {
        writePointId(w, id);
        w.u32(m.values.length / m.dim).floats(m.values);
        if (k % MATRICES_PER_PIECE === 0) yield;
      }
    };
  }

  readFrom(r: ByteReader): void {
    for (let n = r.u32(), i = 0; i < n; i++) {
      const id = readPointId(r, EVENT_FORMAT_VERSION);
      const values = new Float32Array(r.u32() * this.dim);
      r.floatsInto(values, 0, values.length);
      this.set(id, { dim: this.dim, values });
    }
  }
}

function manhattan(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  let s = 0;
  for (let i = 0; i < dim; i++) s += Math.abs(a[ao + i]! - b[bo + i]!);
  return s;
}
