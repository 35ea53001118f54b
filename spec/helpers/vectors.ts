/** Deterministic data for tests: a seeded generator and clustered vectors. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` vectors around 10 cluster centres; the centres depend on `centreSeed` only, the noise on `seed`. */
export function randomVectors(count: number, dim: number, seed: number, centreSeed = 1): Float32Array[] {
  const rc = seeded(centreSeed);
  const centres = Array.from({ length: 10 }, () => Array.from({ length: dim }, () => rc() * 2 - 1));
  const rnd = seeded(seed);
  return Array.from({ length: count }, (_, i) => {
    const c = centres[i % centres.length]!;
    return Float32Array.from(c, (x) => x + (rnd() - 0.5) * 2);
  });
}
