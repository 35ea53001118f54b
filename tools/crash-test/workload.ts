import type { PointId } from '../../storage/point-id.js';
import { Collection } from '../../storage/collection.js';
import { exportCollection } from '../../storage/export/export-writer.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import type { HttpClient } from '../lib/http-client.js';
import { Model, type ModelPoint } from './model.js';

export const COLLECTION = 'crash';
export const DIM = 4;
/** The configuration of the files the workload imports. */
export const IMPORT_CONFIG: CollectionConfig = { size: DIM, distance: 'Euclid', m: 16, m0: 32, efConstruct: 200, ml: 1 / Math.log(16) };

/** A write in flight when the server was killed: after restart it must be all there or not at all. */
export interface InFlight {
  kind: string;
  before: Map<PointId, ModelPoint | undefined>;
  after: Map<PointId, ModelPoint | undefined>;
  /** For an edge: its key, and its weight before and after. */
  edge?: { key: string; before: number | undefined; after: number };
}

const vectorFor = (id: number, round: number): number[] => [Math.sin(id + round), Math.cos(id * 3 + round), (id % 7) / 7, round % 5];

/**
 * One worker owns the ids `base .. base + span - 1` (and fresh ones from the model for imports)
 * and writes them one request at a time, so the order of its acknowledgements is the order of
 * its writes: upserts of small batches (and now and then of 200 new points), deletes, merge imports of small files, edges, and
 * Cypher writes that change two points in one query (both or neither must survive a kill).
 */
/** Points in the occasional large upsert: more than Engine.submitInSlices submits at once. */
const LARGE_UPSERT = 200;

export async function worker(client: HttpClient, model: Model, base: number, span: number, stop: () => boolean, inflight: InFlight[], seed: number): Promise<void> {
  let round = seed;
  while (!stop()) {
    round++;
    const pick = () => base + ((round * 7919 + Math.floor(Math.random() * span)) % span);
    const r = Math.random();
    if (r < 0.6) {
      // One upsert in ten is of 200 new points: checked and encoded in slices (Engine.submitInSlices), killed in the midst of them too.
      const ids = round % 10 === 0 ? model.freshIds(LARGE_UPSERT) : [...new Set([pick(), pick(), pick()])];
      const points = ids.map((id, i) => ({ id, vector: vectorFor(typeof id === 'number' ? id : i, round), payload: { round, worker: base } }));
      const stored = (p: (typeof points)[number]): ModelPoint => ({ vector: p.vector.map(Math.fround), payload: p.payload });
      const flight: InFlight = { kind: 'upsert', before: new Map(ids.map((id) => [id, model.points.get(id)])), after: new Map(points.map((p) => [p.id, stored(p)])) };
      inflight.push(flight);
      const res = (await client.json('PUT', `/collections/${COLLECTION}/points`, JSON.stringify({ points }))) as { result: { operation_id: number } };
      inflight.splice(inflight.indexOf(flight), 1);
      for (const p of points) model.upsert(p.id, stored(p));
      model.maxOperationId = Math.max(model.maxOperationId, res.result.operation_id);
    } else if (r < 0.8) {
      const id = pick();
      const flight: InFlight = { kind: 'delete', before: new Map([[id, model.points.get(id)]]), after: new Map([[id, undefined]]) };
      inflight.push(flight);
      const res = (await client.json('POST', `/collections/${COLLECTION}/points/delete`, JSON.stringify({ points: [id] }))) as { result: { operation_id: number } };
      inflight.splice(inflight.indexOf(flight), 1);
      model.delete(id);
      model.maxOperationId = Math.max(model.maxOperationId, res.result.operation_id);
    } else if (r < 0.85) {
      const ids = model.freshIds(3);
      const file = new Collection(COLLECTION, IMPORT_CONFIG, 1);
      const points = ids.map((id, i) => ({ id, vector: vectorFor(i, round), payload: { imported: round } }));
      file.upsert(points.map((p) => ({ ...p, vector: Float32Array.from(p.vector), labels: [] })));
      const body = Buffer.concat([...exportCollection(file).chunks()]);
      const stored = (p: (typeof points)[number]): ModelPoint => ({ vector: p.vector.map(Math.fround), payload: p.payload });
      const flight: InFlight = { kind: 'import', before: new Map(ids.map((id) => [id, undefined])), after: new Map(points.map((p) => [p.id, stored(p)])) };
      inflight.push(flight);
      await client.send('POST', `/collections/${COLLECTION}/import?mode=merge`, body, 'application/octet-stream').then((res) => {
        if (res.status !== 200) throw new Error(`import answered ${res.status}: ${res.text}`);
      });
      inflight.splice(inflight.indexOf(flight), 1);
      for (const p of points) model.upsert(p.id, stored(p));
    } else if (r < 0.9) {
      const ids = [...new Set([pick(), pick()])].filter((id) => model.points.has(id));
      if (ids.length === 0) continue;
      const after = new Map(ids.map((id) => [id, { ...model.points.get(id)!, payload: { ...model.points.get(id)!.payload, cypher: round } }]));
      const flight: InFlight = { kind: 'cypher', before: new Map(ids.map((id) => [id, model.points.get(id)])), after };
      inflight.push(flight);
      const query = 'MATCH (n) WHERE id(n) IN $ids SET n.cypher = $round RETURN count(n)';
      const res = (await client.json('POST', `/collections/${COLLECTION}/graph/query`, JSON.stringify({ query, parameters: { ids, round } }))) as { result: { rows: number[][] } };
      if (res.result.rows[0]![0] !== ids.length) throw new Error(`the Cypher write matched ${res.result.rows[0]![0]} of ${ids.length} points`);
      inflight.splice(inflight.indexOf(flight), 1);
      for (const [id, p] of after) model.upsert(id, p);
    } else {
      const [from, to] = [pick(), pick()];
      if (!model.points.has(from) || !model.points.has(to)) continue;
      const relation = round % 2 ? 'A' : 'B';
      const weight = Math.fround((round % 100) / 100);
      const key = Model.edgeKey(from, to, relation);
      const flight: InFlight = { kind: 'edge', before: new Map(), after: new Map(), edge: { key, before: model.edges.get(key), after: weight } };
      inflight.push(flight);
      await client.json('POST', `/collections/${COLLECTION}/graph/edges`, JSON.stringify({ from_id: from, to_id: to, relation, weight }));
      inflight.splice(inflight.indexOf(flight), 1);
      model.edges.set(key, weight);
    }
    model.noteAcknowledged();
  }
}
