import { createReadStream, createWriteStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import { HttpClient, runConcurrent } from '../lib/http-client.js';
import { peakSampler, rssMb } from '../lib/process-memory.js';
import { startProgress } from '../lib/progress.js';
import { exited, spawnServer, type ChildServer } from '../lib/spawn-server.js';
import { recallAt10, type Dataset } from './dataset.js';
import { fmt } from './table.js';
import { dirBytes } from '../lib/dir-bytes.js';

const BATCH = 1000;
const MB = 2 ** 20;

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 100));
}

const green = (client: HttpClient, name: string) => until(async () => ((await client.json('GET', `/collections/${name}`)) as { result: { status: string } }).result.status === 'green');

/** Streams a file from disk as an import's body; answers the status. */
function importFile(url: string, path: string, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/collections/${name}/import?mode=create`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': statSync(path).size } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    createReadStream(path).pipe(req);
  });
}

/** Streams the export to a file; answers its size. */
async function exportToFile(url: string, name: string, path: string): Promise<number> {
  const res = await fetch(`${url}/collections/${name}/export`);
  if (!res.ok || !res.body) throw new Error(`export answered ${res.status}`);
  const out = createWriteStream(path);
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return bytes;
}

/** The process's own memory (anonymous pages) in MB; VmRSS also counts the mapped LMDB file's pages, which are the page cache. */
function anonMb(pid: number): number {
  const m = /RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function anonPeak(pid: number): { stop(): number } {
  let peak = anonMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, anonMb(pid))), 20);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, anonMb(pid));
    },
  };
}

/** Stage files of streamed imports in a data dir (storage/log/stage-files.ts): one until the snapshot after the import drops its entry. */
function stageFileCount(dataDir: string): number {
  try {
    return readdirSync(join(dataDir, 'imports')).length;
  } catch {
    return 0;
  }
}

async function startServer(dir: string, env: Record<string, string>): Promise<{ server: ChildServer; client: HttpClient; readyMs: number }> {
  const t = performance.now();
  const server = await spawnServer(dir, env);
  const client = new HttpClient(server.url, 4);
  await until(async () => (await client.send('GET', '/readyz')).status === 200);
  return { server, client, readyMs: performance.now() - t };
}

async function stopServer(s: { server: ChildServer; client: HttpClient }): Promise<void> {
  s.client.close();
  s.server.child.kill('SIGTERM');
  await exited(s.server.child);
}

/** The storage the scale bench PATCHes a loaded collection to, in turn: int8 (and int8 against float on it, side by side), int8 with the floats on disk, and binary (with them on disk) for 768-d and wider. */
function storageVariants(ds: Dataset): { what: string; patch: Record<string, unknown>; quantization?: Record<string, unknown>; sideBySide?: boolean }[] {
  return [
    { what: 'int8 codes, float32 in RAM', patch: { quantization_config: { scalar: { type: 'int8' } } }, sideBySide: true },
    { what: 'int8 codes, float32 on disk', patch: { vectors: { '': { on_disk: true } } } },
    // Binary codes rank coarsely: Qdrant's advice, and the quantization bench's, is to rescore many candidates.
    ...(ds.dim >= 512 ? [{ what: 'binary codes, float32 on disk, oversampling 20', patch: { quantization_config: { binary: {} } }, quantization: { oversampling: 20 } }] : []),
  ];
}

/**
 * Untimed searches before each timed run: a change of storage has the workers make their
 * readers anew, and a variant's own code (the int8 walk, its rescoring) is compiled by V8 only
 * once it runs; with 20 the variants were measured in that warm-up.
 */
const WARM_UP = 1_000;

/**
 * Untimed searches before the first timed run: the ingest warmed the request path up, not the
 * search's own code, which a server just loaded runs unoptimised until V8 has compiled it (the
 * request path bench's servers took thousands of searches to settle). Without them the first
 * rows, float32's, measured part of that warm-up and the variants after them none.
 */
const FIRST_WARM_UP = 3_000;

/** The bench's 200 queries as search bodies (top 10, no payload) at `ef`, with Qdrant's `params.quantization` when given. */
function searchBodies(ds: Dataset, ef: number, quantization?: Record<string, unknown>): string[] {
  return Array.from({ length: ds.queryCount }, (_, q) => JSON.stringify({ vector: Array.from(ds.queries.subarray(q * ds.dim, (q + 1) * ds.dim)), limit: 10, params: { hnsw_ef: ef, ...(quantization ? { quantization } : {}) }, with_payload: false }));
}

async function warmSearchesUp(client: HttpClient, ds: Dataset): Promise<void> {
  const bodies = searchBodies(ds, 64);
  for (let i = 0; i < FIRST_WARM_UP; i++) await client.json('POST', '/collections/big/points/search', bodies[i % bodies.length]);
}

/**
 * Recall@10 and QPS over HTTP at ef 64 and 128 (one client; rescored with the floats when the
 * collection is quantized), after WARM_UP searches: the first walks after a change of storage
 * make the workers' readers anew, and the run measures the searches that follow.
 */
async function searchRows(client: HttpClient, ds: Dataset, what: string, quantization?: Record<string, unknown>): Promise<(string | number)[][]> {
  const rows: (string | number)[][] = [];
  for (const ef of [64, 128]) {
    const bodies = searchBodies(ds, ef, quantization);
    for (let q = 0; q < WARM_UP; q++) await client.json('POST', '/collections/big/points/search', bodies[q % bodies.length]);
    let recall = 0;
    const t = performance.now();
    for (let q = 0; q < ds.queryCount; q++) {
      const hits = ((await client.json('POST', '/collections/big/points/search', bodies[q])) as { result: { id: number }[] }).result;
      recall += recallAt10(ds.truth[q]!, hits.map((h) => h.id));
    }
    const seconds = (performance.now() - t) / 1000;
    rows.push([`${what}, ef ${ef}, top 10, 1 client`, `${fmt(ds.queryCount / seconds)} QPS`, `recall@10 ${fmt(recall / ds.queryCount, 3)}`]);
  }
  return rows;
}

/** Rounds of the interleaved int8-against-float rows. */
const SIDE_BY_SIDE_ROUNDS = 10;

/**
 * Untimed rounds before them, for each shape and ef: a lone client's searches walk on the request
 * thread, so the batch rows are the first to run the int8 walk on the search workers, whose V8
 * compiles it only then.
 */
const SIDE_BY_SIDE_WARM_ROUNDS = 4;

/** Searches a batch request holds in the batch side-by-side rows: the bench's 200 queries in four requests. */
const SIDE_BY_SIDE_BATCH = 50;

/**
 * The two ways the side-by-side rows send searches: one at a time from one client, where the
 * request path (about half a millisecond of server CPU at 1,000,000 x 128, which int8 does not
 * shorten) is part of every search; and in batch requests from two clients, where it is spread
 * over 50 searches and the search pool walks them on every core, so the rows measure the walks.
 */
interface SideBySideShape {
  label: string;
  clients: number;
  /** Requests a round sends, all clients together. */
  requests: number;
  searchesPerRequest: number;
  path: string;
  bodies(ds: Dataset, ef: number, quantization: Record<string, unknown>): string[];
}

const SIDE_BY_SIDE_SHAPES: SideBySideShape[] = [
  { label: '1 client', clients: 1, requests: 100, searchesPerRequest: 1, path: '/collections/big/points/search', bodies: searchBodies },
  {
    label: `batch search (${SIDE_BY_SIDE_BATCH} searches a request), 2 clients`,
    clients: 2,
    requests: 8,
    searchesPerRequest: SIDE_BY_SIDE_BATCH,
    path: '/collections/big/points/search/batch',
    bodies: (ds, ef, quantization) => {
      const singles = searchBodies(ds, ef, quantization);
      const requests: string[] = [];
      for (let at = 0; at < singles.length; at += SIDE_BY_SIDE_BATCH) requests.push(`{"searches":[${singles.slice(at, at + SIDE_BY_SIDE_BATCH).join(',')}]}`);
      return requests;
    },
  },
];

/**
 * int8 against float32 on the same int8 collection at the same moments: rounds that take turns
 * between searches on the codes (rescored) and on the floats (`quantization: {ignore: true}`,
 * the same graph), so that what else runs on the machine, and in the server after a change,
 * falls on both alike. The rows above measure each storage once, one after another, minutes
 * apart; on a shared machine those drift by more than int8 gains.
 */
async function sideBySideRows(client: HttpClient, ds: Dataset, what: string): Promise<(string | number)[][]> {
  const rows: (string | number)[][] = [];
  for (const shape of SIDE_BY_SIDE_SHAPES) {
    for (const ef of [64, 128]) {
      const kinds = [
        { bodies: shape.bodies(ds, ef, { ignore: true }), seconds: 0 },
        { bodies: shape.bodies(ds, ef, {}), seconds: 0 },
      ];
      let next = 0;
      for (let round = -SIDE_BY_SIDE_WARM_ROUNDS; round < SIDE_BY_SIDE_ROUNDS; round++) {
        for (const kind of round % 2 ? kinds : [...kinds].reverse()) {
          const t = performance.now();
          await runConcurrent(shape.requests, shape.clients, async () => {
            const answer = (await client.json('POST', shape.path, kind.bodies[next++ % kind.bodies.length])) as { result: unknown[] };
            if (answer.result.length !== (shape.searchesPerRequest === 1 ? 10 : shape.searchesPerRequest)) throw new Error(`${shape.path} answered ${answer.result.length} results`);
          });
          if (round >= 0) kind.seconds += (performance.now() - t) / 1000;
        }
      }
      const searches = SIDE_BY_SIDE_ROUNDS * shape.requests * shape.searchesPerRequest;
      const [float, int8] = kinds.map((k) => searches / k.seconds) as [number, number];
      rows.push([`${what}: int8 codes vs float32 on the same collection, ef ${ef}, top 10, ${shape.label} (${SIDE_BY_SIDE_ROUNDS} alternating rounds of ${fmt(shape.requests * shape.searchesPerRequest)} searches)`, `${fmt(int8)} vs ${fmt(float)} searches/s: ${fmt(int8 / float, 2)}x`, '']);
    }
  }
  return rows;
}

/**
 * The byte settings scaled to the dataset: an eighth of its raw vectors, at least 8 MiB (at
 * 1,000,000 x 128 that is the default, 64 MiB).
 */
export function scaledLogSettings(ds: Dataset): Record<string, string> {
  const bytes = String(Math.max(8 * MB, Math.floor((ds.count * ds.dim * 4) / 8)));
  return { SERVICE_SNAPSHOT_EVERY_BYTES: bytes, SERVICE_LOG_RETENTION_BYTES: bytes };
}

/**
 * One dataset at scale on the real server (default settings but the two byte settings, scaled):
 * ingest over HTTP, memory after the load, recall and QPS at two ef (with float32 vectors, then
 * the same collection PATCHed to int8, int8 with the floats on disk, and binary), export (streamed to disk),
 * the data dir next to the export file, start-up from the snapshot, and the import of the file
 * (streamed from disk) into a fresh server, with its peak memory.
 */
export async function benchScale(ds: Dataset, dir: string, log: (m: string) => void): Promise<(string | number)[][]> {
  const what = `${fmt(ds.count)} x ${ds.dim}`;
  const dataDir = join(dir, 'data');
  const env = scaledLogSettings(ds);
  const rows: (string | number)[][] = [];
  let s = await startServer(dataDir, env);
  const baseRss = rssMb(s.server.child.pid!);
  await s.client.json('PUT', '/collections/big', JSON.stringify({ vectors: { size: ds.dim, distance: ds.distance } }));
  const bodies = (b: number) => {
    const points = [];
    for (let i = b * BATCH; i < Math.min(ds.count, (b + 1) * BATCH); i++) points.push({ id: i, vector: Array.from(ds.data.subarray(i * ds.dim, (i + 1) * ds.dim)), payload: { i } });
    return JSON.stringify({ points });
  };
  const batches = Math.ceil(ds.count / BATCH);
  const loading = startProgress(`bench scale ${what}: ingest`, batches, 'batches');
  let next = 0;
  let t = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let b = next++; b < batches; b = next++) {
        await s.client.json('PUT', '/collections/big/points', bodies(b));
        loading.tick();
      }
    }),
  );
  loading.end();
  const ingestS = (performance.now() - t) / 1000;
  rows.push([`${what}: ingest over HTTP (batches of 1,000, 4 clients, durable)`, `${fmt(ds.count / ingestS)} points/s`, `${fmt(ingestS, 1)} s`]);
  t = performance.now();
  log(`bench scale ${what}: waiting for the index...`);
  await green(s.client, 'big');
  rows.push([`${what}: index built after the ingest (to green)`, `${fmt((performance.now() - t) / 1000, 1)} s`, '']);
  rows.push([`${what}: server RSS after the load`, `${fmt(rssMb(s.server.child.pid!))} MB`, `${fmt(baseRss)} MB empty; the raw vectors are ${fmt((ds.count * ds.dim * 4) / MB)} MB`]);

  const memory = () => `RSS ${fmt(rssMb(s.server.child.pid!))} MB, anonymous ${fmt(anonMb(s.server.child.pid!))} MB`;
  rows.push([`${what}: float32 vectors in RAM`, memory(), `the raw vectors are ${fmt((ds.count * ds.dim * 4) / MB)} MB; int8 codes would be a quarter, binary a thirty-second`]);
  await warmSearchesUp(s.client, ds);
  rows.push(...(await searchRows(s.client, ds, `${what}: search over HTTP`)));
  // The same loaded collection, changed in place: no reload per variant.
  for (const variant of storageVariants(ds)) {
    t = performance.now();
    await s.client.json('PATCH', '/collections/big', JSON.stringify(variant.patch));
    await green(s.client, 'big');
    const applied = (performance.now() - t) / 1000;
    // Searches first, so the worker threads let go of the arrays the change replaced before memory is read.
    const searched = await searchRows(s.client, ds, `${what}, ${variant.what}: search over HTTP`, variant.quantization);
    if (variant.sideBySide) searched.push(...(await sideBySideRows(s.client, ds, `${what}, ${variant.what}`)));
    await new Promise((r) => setTimeout(r, 500));
    rows.push([`${what}: ${variant.what}`, memory(), `PATCH applied in ${fmt(applied, 1)} s`], ...searched);
  }
  // Back to float32 in RAM, for the rows that follow (export, start-up, import). Each change above
  // ran a full collection in the server (as every change of where vectors live does), which frees
  // the ingest's garbage too: this row is the float figure to hold the others against.
  await s.client.json('PATCH', '/collections/big', JSON.stringify({ vectors: { '': { on_disk: false } }, quantization_config: 'Disabled' }));
  await new Promise((r) => setTimeout(r, 500));
  rows.push([`${what}: float32 in RAM again (after the same full collection)`, memory(), `codes dropped, floats read back from the file`]);

  const file = join(dir, 'big.vgdb');
  const peak = peakSampler(s.server.child.pid!);
  const before = rssMb(s.server.child.pid!);
  t = performance.now();
  const fileBytes = await exportToFile(s.server.url, 'big', file);
  rows.push([`${what}: export (${fmt(fileBytes / MB, 1)} MB), streamed to disk`, `${fmt(fileBytes / MB / ((performance.now() - t) / 1000), 1)} MB/s`, `server RSS ${fmt(before)} MB → peak ${fmt(peak.stop())} MB`]);
  rows.push([`${what}: data dir while serving, after the load`, `${fmt(dirBytes(dataDir) / MB, 1)} MB`, `${fmt(dirBytes(dataDir) / fileBytes, 2)}x the export file`]);
  await stopServer(s);
  rows.push([`${what}: data dir at rest (after a clean stop and its snapshot)`, `${fmt(dirBytes(dataDir) / MB, 1)} MB`, `${fmt(dirBytes(dataDir) / fileBytes, 2)}x the export file`]);

  s = await startServer(dataDir, env);
  const replayed = /"ms":(\d+)[^\n]*"msg":"log replayed"/.exec(s.server.output());
  rows.push([`${what}: start-up from the snapshot`, `${fmt(s.readyMs / 1000, 2)} s to ready`, `snapshot load and log replay ${replayed ? fmt(Number(replayed[1]) / 1000, 2) : '?'} s, index whole at ready; RSS ${fmt(rssMb(s.server.child.pid!))} MB`]);
  await stopServer(s);

  // The import alone: a fresh server, so its memory is the import's and the collection it builds.
  const importDir = join(dir, 'imported');
  s = await startServer(importDir, env);
  const pid = s.server.child.pid!;
  const [rssBefore, anonBefore] = [rssMb(pid), anonMb(pid)];
  const [rssPeak, anonPeakOf] = [peakSampler(pid), anonPeak(pid)];
  t = performance.now();
  const status = await importFile(s.server.url, file, 'big');
  const seconds = (performance.now() - t) / 1000;
  if (status !== 200) throw new Error(`import answered ${status}`);
  // The peak counts the snapshot that the import's bytes trigger at once: done when it has dropped the entry's stage file.
  await until(async () => stageFileCount(importDir) === 0);
  const [rssTop, anonTop] = [rssPeak.stop(), anonPeakOf.stop()];
  rows.push([
    `${what}: import (create) of the file into a fresh server, streamed from disk`,
    `${fmt(fileBytes / MB / seconds, 1)} MB/s`,
    `RSS ${fmt(rssBefore)} → peak ${fmt(rssTop)} → ${fmt(rssMb(pid))} MB after; anonymous ${fmt(anonBefore)} → peak ${fmt(anonTop)} → ${fmt(anonMb(pid))} MB (the peak through the snapshot it triggers; the rest of RSS is the mapped log's page cache)`,
  ]);
  rows.push([`${what}: its data dir while serving, once that snapshot is written`, `${fmt(dirBytes(importDir) / MB, 1)} MB`, `${fmt(dirBytes(importDir) / fileBytes, 2)}x the export file`]);
  await green(s.client, 'big');
  await stopServer(s);
  rows.push([`${what}: its data dir at rest`, `${fmt(dirBytes(importDir) / MB, 1)} MB`, `${fmt(dirBytes(importDir) / fileBytes, 2)}x the export file`]);
  return rows;
}
