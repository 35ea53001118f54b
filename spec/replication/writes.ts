/** Helpers the replication specs share: HTTP calls and a writer that records what was acknowledged. */

export interface Answer {
  status: number;
  body: any;
}

export async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body: parsed };
}

export const COLLECTION = 'r';

export async function createCollection(base: string): Promise<void> {
  const res = await call(base, 'PUT', `/collections/${COLLECTION}`, { vectors: { size: 2, distance: 'Dot' } });
  if (res.status !== 200) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
}

/** Upserts one point; answers its operation_id, or null when the write was not acknowledged. */
export async function writePoint(base: string, id: number): Promise<number | null> {
  try {
    const res = await call(base, 'PUT', `/collections/${COLLECTION}/points`, { points: [{ id, vector: [id % 7, 1], payload: { n: id } }] });
    return res.status === 200 ? (res.body.result.operation_id as number) : null;
  } catch {
    return null;
  }
}

/**
 * `writers` loops writing fresh ids from `firstId` on until `stop(acknowledged so far)`; answers the ids
 * acknowledged and the highest operation_id among them.
 */
export async function writeUntil(base: () => string, firstId: number, writers: number, stop: (acknowledged: number) => boolean): Promise<{ acknowledged: number[]; maxOpId: number; refused: number }> {
  const acknowledged: number[] = [];
  let maxOpId = 0;
  let refused = 0;
  let next = firstId;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (!stop(acknowledged.length)) {
        const id = next++;
        const opId = await writePoint(base(), id);
        if (opId === null) {
          refused++;
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        acknowledged.push(id);
        maxOpId = Math.max(maxOpId, opId);
      }
    }),
  );
  return { acknowledged, maxOpId, refused };
}

/** The ids of the collection's points on a server, once it has applied `minOpId`. */
export async function pointIds(base: string, minOpId: number): Promise<Set<number>> {
  const res = await call(base, 'POST', `/collections/${COLLECTION}/points/scroll`, { limit: 10_000, with_payload: false, consistency: { min_operation_id: minOpId, timeout_ms: 30_000 } });
  if (res.status !== 200) throw new Error(`scroll answered ${res.status}: ${JSON.stringify(res.body)}`);
  return new Set((res.body.result.points as { id: number }[]).map((p) => p.id));
}

export const missing = (ids: readonly number[], held: Set<number>): number[] => ids.filter((id) => !held.has(id));
