import { exited, spawnServer } from '../lib/spawn-server.js';
import { HttpClient, runConcurrent } from '../lib/http-client.js';
import { startProgress } from '../lib/progress.js';
import type { Dataset } from './dataset.js';
import { fmt, percentile } from './table.js';

const BATCH = 1_000;

function pointsJson(ds: Dataset, from: number, to: number, idOffset: number): string {
  const points = [];
  for (let i = from; i < to; i++) points.push({ id: idOffset + i, vector: Array.from(ds.data.subarray(i * ds.dim, (i + 1) * ds.dim)), payload: { group: i % 10 } });
  return JSON.stringify({ points });
}

const COLLECTIONS = ['seq', 'par', 'single'];

/** Waits until no collection has vectors waiting for the background indexer. */
async function allIndexed(client: HttpClient): Promise<void> {
  const green = async (name: string) => ((await client.json('GET', `/collections/${name}`)) as { result: { status: string } }).result.status === 'green';
  await waitUntil(async () => (await Promise.all(COLLECTIONS.map(green))).every(Boolean));
}

async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 100));
}

/** Runs `total` requests `concurrency` at a time under a progress line; answers their latencies. */
async function phase(what: string, total: number, concurrency: number, request: (i: number) => Promise<unknown>): Promise<Float64Array> {
  const progress = startProgress(`bench http: ${what}`, total, 'requests');
  try {
    return await runConcurrent(total, concurrency, async (i) => {
      await request(i);
      progress.tick();
    });
  } finally {
    progress.end();
  }
}

/** Durable writes, search latency and start-up replay against the real server over loopback HTTP. */
export async function benchHttp(ds: Dataset, dataDir: string): Promise<(string | number)[][]> {
  const rows: (string | number)[][] = [];
  let server = await spawnServer(dataDir, { SERVICE_LOG_LEVEL: 'info' });
  let client = new HttpClient(server.url, 64);
  const create = JSON.stringify({ vectors: { size: ds.dim, distance: ds.distance } });
  for (const name of COLLECTIONS) await client.json('PUT', `/collections/${name}`, create);

  const batches = Math.floor(ds.count / BATCH);
  const bodies = Array.from({ length: batches }, (_, b) => pointsJson(ds, b * BATCH, (b + 1) * BATCH, 0));
  let start = performance.now();
  await phase('upsert batches of 1,000, 1 client', batches, 1, (b) => client.json('PUT', '/collections/seq/points', bodies[b]));
  let seconds = (performance.now() - start) / 1000;
  rows.push(['durable upsert, batches of 1,000, 1 client', `${fmt((batches * BATCH) / seconds)} points/s`, '']);

  start = performance.now();
  let lat = await phase('upsert batches of 1,000, 4 clients', batches, 4, (b) => client.json('PUT', '/collections/par/points', bodies[b]));
  seconds = (performance.now() - start) / 1000;
  lat.sort();
  rows.push(['durable upsert, batches of 1,000, 4 clients', `${fmt((batches * BATCH) / seconds)} points/s`, `p50 ${fmt(percentile(lat, 50), 1)} ms, p99 ${fmt(percentile(lat, 99), 1)} ms`]);

  const singles = Array.from({ length: 20_000 }, (_, i) => pointsJson(ds, i % ds.count, (i % ds.count) + 1, 0));
  start = performance.now();
  lat = await phase('single-point upserts, 32 clients', singles.length, 32, (i) => client.json('PUT', '/collections/single/points', singles[i]));
  seconds = (performance.now() - start) / 1000;
  lat.sort();
  rows.push(['durable upsert, 32 concurrent single-point writers', `${fmt(singles.length / seconds)} writes/s`, `p50 ${fmt(percentile(lat, 50), 1)} ms, p99 ${fmt(percentile(lat, 99), 1)} ms`]);

  const indexStart = performance.now();
  await allIndexed(client);
  rows.push([`background indexing caught up after the writes (${fmt(2 * batches * BATCH + singles.length)} points)`, `${fmt((performance.now() - indexStart) / 1000, 1)} s`, '']);

  const queries = Array.from({ length: ds.queryCount }, (_, q) => JSON.stringify({ query: Array.from(ds.queries.subarray(q * ds.dim, (q + 1) * ds.dim)), limit: 10, with_payload: false }));
  for (const clients of [1, 8]) {
    const total = clients * 500;
    start = performance.now();
    lat = await phase(`search, ${clients} client${clients > 1 ? 's' : ''}`, total, clients, (i) => client.json('POST', '/collections/par/points/query', queries[i % queries.length]));
    seconds = (performance.now() - start) / 1000;
    lat.sort();
    rows.push([`search over HTTP (ef 100, top 10), ${clients} client${clients > 1 ? 's' : ''}`, `${fmt(total / seconds)} QPS`, `p50 ${fmt(percentile(lat, 50), 2)} ms, p99 ${fmt(percentile(lat, 99), 2)} ms`]);
  }

  client.close();
  server.child.kill('SIGTERM');
  await exited(server.child);
  start = performance.now();
  server = await spawnServer(dataDir, { SERVICE_LOG_LEVEL: 'info' });
  client = new HttpClient(server.url, 1);
  await waitUntil(async () => (await client.send('GET', '/readyz')).status === 200);
  const readyMs = performance.now() - start;
  const reindexStart = performance.now();
  await allIndexed(client);
  const reindexMs = performance.now() - reindexStart;
  const replayed = /"entries":(\d+),"ms":(\d+)/.exec(server.output());
  rows.push([
    `start-up after a clean stop: the shutdown snapshot plus ${replayed ? fmt(Number(replayed[1])) : '?'} log entries (${fmt(2 * batches * BATCH + singles.length)} point writes in all)`,
    `${fmt(readyMs / 1000, 2)} s to ready`,
    replayed ? `snapshot load and log replay ${fmt(Number(replayed[2]) / 1000, 2)} s` : '',
  ]);
  rows.push(['start-up: until every index is whole again (green)', `${fmt(reindexMs / 1000, 1)} s after ready`, '']);
  client.close();
  server.child.kill('SIGTERM');
  await exited(server.child);
  return rows;
}
