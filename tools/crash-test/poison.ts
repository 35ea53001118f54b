import type { HttpClient } from '../lib/http-client.js';
import { craftedImport } from './crafted-import.js';
import { Model, type ModelPoint } from './model.js';
import { COLLECTION, DIM, IMPORT_CONFIG, type InFlight } from './workload.js';

/** The crash-test's servers run with this Cypher memory budget, so a memory attack is refused quickly. */
export const QUERY_MEMORY_MB = 8;
/**
 * ... and with these limits: room for every id the workload uses (600 of the workers, the
 * poisoner's, and three fresh ones per import), but not for a poison request's 20,001 points;
 * and the one collection the workload writes to.
 */
export const MAX_POINTS = 20_000;
export const MAX_COLLECTIONS = 1;

/** The poisoner's own ids with a new payload, then enough new ones to take any collection past MAX_POINTS. */
function pastThePointLimit(ids: number[]): { id: number; vector: number[]; payload: Record<string, unknown> }[] {
  const points: { id: number; vector: number[]; payload: Record<string, unknown> }[] = ids.map((id) => ({ id, vector: [1, 0, 0, 0], payload: { poisoned: true } }));
  for (let i = 0; points.length <= MAX_POINTS; i++) points.push({ id: 10_000_000 + i, vector: [0, 1, 0, 0], payload: {} });
  return points;
}

/** `{"deep": [[[...]]]}` nested `levels` arrays deep, written as text (JSON.stringify would overflow first). */
const deepPayloadJson = (levels: number): string => `{"deep":${'['.repeat(levels)}${']'.repeat(levels)}}`;

function nestedObject(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = { k: 'x' };
  for (let i = 1; i < levels; i++) v = { k: v };
  return v;
}

const MEMORY_ATTACK = 'UNWIND range(1, 2000) AS i WITH i, range(1, 1000000) AS r RETURN count(*)';

interface Poison {
  name: string;
  /** What the refusal's message must say. */
  refusal: RegExp;
  send(client: HttpClient, ids: number[]): Promise<{ status: number; text: string }>;
}

const upsertRaw = (client: HttpClient, id: number, payloadJson: string) =>
  client.send('PUT', `/collections/${COLLECTION}/points`, `{"points":[{"id":${id},"vector":[0,0,0,0],"payload":${payloadJson}}]}`);

const cypher = (client: HttpClient, query: string, parameters: Record<string, unknown> = {}) =>
  client.send('POST', `/collections/${COLLECTION}/graph/query`, JSON.stringify({ query, parameters }));

const POISONS: Poison[] = [
  { name: 'an upsert of a payload nested 4,000 deep', refusal: /nested more than 256 levels deep/, send: (c, [id]) => upsertRaw(c, id!, deepPayloadJson(4000)) },
  {
    name: 'an import of a file whose payload nests 4,000 deep',
    refusal: /payload nests .*SERVICE_MAX_PAYLOAD_DEPTH/,
    send: (c, [id]) =>
      c.send('POST', `/collections/${COLLECTION}/import?mode=merge`, craftedImport(IMPORT_CONFIG, [{ id: id!, vector: Array(DIM).fill(0), payloadJson: deepPayloadJson(4000) }]), 'application/octet-stream'),
  },
  { name: 'an upsert of a payload nested 65 deep', refusal: /more than 64 levels deep.*SERVICE_MAX_PAYLOAD_DEPTH/, send: (c, [id]) => upsertRaw(c, id!, JSON.stringify(nestedObject(65))) },
  { name: 'an upsert of a payload over 1 MiB', refusal: /SERVICE_MAX_PAYLOAD_BYTES/, send: (c, [id]) => upsertRaw(c, id!, JSON.stringify({ text: 'x'.repeat(2 ** 20) })) },
  { name: 'a Cypher query past its memory budget', refusal: /MemoryLimitExceeded/, send: (c) => cypher(c, MEMORY_ATTACK) },
  {
    name: 'a Cypher write that runs past its memory budget after its SET',
    refusal: /MemoryLimitExceeded/,
    send: (c, ids) => cypher(c, `MATCH (n) WHERE id(n) IN $ids SET n.poisoned = true WITH count(n) AS c ${MEMORY_ATTACK}`, { ids }),
  },
  {
    name: 'an upsert that would take the collection past SERVICE_MAX_POINTS_PER_COLLECTION',
    refusal: /more than the limit of 20000 \(SERVICE_MAX_POINTS_PER_COLLECTION\)/,
    send: (c, ids) => c.send('PUT', `/collections/${COLLECTION}/points`, JSON.stringify({ points: pastThePointLimit(ids) })),
  },
  {
    name: 'an import that would take the collection past SERVICE_MAX_POINTS_PER_COLLECTION',
    refusal: /SERVICE_MAX_POINTS_PER_COLLECTION/,
    send: (c, ids) =>
      c.send(
        'POST',
        `/collections/${COLLECTION}/import?mode=merge`,
        craftedImport(IMPORT_CONFIG, pastThePointLimit(ids).map((p) => ({ id: p.id, vector: p.vector, payloadJson: JSON.stringify(p.payload) }))),
        'application/octet-stream',
      ),
  },
  { name: 'a collection past SERVICE_MAX_COLLECTIONS', refusal: /SERVICE_MAX_COLLECTIONS/, send: (c) => c.send('PUT', '/collections/one-too-many', JSON.stringify({ vectors: { size: 4, distance: 'Euclid' } })) },
  { name: 'Cypher text nested 20,000 deep', refusal: /NestingTooDeep/, send: (c) => cypher(c, 'RETURN ' + '('.repeat(20000) + '1' + ')'.repeat(20000)) },
  {
    name: 'a Cypher write whose value nests 20,000 deep',
    refusal: /NestingTooDeep/,
    send: (c, ids) => cypher(c, 'MATCH (n) WHERE id(n) IN $ids SET n.poisoned = ' + '['.repeat(20000) + ']'.repeat(20000), { ids }),
  },
];

