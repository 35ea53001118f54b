import type { PointId } from '../../storage/point-id.js';
import { ImportReader } from '../../storage/export/import-reader.js';
import type { HttpClient } from '../lib/http-client.js';
import { Model, type ModelPoint } from './model.js';
import { COLLECTION, type InFlight } from './workload.js';

const same = (a: ModelPoint | undefined, b: { vector: Float32Array | null; payload: unknown } | undefined): boolean => {
  if (!a || !b) return !a && !b;
  return JSON.stringify(a.payload) === JSON.stringify(b.payload) && JSON.stringify(a.vector) === JSON.stringify(Array.from(b.vector ?? []));
};

/**
 * Compares the server's export with the model: every acknowledged write is there; a write that
 * was in flight is there whole or not at all (then the model takes it, as the server did).
 * Answers the problems found, and how many acknowledged writes were lost.
 */
export async function checkAgainstModel(base: string, model: Model, inflight: InFlight[]): Promise<{ problems: string[]; lost: number }> {
  const res = await fetch(`${base}/collections/${COLLECTION}/export`);
  const reader = new ImportReader();
  reader.feed(new Uint8Array(await res.arrayBuffer()));
  const file = reader.finish();
  const actual = new Map(file.points.map((p) => [p.id, p]));
  const problems: string[] = [];
  const undecided = new Set<PointId>();
  const actualEdges = new Map(file.edges.map((e) => [Model.edgeKey(e.from, e.to, e.relation), e.weight]));
  const undecidedEdges = new Set<string>();
  for (const flight of inflight) {
    if (flight.edge) {
      const { key, before, after } = flight.edge;
      const now = actualEdges.get(key);
      if (now === after) model.edges.set(key, after);
      else if (now !== before) problems.push(`edge ${key} in flight at the kill is neither before (${before}) nor after (${after}): ${now}`);
      undecidedEdges.add(key);
      continue;
    }
    const ids = [...flight.after.keys()];
    const applied = ids.every((id) => same(flight.after.get(id), actual.get(id)));
    const notApplied = ids.every((id) => same(flight.before.get(id), actual.get(id)));
    if (!applied && !notApplied) problems.push(`a ${flight.kind} in flight at the kill is half applied (ids ${ids.join(', ')})`);
    if (applied) for (const id of ids) {
      const p = flight.after.get(id);
      if (p) model.upsert(id, p);
      else model.delete(id);
    }
    for (const id of ids) undecided.add(id);
  }
  let lost = 0;
  for (const [id, p] of model.points) {
    if (undecided.has(id)) continue;
    if (!same(p, actual.get(id))) {
      lost++;
      if (problems.length < 10) problems.push(`point ${id}: acknowledged ${JSON.stringify(p)}, found ${actual.has(id) ? 'something else' : 'nothing'}`);
    }
  }
  for (const id of actual.keys()) if (!model.points.has(id) && !undecided.has(id)) problems.push(`point ${id} is there but was never acknowledged (or was deleted)`);
  for (const [key, weight] of model.edges) {
    if (actualEdges.get(key) !== weight && !undecidedEdges.has(key)) {
      lost++;
      problems.push(`edge ${key}: acknowledged weight ${weight}, found ${actualEdges.get(key)}`);
    }
  }
  for (const key of actualEdges.keys()) if (!model.edges.has(key) && !undecidedEdges.has(key)) problems.push(`edge ${key} is there but was never acknowledged`);
  return { problems, lost };
}

/** A new write must get an operation_id above every acknowledged one. */
export async function checkIdsGoOn(client: HttpClient, model: Model): Promise<string[]> {
  const res = (await client.json('POST', `/collections/${COLLECTION}/points/delete`, JSON.stringify({ points: [] }))) as { result: { operation_id: number } };
  const ok = res.result.operation_id > model.maxOperationId;
  model.maxOperationId = res.result.operation_id;
  return ok ? [] : [`operation_id ${res.result.operation_id} after a restart is not above ${model.maxOperationId}`];
}
