import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exited, spawnServer, type ChildServer } from '../lib/spawn-server.js';
import { HttpClient, runConcurrent } from '../lib/http-client.js';
import type { Dataset } from './dataset.js';
import { fmt, percentile } from './table.js';

const BARE = fileURLToPath(new URL('./bare-server.js', import.meta.url));

export interface BareServer {
  child: ChildProcess;
  url: string;
}

/**
 * Starts tools/bench/bare-server over `dataDir` (a copy: the real server holds its own), on
 * node:http alone or (`koa`) through Koa, a router and koa-body; it dies with this process.
 */
export function spawnBareServer(dataDir: string, front: 'bare' | 'koa' = 'bare'): Promise<BareServer> {
  const child = spawn(process.execPath, [BARE, dataDir, `--${front}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const kill = (): void => void child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /\{"port":(\d+)\}/.exec(out);
      if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}` });
    });
    child.once('exit', (code) => reject(new Error(`the bare server exited with ${code} before listening`)));
  });
}

export async function stopBareServer(bare: BareServer): Promise<void> {
  bare.child.kill('SIGTERM');
  await exited(bare.child);
}

interface Target {
  what: string;
  url: string;
  pid?: number;
  path: string;
  body: (q: number) => string;
  seconds: number;
  cpuSeconds: number;
}

/** CPU seconds (user and system) a process has used, from /proc; NaN where there is none. */
function cpuSecondsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * Untimed searches each server answers before the rounds. A server just started runs its
 * request path unoptimised until V8 has compiled it: the real server's (Koa, its middleware,
 * the checks, the logs) took 3,000 to 6,000 searches to settle at half the CPU a search of its
 * first few hundred, the bare server's, a few functions, far fewer. A round of 300 left the
 * real server mostly in that warm-up.
 */
const REQUEST_PATH_WARMUP = 6_000;

/**
 * One client's QPS on /points/query and /points/search of the real server, and of the Koa floor
 * (the same search as the bare server's through Koa, a router and koa-body, nothing more), next
 * to the bare server answering the same searches, in rounds that take turns (real, real, Koa,
 * bare) so that load from elsewhere on a shared machine falls on all alike, after `warmup`
 * untimed searches on each. Answers the table rows.
 */
export async function benchRequestPath(real: { url: string; pid?: number }, koa: { url: string; pid?: number }, bare: { url: string; pid?: number }, collection: string, queries: readonly number[][], rounds = 10, perRound = 300, warmup = REQUEST_PATH_WARMUP): Promise<(string | number)[][]> {
  const query = (q: number) => JSON.stringify({ query: queries[q % queries.length], limit: 10, with_payload: false });
  const search = (q: number) => JSON.stringify({ vector: queries[q % queries.length], limit: 10, with_payload: false });
  const targets: Target[] = [
    { what: 'query', ...real, path: `/collections/${collection}/points/query`, body: query, seconds: 0, cpuSeconds: 0 },
    { what: 'search', ...real, path: `/collections/${collection}/points/search`, body: search, seconds: 0, cpuSeconds: 0 },
    { what: 'koa', ...koa, path: `/collections/${collection}/points/search`, body: search, seconds: 0, cpuSeconds: 0 },
    { what: 'bare', ...bare, path: `/collections/${collection}/points/search`, body: search, seconds: 0, cpuSeconds: 0 },
  ];
  for (let round = -1; round < rounds; round++) {
    for (const t of targets) {
      const client = new HttpClient(t.url, 1);
      const start = performance.now();
      const cpuStart = cpuSecondsOf(t.pid);
      await runConcurrent(round < 0 ? warmup : perRound, 1, async (i) => {
        const res = await client.send('POST', t.path, t.body(i));
        if (res.status !== 200) throw new Error(`${t.path} answered ${res.status}: ${res.text.slice(0, 300)}`);
      });
      // Round -1 warms each server up (JIT, sockets) and is not counted.
      if (round >= 0) {
        t.seconds += (performance.now() - start) / 1000;
        t.cpuSeconds += cpuSecondsOf(t.pid) - cpuStart;
      }
      client.close();
    }
  }
  const qps = (t: Target) => (rounds * perRound) / t.seconds;
  const cpuMicros = (t: Target) => (t.cpuSeconds * 1e6) / (rounds * perRound);
  const floor = targets[3]!;
  const rounding = `same run, ${rounds} alternating rounds of ${fmt(perRound)} after ${fmt(warmup)} untimed`;
  const what = (t: Target) => (t.what === 'koa' ? 'the same search through Koa, @koa/router and koa-body alone (no other middleware, checks, logs or metrics)' : `POST /points/${t.what}`);
  return targets.slice(0, 3).map((t) => [
    `search over HTTP, 1 client, ${what(t)} vs a bare node:http server running the same search (${rounding})`,
    `${fmt(qps(t))} vs ${fmt(qps(floor))} QPS: ratio ${fmt(qps(t) / qps(floor), 2)}`,
    `server CPU ${fmt(cpuMicros(t))} vs ${fmt(cpuMicros(floor))} µs a request`,
  ]);
}

/**
 * Single-point upserts from `clients` concurrent writers (each acknowledged once durable), on
 * the real server and on the bare server's same engine over LMDB, in alternating rounds after
 * `warmup` untimed writes on each.
 * Answers the table rows: writes/s, and the server's CPU time a write.
 */
