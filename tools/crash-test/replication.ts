import { rmSync } from 'node:fs';
import { HttpClient } from '../lib/http-client.js';
import { ReplicaSet } from '../lib/replica-set.js';
import { checkAgainstModel } from './check.js';
import { Model } from './model.js';
import { COLLECTION, DIM, worker, type InFlight } from './workload.js';

export interface ReplicationCrashReport {
  cycles: number;
  acknowledged: number;
  lost: number;
  kills: { primary: number; replica: number; nats: number };
  problems: string[];
}

type Victim = 'primary' | 'replica' | 'nats';

const WORKERS = 4;
const SPAN = 150;
const ACKNOWLEDGED_BEFORE_KILL = 20;
const REPLICAS = 2;
/** How long the set waits for every server to hold what the primary published, before it is checked. */
const CATCH_UP_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** Waits until `url` has applied `opId` (a read with X-Min-Operation-Id); false when it does not in time. */
async function caughtUp(url: string, opId: number): Promise<boolean> {
  const deadline = Date.now() + CATCH_UP_MS;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/collections/${COLLECTION}/exists`, { headers: { 'X-Min-Operation-Id': String(opId) } });
      if (res.ok) return true;
    } catch {
      // starting
    }
    await sleep(100);
  }
  return false;
}

/**
 * Waits until the primary has published every entry it holds (writes that timed out while the
 * stream had no leader are published, and applied, once it has one); answers the operation_id
 * the stream then holds through, or null when it does not settle in time.
 */
async function settled(url: string): Promise<number | null> {
  const deadline = Date.now() + CATCH_UP_MS;
  while (Date.now() < deadline) {
    const { result } = (await (await fetch(`${url}/replication`)).json()) as { result: { published_operation_id: number; unpublished_entries: number } };
    if (result.unpublished_entries === 0) return result.published_operation_id;
    await sleep(100);
  }
  return null;
}

/**
 * Replication under kills: a primary and two replicas over a 3-node JetStream cluster take
 * concurrent sync writes; each cycle SIGKILLs the primary (a replica is promoted, the old
 * primary must come back fenced, and then rejoins as a replica from a fresh bootstrap), a
 * replica (it restarts and catches up) or a NATS node (the stream goes on with two), at a
 * random moment. After each, every server must hold every acknowledged write, and an entry
 * in flight at the kill must be there whole or not at all, the same on every server.
 */
export async function runReplicationCrashTest(dir: string, cycles: number, say: (line: string) => void = () => {}, cycleDone: (cycle: number) => void = () => {}): Promise<ReplicationCrashReport> {
  const set = await ReplicaSet.start(dir, REPLICAS, { SERVICE_SNAPSHOT_EVERY: '200' });
  const model = new Model();
  const problems: string[] = [];
  const kills = { primary: 0, replica: 0, nats: 0 };
  let acknowledged = 0;
  let lost = 0;
  let primary = 'primary';
  let replicas = Array.from({ length: REPLICAS }, (_, i) => `replica${i + 1}`);
  let spare = REPLICAS;
  try {
    await new HttpClient(set.url(primary), 1).json('PUT', `/collections/${COLLECTION}`, JSON.stringify({ vectors: { size: DIM, distance: 'Euclid' } }));
    for (let cycle = 1; cycle <= cycles; cycle++) {
      const client = new HttpClient(set.url(primary), WORKERS + 1);
      const inflight: InFlight[] = [];
      let stopped = false;
      let ended = false;
      // A writer whose request fails after the kill stops there; its write stays in flight.
      const writers = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(client, model, w * SPAN, SPAN, () => stopped, inflight, cycle * 1000 + w).catch(() => undefined))).finally(() => (ended = true));
      while (!ended && model.acknowledgedUncounted < ACKNOWLEDGED_BEFORE_KILL) await sleep(10);
      await sleep(Math.random() * 500);
      const victim: Victim = pick(['primary', 'replica', 'nats']);
      kills[victim]++;
      let detail: string;
      if (victim === 'primary') {
        await set.kill(primary);
        stopped = true;
        await writers;
        const promoted = pick(replicas);
        const res = await fetch(`${set.url(promoted)}/replication/promote`, { method: 'POST' });
        if (!res.ok) problems.push(`cycle ${cycle}: promoting ${promoted} answered ${res.status}: ${await res.text()}`);
        const old = primary;
        await set.startServer(old, 'primary');
        const fenced = await fetch(`${set.url(old)}/collections/${COLLECTION}/points`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ points: [{ id: 0, vector: Array(DIM).fill(0) }] }) });
        if (fenced.status !== 503) problems.push(`cycle ${cycle}: the old primary ${old}, restarted after ${promoted} was promoted, answered a write with ${fenced.status}, not 503 (fenced)`);
        await set.kill(old);
        // It rejoins as a replica of the new primary, from a fresh bootstrap.
        rmSync(set.dataDir(old), { recursive: true, force: true });
        set.primaryUrl = set.url(promoted);
        const rejoined = `replica${++spare}`;
        await set.startServer(rejoined, 'replica');
        primary = promoted;
        replicas = [...replicas.filter((r) => r !== promoted), rejoined];
        detail = `primary killed, ${promoted} promoted, the old primary fenced and back as ${rejoined}`;
      } else if (victim === 'replica') {
        const name = pick(replicas);
        await set.kill(name);
        await sleep(300);
        stopped = true;
        await writers;
        await set.startServer(name, 'replica');
        detail = `${name} killed and restarted`;
      } else {
        const node = Math.floor(Math.random() * set.nats.size);
        await set.nats.kill(node);
        await sleep(1_000);
        stopped = true;
        await writers;
        set.nats.restart(node);
        await set.nats.ready();
        detail = `NATS node ${node + 1} killed and restarted`;
      }
      client.close();
      acknowledged += model.acknowledgedSinceCount();
      const through = await settled(set.url(primary));
      if (through === null) problems.push(`cycle ${cycle}: the primary ${primary} still had unpublished entries after ${CATCH_UP_MS} ms`);
      let cycleLost = 0;
      for (const [i, name] of [primary, ...replicas].entries()) {
        if (through === null) break;
        if (!(await caughtUp(set.url(name), through))) {
          problems.push(`cycle ${cycle}: ${name} did not apply operation ${through} within ${CATCH_UP_MS} ms`);
          continue;
        }
        // The primary decides the writes in flight; every replica must then match the model exactly.
        const check = await checkAgainstModel(set.url(name), model, i === 0 ? inflight : []);
        problems.push(...check.problems.map((p) => `cycle ${cycle}: ${name}: ${p}`));
        cycleLost += check.lost;
      }
      lost += cycleLost;
      cycleDone(cycle);
      say(`cycle ${cycle}: ${detail}; ${model.points.size} points, ${inflight.length} in flight at the kill, ${cycleLost} acknowledged writes lost`);
    }
  } finally {
    await set.stop();
  }
  return { cycles, acknowledged, lost, kills, problems };
}
