/**
 * Points as Qdrant answers them, for the Qdrant port: Qdrant has no labels (DECISIONS.md asks for
 * them on the spec port only), a point without any vector carries `"vector": {}` where the spec
 * port answers null, and a scored point carries the `version` Qdrant's ScoredPoint requires (0:
 * points do not keep the operation that last wrote them; the spec port and the browser library
 * answer SPEC.md's shape, without it). Walks the result's arrays and objects down to the points (an object with
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
    if ('score' in obj) obj.version = 0;
    return result;
  }
  for (const [key, value] of Object.entries(obj)) if (key !== 'payload' && typeof value === 'object') qdrantShaped(value);
  return result;
}