export async function benchSmallWrites(real: { url: string; pid?: number }, bare: { url: string; pid?: number }, collection: string, bodies: readonly string[], clients = 32, rounds = 4, perRound = 2_500, warmup = REQUEST_PATH_WARMUP): Promise<(string | number)[][]> {
  const targets = [
    { what: 'real', ...real, seconds: 0, cpuSeconds: 0, latencies: [] as number[] },
    { what: 'bare', ...bare, seconds: 0, cpuSeconds: 0, latencies: [] as number[] },
  ];
  let next = 0;
  for (let round = -1; round < rounds; round++) {
    for (const t of targets) {
      const client = new HttpClient(t.url, clients);
      const start = performance.now();
      const cpuStart = cpuSecondsOf(t.pid);
      const lat = await runConcurrent(round < 0 ? warmup : perRound, clients, async () => {
        const res = await client.send('PUT', `/collections/${collection}/points`, bodies[next++ % bodies.length]);
        if (res.status !== 200) throw new Error(`PUT /collections/${collection}/points answered ${res.status}: ${res.text.slice(0, 300)}`);
      });
      if (round >= 0) {
        t.seconds += (performance.now() - start) / 1000;
        t.cpuSeconds += cpuSecondsOf(t.pid) - cpuStart;
        t.latencies.push(...lat);
      }
      client.close();
    }
  }
  const rate = (t: (typeof targets)[number]) => (rounds * perRound) / t.seconds;
  const [server, floor] = targets as [(typeof targets)[number], (typeof targets)[number]];
  const sorted = Float64Array.from(server.latencies).sort();
  return [
    [
      `durable single-point upserts, ${clients} clients, vs a bare node:http server on the same engine and LMDB (same run, ${rounds} alternating rounds of ${fmt(perRound)} after ${fmt(warmup)} untimed)`,
      `${fmt(rate(server))} vs ${fmt(rate(floor))} writes/s: ratio ${fmt(rate(server) / rate(floor), 2)}`,
      `p50 ${fmt(percentile(sorted, 50), 1)} ms, p99 ${fmt(percentile(sorted, 99), 1)} ms; server CPU ${fmt((server.cpuSeconds * 1e6) / (rounds * perRound))} vs ${fmt((floor.cpuSeconds * 1e6) / (rounds * perRound))} µs a write`,
    ],
  ];
}

/** Points in the collection both servers search and write (the request path, not the index, is measured). */
const POINTS = 20_000;
const COLLECTION = 'rp';

async function green(client: HttpClient): Promise<void> {
  const status = async () => ((await client.json('GET', `/collections/${COLLECTION}`)) as { result: { status: string } }).result.status;
  while ((await status()) !== 'green') await new Promise((r) => setTimeout(r, 100));
}

/**
 * The real server's request path next to a bare node:http server over the same data: a
 * collection of up to 20,000 points is written through the real server, which is then stopped;
 * its data dir is copied for the bare server and the Koa floor, all start from the same snapshot
 * (so build the same index), and the searches and writes above run against them in alternating
 * rounds (the writes against the real and the bare server).
 */
export async function benchRequestPathVsBare(ds: Dataset, dir: string): Promise<(string | number)[][]> {
  const realDir = join(dir, 'real');
  const bareDir = join(dir, 'bare');
  const koaDir = join(dir, 'koa');
  mkdirSync(realDir, { recursive: true });
  const count = Math.min(POINTS, ds.count);
  const pointsJson = (from: number, to: number) => {
    const points = [];
    for (let i = from; i < to; i++) points.push({ id: i, vector: Array.from(ds.data.subarray(i * ds.dim, (i + 1) * ds.dim)), payload: { group: i % 10 } });
    return JSON.stringify({ points });
  };
  let server: ChildServer = await spawnServer(realDir, { SERVICE_LOG_LEVEL: 'info' });
  let client = new HttpClient(server.url, 4);
  await client.json('PUT', `/collections/${COLLECTION}`, JSON.stringify({ vectors: { size: ds.dim, distance: ds.distance } }));
  for (let from = 0; from < count; from += 1_000) await client.json('PUT', `/collections/${COLLECTION}/points`, pointsJson(from, Math.min(count, from + 1_000)));
  client.close();
  server.child.kill('SIGTERM');
  await exited(server.child);
  cpSync(realDir, bareDir, { recursive: true });
  cpSync(realDir, koaDir, { recursive: true });

  server = await spawnServer(realDir, { SERVICE_LOG_LEVEL: 'info' });
  const bare = await spawnBareServer(bareDir);
  const koa = await spawnBareServer(koaDir, 'koa');
  try {
    client = new HttpClient(server.url, 4);
    await green(client);
    client.close();
    const queries = Array.from({ length: ds.queryCount }, (_, q) => Array.from(ds.queries.subarray(q * ds.dim, (q + 1) * ds.dim)));
    const real = { url: server.url, pid: server.child.pid };
    const floor = { url: bare.url, pid: bare.child.pid };
    const rows = await benchRequestPath(real, { url: koa.url, pid: koa.child.pid }, floor, COLLECTION, queries);
    const singles = Array.from({ length: count }, (_, i) => pointsJson(i, i + 1));
    rows.push(...(await benchSmallWrites(real, floor, COLLECTION, singles)));
    return rows;
  } finally {
    server.child.kill('SIGTERM');
    await Promise.all([exited(server.child), stopBareServer(bare), stopBareServer(koa)]);
  }
}
