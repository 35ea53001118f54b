import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { HttpClient } from '../lib/http-client.js';
import { peakSampler, rssMb } from '../lib/process-memory.js';
import { exited, spawnServer, type ChildServer } from '../lib/spawn-server.js';
import { startProgress } from '../lib/progress.js';
import type { Dataset } from './dataset.js';
import { fmt } from './table.js';

/** Snapshots only at shutdown, and the whole log kept: the full replay below needs it. */
const KEEP_THE_LOG = { SERVICE_SNAPSHOT_EVERY: '0', SERVICE_SNAPSHOT_EVERY_BYTES: '0', SERVICE_LOG_RETENTION_BYTES: '0' };

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

async function start(dir: string): Promise<{ server: ChildServer; client: HttpClient; readyMs: number; indexedMs: number }> {
  const t = performance.now();
  const server = await spawnServer(dir, KEEP_THE_LOG);
  const client = new HttpClient(server.url, 4);
  await until(async () => (await client.send('GET', '/readyz')).status === 200);
  const readyMs = performance.now() - t;
  await until(async () => ((await client.json('GET', '/collections/big')) as { result: { status: string } }).result.status === 'green');
  return { server, client, readyMs, indexedMs: performance.now() - t };
}

async function stop(s: { server: ChildServer; client: HttpClient }): Promise<void> {
  s.client.close();
  s.server.child.kill('SIGTERM');
  await exited(s.server.child);
}

/** Start-up with a snapshot and with a full replay, and export/import throughput with the server's memory. */
export async function benchDurability(ds: Dataset, dir: string): Promise<(string | number)[][]> {
  const rows: (string | number)[][] = [];
  const server = await spawnServer(dir, KEEP_THE_LOG);
  let client = new HttpClient(server.url, 4);
  await client.json('PUT', '/collections/big', JSON.stringify({ vectors: { size: ds.dim, distance: ds.distance } }));
  const loading = startProgress('bench durability: loading', ds.count, 'points');
  for (let b = 0; b < ds.count; b += 1000) {
    const points = [];
    for (let i = b; i < Math.min(ds.count, b + 1000); i++) points.push({ id: i, vector: Array.from(ds.data.subarray(i * ds.dim, (i + 1) * ds.dim)), payload: { i } });
    await client.json('PUT', '/collections/big/points', JSON.stringify({ points }));
    loading.update(Math.min(ds.count, b + 1000));
  }
  loading.end();
  await until(async () => ((await client.json('GET', '/collections/big')) as { result: { status: string } }).result.status === 'green');

  const before = rssMb(server.child.pid!);
  let peak = peakSampler(server.child.pid!);
  let t = performance.now();
  const res = await fetch(`${server.url}/collections/big/export`);
  const file = Buffer.from(await res.arrayBuffer());
  let seconds = (performance.now() - t) / 1000;
  rows.push([`export of ${fmt(ds.count)} x ${ds.dim} (${fmt(file.length / 2 ** 20, 1)} MB)`, `${fmt(file.length / 2 ** 20 / seconds, 1)} MB/s`, `server RSS ${fmt(before)} MB → peak ${fmt(peak.stop())} MB`]);

  peak = peakSampler(server.child.pid!);
  t = performance.now();
  const imp = await client.send('POST', '/collections/copy/import?mode=create', file, 'application/octet-stream');
  seconds = (performance.now() - t) / 1000;
  if (imp.status !== 200) throw new Error(`import answered ${imp.status}: ${imp.text}`);
  rows.push([`import (create) of the same file`, `${fmt(file.length / 2 ** 20 / seconds, 1)} MB/s`, `server RSS peak ${fmt(peak.stop())} MB (streamed: staged a block at a time, then logged as one entry)`]);
  await client.json('DELETE', '/collections/copy');
  client.close();
  server.child.kill('SIGTERM');
  await exited(server.child);

  let s = await start(dir);
  rows.push([`start-up with a snapshot (${fmt(ds.count)} points)`, `${fmt(s.readyMs / 1000, 2)} s to ready`, `index whole at ready (${fmt(s.indexedMs / 1000, 2)} s to green)`]);
  await stop(s);
  rmSync(join(dir, 'snapshots'), { recursive: true, force: true });
  s = await start(dir);
  rows.push([`start-up with a full log replay, no snapshot (${fmt(ds.count)} points)`, `${fmt(s.readyMs / 1000, 2)} s to ready`, `HNSW rebuilt in the background: ${fmt(s.indexedMs / 1000, 1)} s to green`]);
  await stop(s);
  return rows;
}