/** Which poison goes next (kept across cycles, so every kind is sent), and how many of each were refused as they must be. */
export class PoisonTally {
  next = 0;
  readonly refused = new Map<string, number>(POISONS.map((p) => [p.name, 0]));

  get total(): number {
    return [...this.refused.values()].reduce((a, b) => a + b, 0);
  }
}

const vectorFor = (id: number, round: number): number[] => [Math.cos(id + round), Math.sin(round), (id % 5) / 5, 1];

/**
 * Between good upserts of its own ids, sends every kind of poison input in turn, aimed at those
 * ids. Each must be refused with a 4xx naming why, and the ids must read back as the model holds
 * them; a difference is a problem (answers lost to the kill are not).
 */
export async function poisoner(client: HttpClient, model: Model, base: number, span: number, stop: () => boolean, inflight: InFlight[], tally: PoisonTally, problems: string[]): Promise<void> {
  for (let round = 0; !stop(); round++) {
    const id = base + (round % span);
    const point: ModelPoint = { vector: vectorFor(id, round).map(Math.fround), payload: { poisoner: round } };
    const flight: InFlight = { kind: 'upsert', before: new Map([[id, model.points.get(id)]]), after: new Map([[id, point]]) };
    inflight.push(flight);
    const res = (await client.json('PUT', `/collections/${COLLECTION}/points`, JSON.stringify({ points: [{ id, ...point }] }))) as { result: { operation_id: number } };
    inflight.splice(inflight.indexOf(flight), 1);
    model.upsert(id, point);
    model.maxOperationId = Math.max(model.maxOperationId, res.result.operation_id);
    model.noteAcknowledged();

    const poison = POISONS[tally.next++ % POISONS.length]!;
    const targets = Array.from({ length: Math.min(span, round + 1) }, (_, i) => base + i);
    const answer = await poison.send(client, targets);
    if (answer.status < 400 || answer.status > 499 || !poison.refusal.test(answer.text)) problems.push(`${poison.name} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    else tally.refused.set(poison.name, tally.refused.get(poison.name)! + 1);
    const read = (await client.json('POST', `/collections/${COLLECTION}/points`, JSON.stringify({ ids: targets, with_payload: true, with_vector: true }))) as { result: { id: number; vector: number[]; payload: unknown }[] };
    const found = new Map(read.result.map((p) => [p.id, p]));
    for (const target of targets) {
      const expected = model.points.get(target)!;
      const actual = found.get(target);
      if (JSON.stringify(actual?.payload) !== JSON.stringify(expected.payload) || JSON.stringify(actual?.vector) !== JSON.stringify(expected.vector))
        problems.push(`${poison.name} changed point ${target}: ${JSON.stringify(actual).slice(0, 200)}, acknowledged ${JSON.stringify(expected)}`);
    }
  }
}
