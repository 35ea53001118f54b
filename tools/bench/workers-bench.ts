import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { exited, spawnServer, type ChildServer } from '../lib/spawn-server.js';
import { HttpClient, runConcurrent } from '../lib/http-client.js';
import type { Dataset } from './dataset.js';
import { fmt, percentile } from './table.js';

const COLLECTION = 'w';
/** Searches in one batch request, as the issue measures. */
const BATCH = 64;
/** The searches of one of another client's large batches, and how many it sends, beside one client's single searches. */
const LARGE_BATCH = 256;
const LARGE_BATCHES = 20;
/** Another client's bulk upserts beside one client's single searches: points a request, requests, and the first id (past the loaded points). */
const BULK_POINTS = 1_000;
const BULK_UPSERTS = 10;
const BULK_FIRST_ID = 10_000_000;
/**
 * The default pool's server takes a database snapshot every this many writes
 * (SERVICE_SNAPSHOT_EVERY): the snapshot row sends that many, and the bulk upserts after it,
 * fewer, bring none (the bytes they log stay below SERVICE_SNAPSHOT_EVERY_BYTES's default).
 */
const SNAPSHOT_EVERY = 16;
/** Batch request bodies made ahead (each phase's requests take them in turn). */
const BATCH_BODIES = 30;

/**
 * `count` request bodies encoded before any is sent, answered in turn: the load generator shares
 * the server's cores, and encoding a batch's 8,192 numbers for each request cost it about 35 µs
 * of CPU a search, more than the server's parse of them (about 20).
 */
function madeAhead(count: number, body: (i: number) => unknown): (i: number) => string {
  const encoded = Array.from({ length: count }, (_, i) => JSON.stringify(body(i)));
  return (i) => encoded[i % count]!;
}

interface Setup {
  what: string;
  env: Record<string, string>;
  server?: ChildServer;
}

interface Phase {
  what: string;
  clients: number;
  requests: number;
  searchesPerRequest: number;
  path: string;
  body: (i: number) => string;
}

async function green(client: HttpClient): Promise<void> {
  const status = async () => ((await client.json('GET', `/collections/${COLLECTION}`)) as { result: { status: string } }).result.status;
  while ((await status()) !== 'green') await new Promise((r) => setTimeout(r, 200));
}

/** Runs one phase against one server; answers seconds taken and the requests' latencies. */
async function run(url: string, p: Phase): Promise<{ seconds: number; latencies: Float64Array }> {
  const client = new HttpClient(url, p.clients);
  const start = performance.now();
  const latencies = await runConcurrent(p.requests, p.clients, async (i) => {
    const res = await client.send('POST', p.path, p.body(i));
    if (res.status !== 200) throw new Error(`${p.path} answered ${res.status}: ${res.text.slice(0, 300)}`);
  });
  const seconds = (performance.now() - start) / 1000;
  client.close();
  return { seconds, latencies };
}

/** Single searches from one client until `busy` settles (at least `least` of them); their latencies in ms, sorted. */
async function latenciesDuring(url: string, body: (i: number) => string, least: number, busy: Promise<unknown>): Promise<Float64Array> {
  let settled = false;
  void busy.finally(() => (settled = true));
  const client = new HttpClient(url, 1);
  const out: number[] = [];
  for (let i = 0; i < least || !settled; i++) {
    const start = performance.now();
    const res = await client.send('POST', `/collections/${COLLECTION}/points/search`, body(i));
    if (res.status !== 200) throw new Error(`search answered ${res.status}: ${res.text.slice(0, 300)}`);
    out.push(performance.now() - start);
  }
  client.close();
  return Float64Array.from(out).sort();
}

/**
 * Reads a response to its end and drops it: the export's 50 MB, which HttpClient would decode
 * into one string on this process's thread, delaying the searches measured beside it.
 */
