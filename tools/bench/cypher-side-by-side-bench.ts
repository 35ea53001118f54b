import { HttpClient } from '../lib/http-client.js';
import { exited, spawnServer } from '../lib/spawn-server.js';
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
 * the two run, with Cypher on the request thread only (SERVICE_CYPHER_WORKERS=0), the default
 * (one replica on a machine with more than one core) and two replicas. A fresh server for each;
 * the fastest of three runs of each, and the /healthz p99 over all three.
 */
export async function benchCypherSideBySide(dataDir: (name: string) => string, log: (m: string) => void): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [label, workers] of [['SERVICE_CYPHER_WORKERS=0 (request thread)', '0'], ['default (1 replica on 2 cores)', ''], ['SERVICE_CYPHER_WORKERS=2', '2']] as const) {
    log(`cypher-load: two long queries side by side, ${label}...`);
    const server = await spawnServer(dataDir(`side-${workers || 'default'}`), { SERVICE_CYPHER_WORKERS: workers });
    const client = new HttpClient(server.url, 4);
    const probe = new HttpClient(server.url, 1);
    try {
      await client.json('PUT', '/collections/side', JSON.stringify({ vectors: { size: 4, distance: 'Cosine' } }));
      // Starts the replicas (the first read query does) and warms the code up.
      await longQuery(client);
      const one = await bestOf(ROUNDS, () => whileProbing(probe, () => longQuery(client)));
      const two = await bestOf(ROUNDS, () => whileProbing(probe, () => Promise.all([longQuery(client), longQuery(client)])));
      rows.push([label, `${fmt(one.seconds, 2)} s`, `${fmt(two.seconds, 2)} s`, `${fmt(two.seconds / one.seconds, 2)}x`, fmt(percentile(one.health, 99), 1), fmt(percentile(two.health, 99), 1), fmt(two.health.length)]);
    } finally {
      client.close();
      probe.close();
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
  }
  return rows;
}
