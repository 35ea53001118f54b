import type { MultiVector, SparseVector } from '../../../storage/events/types.js';
import type { PointId } from '../../../storage/point-id.js';
import type { Filter } from '../../filter/types.js';
import type { QuantizationParams } from '../vector-search.js';
import type { Formula } from './formula.js';

/** A parsed Qdrant query, ready to run: what ranks, what it ranks (prefetches), and the limits. */

export type VectorInput = { vector: Float32Array } | { sparse: SparseVector } | { multi: MultiVector } | { id: PointId };

export interface ContextPair {
  positive: VectorInput;
  negative: VectorInput;
}

export type QueryKind =
  | { kind: 'nearest'; target: VectorInput; mmr: { diversity: number; candidates: number } | null }
  | { kind: 'recommend'; positive: VectorInput[]; negative: VectorInput[]; strategy: 'average_vector' | 'best_score' | 'sum_scores' }
  /**
   * Qdrant's discovery (with a target) and context search (without): points ranked by the side of
   * each context pair they fall on, then (with a target) by their similarity to the target.
   */
  | { kind: 'discover'; target: VectorInput | null; context: ContextPair[] }
  /** Fusion of the prefetches' results; `weights` (rrf only, one per prefetch): how much each list counts. */
  | { kind: 'fusion'; method: 'rrf' | 'dbsf'; k: number; weights: number[] | null }
  | { kind: 'order_by'; key: string; direction: 'asc' | 'desc'; startFrom: number | null }
  | { kind: 'sample' }
  /**
   * Qdrant's score boosting: the prefetches' points scored by a formula. `distances`, one per
   * prefetch: whether `$score[i]` reads that prefetch's scores as distances (Qdrant's port shows
   * a nearest search on Euclid or Manhattan as the distance; the engine's scores are minus it).
   */
  | { kind: 'formula'; formula: Formula; distances: boolean[] }
  /** No query: the points in id order (or the prefetches' results as they are). */
  | { kind: 'none' };

export interface QueryPlan {
  query: QueryKind;
  prefetch: QueryPlan[];
  /** The vector the query ranks by ("": the unnamed one). */
  using: string;
  filter: Filter | null;
  scoreThreshold: number | null;
  /** Keep only scores strictly above the threshold (Qdrant's vector queries); else at or above it. */
  thresholdExclusive: boolean;
  limit: number;
  offset: number;
  ef: number;
  exact: boolean;
  /** params.quantization, for the vector search of a nearest query. */
  quantization: QuantizationParams;
  /** Qdrant's lookup_from: the collection (and vector) the query's point ids are read from; lookup.ts resolves it before the plan runs. */
  lookupFrom: LookupFrom | null;
}

export interface LookupFrom {
  collection: string;
  /** The vector to read ("" the unnamed one); null: the one the query ranks by (`using`). */
  vector: string | null;
}