function download(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}`));
      res.on('end', () => resolve()).on('error', reject).resume();
    }).on('error', reject);
  });
}

/** Resolves once `dir` holds a snapshot at or after operation `opId` (written, fsynced and renamed into place). */
async function snapshotFile(dir: string, opId: number): Promise<void> {
  const at = (name: string) => Number(/^snapshot-(\d{16})\.snap$/.exec(name)?.[1] ?? -1);
  while (!readdirSync(dir).some((name) => at(name) >= opId)) await new Promise((r) => setTimeout(r, 5));
}

/**
 * One client's search latency idle, and while a long Cypher query, a collection snapshot (an
 * export to a file) and an export run on the same server (the query starts the Cypher replica
 * and, once it has loaded, the snapshot and the export are encoded there; the database
 * snapshot on the request thread, in slices): each alone, then the three at once; then while the database snapshot that
 * SNAPSHOT_EVERY writes of `vector` bring is written into `snapshotDir`; last, while another
 * client sends large batch searches, and while another client upserts batches of points (each
 * body parsed on a parser thread, SERVICE_JSON_OFF_THREAD_BYTES, then checked and encoded in
 * slices), which bring no snapshot.
 */
async function searchesUnderLoad(url: string, body: (i: number) => string, snapshotDir: string, vector: number[]): Promise<(string | number)[][]> {
  const idle = await latenciesDuring(url, body, 600, Promise.resolve());
  const request = (method: string, path: string, sent?: string) => async (client: HttpClient) => {
    const a = await client.send(method, path, sent);
    if (a.status !== 200) throw new Error(`background request answered ${a.status}: ${a.text.slice(0, 300)}`);
  };
  const background: [string, (client: HttpClient) => Promise<void>][] = [
    ['a long Cypher query runs', request('POST', `/collections/${COLLECTION}/graph/query`, JSON.stringify({ query: 'UNWIND range(1, 3000000) AS x WITH x WHERE x % 7 = 0 RETURN count(*) AS n' }))],
    ['a collection snapshot runs', request('POST', `/collections/${COLLECTION}/snapshots`)],
    ['an export runs', () => download(`${url}/collections/${COLLECTION}/export`)],
  ];
  const databaseSnapshot: [string, (client: HttpClient) => Promise<void>] = [
    `the database snapshot is written (brought by the ${SNAPSHOT_EVERY}th of ${SNAPSHOT_EVERY} one-point writes, SERVICE_SNAPSHOT_EVERY=${SNAPSHOT_EVERY})`,
    async (client) => {
      let opId = 0;
      for (let i = 0; i < SNAPSHOT_EVERY; i++) {
        const a = await client.send('PUT', `/collections/${COLLECTION}/points?wait=true`, JSON.stringify({ points: [{ id: 0, vector, payload: { i } }] }));
        if (a.status !== 200) throw new Error(`the write answered ${a.status}: ${a.text.slice(0, 300)}`);
        opId = (JSON.parse(a.text) as { result: { operation_id: number } }).result.operation_id;
      }
      await snapshotFile(snapshotDir, opId);
    },
  ];
  // Large batches from another client: its walks take every worker for as long as each batch runs.
  const largeBatch = JSON.stringify({ searches: Array.from({ length: LARGE_BATCH }, (_, i) => ({ ...(JSON.parse(body(i)) as object), params: { hnsw_ef: 128 } })) });
  const largeBatches: [string, (client: HttpClient) => Promise<void>] = [
    `another client sends batch searches (${LARGE_BATCHES} requests of ${LARGE_BATCH} searches at ef 128, one after another)`,
    async (client) => {
      for (let i = 0; i < LARGE_BATCHES; i++) await request('POST', `/collections/${COLLECTION}/points/search/batch`, largeBatch)(client);
    },
  ];
  const bulk = Array.from({ length: BULK_UPSERTS }, (_, k) =>
    JSON.stringify({ points: Array.from({ length: BULK_POINTS }, (_, i) => ({ id: BULK_FIRST_ID + k * BULK_POINTS + i, vector: (JSON.parse(body(i)) as { vector: number[] }).vector, payload: { k } })) }),
  );
  const bulkUpserts: [string, (client: HttpClient) => Promise<void>] = [
    `another client upserts points (${BULK_UPSERTS} requests of ${fmt(BULK_POINTS)} new points, one after another)`,
    async (client) => {
      for (const sent of bulk) await request('PUT', `/collections/${COLLECTION}/points?wait=true`, sent)(client);
    },
  ];
  const p = (l: Float64Array, q: number) => fmt(percentile(l, q), 2);
  const rows: (string | number)[][] = [];
  for (const chosen of [...background.map((b) => [b]), background, [databaseSnapshot], [largeBatches], [bulkUpserts]]) {
    const other = new HttpClient(url, chosen.length);
    const started = performance.now();
    const busy = Promise.all(chosen.map(([, run]) => run(other))).then(() => (performance.now() - started) / 1000);
    const during = await latenciesDuring(url, body, 300, busy);
    const seconds = await busy;
    other.close();
    rows.push([
      `single searches, 1 client, while ${chosen.length > 1 ? 'all three run' : chosen[0]![0]} (default pool)`,
      `p99 ${p(during, 99)} ms vs ${p(idle, 99)} ms idle: ${fmt(percentile(during, 99) / percentile(idle, 99), 1)}x`,
      `p50 ${p(during, 50)} vs ${p(idle, 50)} ms, slowest ${fmt(during[during.length - 1]!, 1)} vs ${fmt(idle[idle.length - 1]!, 1)} ms; the background work took ${fmt(seconds, 1)} s`,
    ]);
  }
  return rows;
}

/**
 * Searches with the default pool of search workers next to SERVICE_WORKERS=1 and 0 (searches
 * on the request thread), on copies of one data dir, all running at once and measured in
 * alternating rounds so that load from elsewhere falls on each alike. The load generator runs
 * in this process, on the same cores.
 */
export async function benchWorkers(ds: Dataset, dir: string, rounds = 3): Promise<(string | number)[][]> {
  const loadDir = join(dir, 'load');
  mkdirSync(loadDir, { recursive: true });
  // The whole log is kept, so that a copy without its snapshots replays every point.
  const server = await spawnServer(loadDir, { SERVICE_LOG_LEVEL: 'info', SERVICE_LOG_RETENTION_BYTES: '0' });
  const loader = new HttpClient(server.url, 4);
  await loader.json('PUT', `/collections/${COLLECTION}`, JSON.stringify({ vectors: { size: ds.dim, distance: ds.distance } }));
  const bodies: string[] = [];
  for (let from = 0; from < ds.count; from += 1_000) {
    const points = [];
    for (let i = from; i < Math.min(ds.count, from + 1_000); i++) points.push({ id: i, vector: Array.from(ds.data.subarray(i * ds.dim, (i + 1) * ds.dim)), payload: { half: i % 2 } });
    bodies.push(JSON.stringify({ points }));
  }
  await runConcurrent(bodies.length, 4, async (b) => void (await loader.json('PUT', `/collections/${COLLECTION}/points`, bodies[b])));
  await green(loader);
  loader.close();
  server.child.kill('SIGTERM');
  await exited(server.child);

  const setups: Setup[] = [
    // SNAPSHOT_EVERY writes bring a database snapshot on the first (searchesUnderLoad); the searches write nothing.
    { what: 'default pool', env: { SERVICE_SNAPSHOT_EVERY: String(SNAPSHOT_EVERY) } },
    { what: 'SERVICE_WORKERS=1', env: { SERVICE_WORKERS: '1' } },
    { what: 'SERVICE_WORKERS=0', env: { SERVICE_WORKERS: '0' } },
  ];
  const queries = Array.from({ length: ds.queryCount }, (_, q) => Array.from(ds.queries.subarray(q * ds.dim, (q + 1) * ds.dim)));
  const single = madeAhead(queries.length, (i) => ({ vector: queries[i], limit: 10, params: { hnsw_ef: 64 } }));
  const batch = madeAhead(BATCH_BODIES, (i) => ({ searches: Array.from({ length: BATCH }, (_, k) => ({ vector: queries[(i * BATCH + k) % queries.length], limit: 10, params: { hnsw_ef: 64 } })) }));
  // Half the points match: a graph walk (not a scan of the matches), on the workers once the filter's bits are kept.
  const half = { must: [{ key: 'half', match: { value: 1 } }] };
  const filteredBatch = madeAhead(BATCH_BODIES, (i) => ({ searches: Array.from({ length: BATCH }, (_, k) => ({ vector: queries[(i * BATCH + k) % queries.length], limit: 10, params: { hnsw_ef: 64 }, filter: half })) }));
  const phases: Phase[] = [
    { what: `batch search (${BATCH} searches a request), 2 clients`, clients: 2, requests: 30, searchesPerRequest: BATCH, path: `/collections/${COLLECTION}/points/search/batch`, body: batch },
    { what: `filtered batch search (${BATCH} searches a request, a filter half the points match), 2 clients`, clients: 2, requests: 30, searchesPerRequest: BATCH, path: `/collections/${COLLECTION}/points/search/batch`, body: filteredBatch },
    ...[1, 4, 16].map((clients) => ({ what: `single searches, ${clients} client${clients > 1 ? 's' : ''}`, clients, requests: 600, searchesPerRequest: 1, path: `/collections/${COLLECTION}/points/search`, body: single })),
  ];
  const totals = phases.map(() => setups.map(() => ({ seconds: 0, latencies: [] as number[] })));
  const rows: (string | number)[][] = [];
  let underLoad: (string | number)[][] = [];
  try {
    // Each server starts from a copy without snapshots: it replays the whole log and links every
    // vector again, one server at a time so that each has the machine to itself.
    for (const [i, s] of setups.entries()) {
      const copy = join(dir, `server-${i}`);
      cpSync(loadDir, copy, { recursive: true });
      rmSync(join(copy, 'snapshots'), { recursive: true, force: true });
      const start = performance.now();
      s.server = await spawnServer(copy, { SERVICE_LOG_LEVEL: 'info', ...s.env });
      const ready = (performance.now() - start) / 1000;
      const client = new HttpClient(s.server.url, 1);
      await green(client);
      client.close();
      rows.push([`${fmt(ds.count)} x ${ds.dim}, full replay of the log and index rebuild, ${s.what}`, `${fmt((performance.now() - start) / 1000, 1)} s to green`, `ready (log replayed) after ${fmt(ready, 1)} s`]);
    }
    // Round -1 warms every server up (JIT, sockets, the workers' first layouts) and is not counted.
    for (let round = -1; round < rounds; round++) {
      for (const [p, phase] of phases.entries()) {
        for (const [i, s] of setups.entries()) {
          const { seconds, latencies } = await run(s.server!.url, phase);
          if (round < 0) continue;
          totals[p]![i]!.seconds += seconds;
          totals[p]![i]!.latencies.push(...latencies);
        }
      }
    }
    underLoad = await searchesUnderLoad(setups[0]!.server!.url, single, join(dir, 'server-0', 'snapshots'), queries[0]!);
  } finally {
    for (const s of setups) s.server?.child.kill('SIGTERM');
    await Promise.all(setups.map((s) => (s.server ? exited(s.server.child) : undefined)));
  }
  const searchRows = phases.map((phase, p) => {
    const rates = totals[p]!.map((t) => (rounds * phase.requests * phase.searchesPerRequest) / t.seconds);
    const sorted = Float64Array.from(totals[p]![0]!.latencies).sort();
    return [
      `${fmt(ds.count)} x ${ds.dim}, ${phase.what}`,
      `${setups.map((s, i) => `${fmt(rates[i]!)} (${s.what})`).join(' vs ')} searches/s: ${fmt(rates[0]! / rates[1]!, 2)}x of one worker`,
      `default pool p50 ${fmt(percentile(sorted, 50), 2)} ms, p99 ${fmt(percentile(sorted, 99), 2)} ms a request`,
    ];
  });
  return [...rows, ...searchRows, ...underLoad];
}
