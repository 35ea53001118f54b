import neo4j, { type Driver } from 'neo4j-driver';
import { loadavg } from 'node:os';
import { HttpClient } from '../lib/http-client.js';
import { exited, spawnServer } from '../lib/spawn-server.js';
import { boltPort } from './cypher-load-bench.js';
import { fmt, percentile } from './table.js';

/** A long read-only query: a few seconds of one core, whatever the data. */
const LONG = 'UNWIND range(1, 6000000) AS x WITH x WHERE x % 3 = 0 RETURN count(x) AS n';

type Row = (string | number)[];

/** Each measurement is taken this many times and the fastest kept: other jobs on a shared machine only ever slow a run down. */
const ROUNDS = 3;

interface Probed {
  seconds: number;
  health: Float64Array;
}

/** The fastest of `rounds` runs, with the /healthz latencies of all of them. */
async function bestOf(rounds: number, run: () => Promise<Probed>): Promise<Probed> {
  const runs: Probed[] = [];
  for (let i = 0; i < rounds; i++) runs.push(await run());
  const health = Float64Array.from(runs.flatMap((r) => [...r.health])).sort();
  return { seconds: Math.min(...runs.map((r) => r.seconds)), health };
}

async function longQuery(client: HttpClient): Promise<void> {
  const res = await client.send('POST', '/collections/side/graph/query', JSON.stringify({ query: LONG }));
  if (res.status !== 200) throw new Error(`the long query answered ${res.status}: ${res.text.slice(0, 300)}`);
}

/** The long query as an auto-commit read over Bolt (session.run; a transaction would keep it on the request thread). */
async function longBoltQuery(driver: Driver): Promise<void> {
  const session = driver.session({ database: 'side', defaultAccessMode: neo4j.session.READ });
  try {
    await session.run(LONG);
  } finally {
    await session.close();
  }
}

/** Between two /healthz requests: the prober must not take the cores the queries are measured on. */
const PROBE_GAP_MS = 5;

/** Runs `work` while /healthz is asked every few milliseconds; answers the seconds `work` took and the /healthz latencies. */
async function whileProbing(probe: HttpClient, work: () => Promise<unknown>): Promise<Probed> {
  const times: number[] = [];
  let done = false;
  const probing = (async () => {
    while (!done) {
      const t0 = performance.now();
      await probe.send('GET', '/healthz');
      times.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, PROBE_GAP_MS));
    }
  })();
  const t0 = performance.now();
  await work();
  const seconds = (performance.now() - t0) / 1000;
  done = true;
  await probing;
  return { seconds, health: Float64Array.from(times).sort() };
}

/**
 * Two long read-only Cypher queries sent together next to one alone, and /healthz's p99 while
 * the two run, over REST and over Bolt (auto-commit reads), with Cypher on the request thread
 * only (SERVICE_CYPHER_WORKERS=0), the default (one replica on a machine with more than one
 * core) and two replicas. A fresh server for each; the fastest of three runs of each, the
 * /healthz p99 over all three, and the machine's 1-minute load average when the setting began.
 */
export async function benchCypherSideBySide(dataDir: (name: string) => string, log: (m: string) => void): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [label, workers] of [['SERVICE_CYPHER_WORKERS=0 (request thread)', '0'], ['default (1 replica on 2 cores)', ''], ['SERVICE_CYPHER_WORKERS=2', '2']] as const) {
    log(`cypher-load: two long queries side by side, ${label}...`);
    const server = await spawnServer(dataDir(`side-${workers || 'default'}`), { SERVICE_CYPHER_WORKERS: workers });
    const client = new HttpClient(server.url, 4);
    const probe = new HttpClient(server.url, 1);
    let driver: Driver | null = null;
    try {
      await client.json('PUT', '/collections/side', JSON.stringify({ vectors: { size: 4, distance: 'Cosine' } }));
      driver = neo4j.driver(`bolt://127.0.0.1:${await boltPort(server.output)}`, neo4j.auth.basic('neo4j', 'bench'));
      const bolt = driver;
      for (const [protocol, query] of [['REST', () => longQuery(client)], ['Bolt', () => longBoltQuery(bolt)]] as const) {
        const load = loadavg()[0]!;
        // Starts the replicas (the first read query does) and warms the code up.
        await query();
        const one = await bestOf(ROUNDS, () => whileProbing(probe, () => query()));
        const two = await bestOf(ROUNDS, () => whileProbing(probe, () => Promise.all([query(), query()])));
        rows.push([protocol, label, `${fmt(one.seconds, 2)} s`, `${fmt(two.seconds, 2)} s`, `${fmt(two.seconds / one.seconds, 2)}x`, fmt(percentile(one.health, 99), 1), fmt(percentile(two.health, 99), 1), fmt(two.health.length), fmt(load, 1)]);
      }
    } finally {
      await driver?.close();
      client.close();
      probe.close();
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
  }
  return rows;
}
