import { seeded } from '../../tools/bench/dataset.js';

/** Deterministic clustered vectors for tests: `count` vectors around 10 cluster centres; the centres depend on `centreSeed` only, the noise on `seed`. */
export function randomVectors(count: number, dim: number, seed: number, centreSeed = 1): Float32Array[] {
  const rc = seeded(centreSeed);
  const centres = Array.from({ length: 10 }, () => Array.from({ length: dim }, () => rc() * 2 - 1));
  const rnd = seeded(seed);
  return Array.from({ length: count }, (_, i) => {
    const c = centres[i % centres.length]!;
    return Float32Array.from(c, (x) => x + (rnd() - 0.5) * 2);
  });
}
