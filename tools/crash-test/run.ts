import { statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { Engine } from '../../storage/engine/engine.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { searchCollection } from '../../query/search/vector-search.js';
import { HttpClient } from '../lib/http-client.js';
import { exited, spawnServer, type ChildServer } from '../lib/spawn-server.js';
import { checkAgainstModel, checkIdsGoOn } from './check.js';
import { Model } from './model.js';
import { orphanStageFiles } from './orphan-stages.js';
import { MAX_COLLECTIONS, MAX_POINTS, poisoner, PoisonTally, QUERY_MEMORY_MB } from './poison.js';
import { truncatedUnderServer } from './truncated-log.js';
import { COLLECTION, DIM, worker, type InFlight } from './workload.js';

export interface CrashReport {
  cycles: number;
  acknowledged: number;
  lost: number;
  /** Poison inputs refused with the 4xx they must get, each changing nothing. */
  poisonsRefused: number;
  problems: string[];
}

/** The search width of the closing check: above the points a short run writes. */
const SEARCH_EF = 10_000;
const WORKERS = 4;
const ACKNOWLEDGED_BEFORE_KILL = 20;
const SPAN = 150;
const POISONER_SPAN = 5;
const QUERIES = [
  [1, 0, 0, 0],
  [0, 1, 0.5, 2],
  [-0.5, 0.2, 1, 4],
];

async function restart(dataDir: string, env: Record<string, string> = {}): Promise<{ server: ChildServer; client: HttpClient }> {
  const server = await spawnServer(dataDir, { SERVICE_SNAPSHOT_EVERY: '40', SERVICE_LOG_RETENTION: '100000000', SERVICE_LOG_RETENTION_BYTES: '0', SERVICE_QUERY_MEMORY_MB: String(QUERY_MEMORY_MB), SERVICE_MAX_POINTS_PER_COLLECTION: String(MAX_POINTS), SERVICE_MAX_COLLECTIONS: String(MAX_COLLECTIONS), ...env });
  return { server, client: new HttpClient(server.url, WORKERS + 3) };
}

async function kill(server: ChildServer, client: HttpClient): Promise<void> {
  server.child.kill('SIGKILL');
  await exited(server.child);
  client.close();
}

/**
 * Kills the real server at random moments under concurrent acknowledged writes, over many
 * cycles, and checks after each restart that nothing acknowledged is lost, nothing in flight
 * is half applied, no import's stage file is left that no log entry names, and operation_ids go
 * on upward; then that search after recovery equals a
 * rebuild from the log, that a damaged log tail stops start-up until it is repaired, and that
 * a data file cut short stops start-up with a message instead of a crash.
 */
export async function runCrashTest(dataDir: string, cycles: number, say: (line: string) => void = () => {}, cycleDone: (cycle: number) => void = () => {}): Promise<CrashReport> {
  const model = new Model();
  const tally = new PoisonTally();
  const problems: string[] = [];
  let acknowledged = 0;
  let lost = 0;
  let { server, client } = await restart(dataDir);
  // Floats on disk and int8 codes: the file of floats must come back whole after every kill.
  await client.json('PUT', `/collections/${COLLECTION}`, JSON.stringify({ vectors: { size: DIM, distance: 'Euclid', on_disk: true }, quantization_config: { scalar: { type: 'int8' } } }));

  for (let cycle = 1; cycle <= cycles; cycle++) {
    const inflight: InFlight[] = [];
    let stopped = false;
    let killing = false;
    let workersEnded = false;
    // Before the kill every request must succeed; what fails after it is the kill's doing.
    const failure = (err: unknown) => {
      if (!killing) problems.push(`cycle ${cycle}: a writer failed before the kill: ${(err as Error).message}`);
    };
    const writers = Array.from({ length: WORKERS }, (_, w) => worker(client, model, w * SPAN, SPAN, () => stopped, inflight, cycle * 1000 + w).catch(failure));
    writers.push(poisoner(client, model, WORKERS * SPAN, POISONER_SPAN, () => stopped, inflight, tally, problems).catch(failure));
    const runs = Promise.all(writers).finally(() => (workersEnded = true));
    // The kill falls at a random moment once the cycle has acknowledged writes, however slow the machine.
    while (!workersEnded && model.acknowledgedUncounted < ACKNOWLEDGED_BEFORE_KILL) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, Math.random() * 500));
    killing = true;
    await kill(server, client);
    stopped = true;
    await runs;
    acknowledged += model.acknowledgedSinceCount();
    ({ server, client } = await restart(dataDir));
    const check = await checkAgainstModel(server.url, model, inflight);
    problems.push(...check.problems.map((p) => `cycle ${cycle}: ${p}`));
    lost += check.lost;
    problems.push(...(await checkIdsGoOn(client, model)).map((p) => `cycle ${cycle}: ${p}`));
    problems.push(...(await orphanStageFiles(dataDir)).map((p) => `cycle ${cycle}: ${p}`));
    cycleDone(cycle);
    say(`cycle ${cycle}: ${model.points.size} points, ${model.edges.size} edges, ${inflight.length} in flight at the kill, ${check.lost} lost`);
  }

  say(`poison inputs refused, changing nothing: ${[...tally.refused].map(([name, n]) => `${n} × ${name}`).join(', ')}`);
  // The widest search (ef 10,000, past the point count) on both sides: the recovered index and a
  // rebuilt one are different graphs, and a narrow search over either may differ in its last place.
  const overHttp: number[][] = [];
  for (const q of QUERIES) {
    const res = (await client.json('POST', `/collections/${COLLECTION}/points/query`, JSON.stringify({ query: q, limit: 5, with_payload: false, params: { hnsw_ef: SEARCH_EF } }))) as { result: { id: number }[] };
    overHttp.push(res.result.map((p) => p.id));
  }
  await kill(server, client);
  const rebuilt = new Engine(LmdbLog.open(dataDir));
  rebuilt.replay();
  rebuilt.flushIndex();
  const c = rebuilt.collections.get(COLLECTION)!;
  QUERIES.forEach((q, i) => {
    const ids = searchCollection(c, { vector: q, limit: 5, offset: 0, ef: SEARCH_EF, filter: null, scoreThreshold: null }).map((h) => h.id);
    if (JSON.stringify(ids) !== JSON.stringify(overHttp[i])) problems.push(`search ${i} after recovery ${JSON.stringify(overHttp[i])} differs from a rebuild from the log ${JSON.stringify(ids)}`);
  });
  const last = rebuilt.log.lastOperationId;
  await rebuilt.log.close();
  say('search after recovery equals a rebuild from the log');

  problems.push(...(await damagedTail(dataDir, last, model)));
  problems.push(...(await truncatedFile(dataDir)));
  problems.push(...(await truncatedUnderServer(dataDir, say)));
  return { cycles, acknowledged, lost, poisonsRefused: tally.total, problems };
}

