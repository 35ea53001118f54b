/**
 * Points as Qdrant answers them, for the Qdrant port: Qdrant has no labels (DECISIONS.md asks for
 * them on the spec port only), and a point without any vector carries `"vector": {}` where the
 * spec port answers null. Walks the result's arrays and objects down to the points (an object with
 * an `id` and a `payload`, `vector` or `score`), never into a payload or a vector.
 */
export function qdrantShaped(result: unknown): unknown {
  if (Array.isArray(result)) {
    for (const item of result) qdrantShaped(item);
    return result;
  }
  if (typeof result !== 'object' || result === null) return result;
  const obj = result as Record<string, unknown>;
  if ('id' in obj && ('payload' in obj || 'vector' in obj || 'score' in obj)) {
    delete obj.labels;
    if (obj.vector === null) obj.vector = {};
    return result;
  }
  for (const [key, value] of Object.entries(obj)) if (key !== 'payload' && typeof value === 'object') qdrantShaped(value);
  return result;
}
