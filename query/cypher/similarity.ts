/**
 * Neo4j's vector similarity, in [0, 1]: (1 + cosine) / 2, or 1 / (1 + squared Euclidean
 * distance); null for cosine with a zero vector. One definition for vector.similarity.*() and
 * the exact search of db.index.vector.queryNodes.
 */
export function vectorSimilarity(cosine: boolean, a: ArrayLike<number>, b: ArrayLike<number>): number | null {
  let dot = 0;
  let na = 0;
  let nb = 0;
  let d2 = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
    d2 += (x - y) * (x - y);
  }
  if (!cosine) return 1 / (1 + d2);
  return na === 0 || nb === 0 ? null : (1 + dot / Math.sqrt(na * nb)) / 2;
}
