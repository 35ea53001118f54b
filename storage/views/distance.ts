import type { Distance } from '../events/types.js';

/**
 * Scalar vector arithmetic for what runs outside the SIMD kernels (norms, normalising, the
 * benchmark's exact answers), and the mapping from internal distances to scores. Internal
 * distances, smaller is closer: Cosine 1 - a·b on unit vectors, Dot -a·b, Euclid squared,
 * Manhattan the L1 distance itself.
 */

export function dotProduct(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < dim; i += 4) {
    s0 += a[ao + i]! * b[bo + i]!;
    s1 += a[ao + i + 1]! * b[bo + i + 1]!;
    s2 += a[ao + i + 2]! * b[bo + i + 2]!;
    s3 += a[ao + i + 3]! * b[bo + i + 3]!;
  }
  for (; i < dim; i++) s0 += a[ao + i]! * b[bo + i]!;
  return s0 + s1 + s2 + s3;
}

export function squaredEuclid(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < dim; i += 4) {
    const d0 = a[ao + i]! - b[bo + i]!;
    const d1 = a[ao + i + 1]! - b[bo + i + 1]!;
    const d2 = a[ao + i + 2]! - b[bo + i + 2]!;
    const d3 = a[ao + i + 3]! - b[bo + i + 3]!;
    s0 += d0 * d0;
    s1 += d1 * d1;
    s2 += d2 * d2;
    s3 += d3 * d3;
  }
  for (; i < dim; i++) {
    const d = a[ao + i]! - b[bo + i]!;
    s0 += d * d;
  }
  return s0 + s1 + s2 + s3;
}

/** DECISIONS' score (higher is better) from an internal distance. */
export function scoreOf(metric: Distance, internal: number): number {
  if (metric === 'Cosine') return 1 - internal;
  if (metric === 'Euclid') return -Math.sqrt(internal);
  // Dot: a·b; Manhattan: minus the distance, as Euclid's (DECISIONS.md).
  return -internal;
}

/** How far from 1 a norm may be for the vector to count as unit length already. */
const UNIT_TOLERANCE = 1e-6;

/**
 * Scales `dim` values at `off` to unit length; a zero vector stays zero. A vector already of
 * unit length (within float32 rounding) is left bit for bit as it is, so a stored vector that
 * comes back through export and import is not changed by a second normalisation.
 */
export function normalizeInPlace(v: Float32Array, off: number, dim: number): void {
  const norm = Math.sqrt(dotProduct(v, off, v, off, dim));
  if (norm === 0 || Math.abs(norm - 1) <= UNIT_TOLERANCE) return;
  for (let i = 0; i < dim; i++) v[off + i]! /= norm;
}