/** Flips the newest entry: start-up must refuse, naming it; after `replay repair` it starts without it. */
async function damagedTail(dataDir: string, last: number, model: Model): Promise<string[]> {
  const env = open({ path: dataDir, noSubdir: false });
  const db = env.openDB({ name: 'log', encoding: 'binary' });
  const record = Buffer.from(db.get(last) as Uint8Array);
  record[record.length - 1]! ^= 0xff;
  db.putSync(last, record);
  await env.close();
  let refusal = '';
  try {
    const s = await spawnServer(dataDir, { SERVICE_SNAPSHOT_EVERY: '0' });
    s.child.kill('SIGKILL');
    await exited(s.child);
  } catch (err) {
    refusal = (err as Error).message;
  }
  const problems: string[] = [];
  if (!new RegExp(`log entry ${last} is damaged`).test(refusal) || !/replay -- repair/.test(refusal)) problems.push(`a damaged last entry did not stop start-up with its id and the repair command: ${refusal.slice(0, 300)}`);
  const log = LmdbLog.open(dataDir);
  await log.truncateFrom(last);
  await log.close();
  const { server, client } = await restart(dataDir);
  const check = await checkAgainstModel(server.url, model, []);
  if (check.problems.length > 0) problems.push(`after repair: ${check.problems[0]}`);
  await kill(server, client);
  return problems;
}

/** Cuts the LMDB file short: start-up must refuse with a message, not die of SIGBUS. */
async function truncatedFile(dataDir: string): Promise<string[]> {
  const file = join(dataDir, 'data.mdb');
  truncateSync(file, Math.floor(statSync(file).size / 2 / 4096) * 4096);
  try {
    const s = await spawnServer(dataDir);
    s.child.kill('SIGKILL');
    await exited(s.child);
    return ['the server started on a truncated data file'];
  } catch (err) {
    return /is truncated/.test((err as Error).message) ? [] : [`a truncated data file did not stop start-up with a message: ${(err as Error).message.slice(0, 300)}`];
  }
}
