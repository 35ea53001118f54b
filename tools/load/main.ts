import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wholeNumber } from '../lib/args.js';
import { HttpClient } from '../lib/http-client.js';
import { rssMb } from '../lib/process-memory.js';
import { startProgress } from '../lib/progress.js';
import { runTool } from '../lib/run-tool.js';
import { exited, spawnServer, type ChildServer } from '../lib/spawn-server.js';
import { fmt, percentile, table } from '../bench/table.js';

const USAGE = `usage: npm run load -- [--seconds N] [--writers N] [--readers N]
A bounded load test on loopback: concurrent writers (upserts of small batches with fresh ids) and
readers (search with a filter, retrieve, scroll) run for a fixed time against the real server; then
every acknowledged id is checked, before and after a restart. Prints a markdown table on stdout.
  --seconds N   how long the load runs, 1 to 86400 (default 20)
  --writers N   concurrent writers, 0 to 1000 (default 8)
  --readers N   concurrent readers, 0 to 1000 (default 8)
  -h, --help    this text
Progress goes to stderr. Exit codes: 0 fine, 1 an error or a lost write, 2 bad arguments.`;

const SPEC = {
  name: 'load',
  usage: USAGE,
  flags: {
    seconds: wholeNumber({ min: 1, max: 86_400 }, 20),
    writers: wholeNumber({ min: 0, max: 1000 }, 8),
    readers: wholeNumber({ min: 0, max: 1000 }, 8),
  },
};
const DIM = 64;
const BATCH = 10;

const say = (line: string): void => void process.stderr.write(`${line}\n`);

function vector(seed: number): number[] {
  return Array.from({ length: DIM }, (_, i) => Math.sin(seed * 12.9898 + i * 78.233));
}

async function missingIds(client: HttpClient, acked: number[]): Promise<number> {
  let missing = 0;
  for (let i = 0; i < acked.length; i += 1000) {
    const ids = acked.slice(i, i + 1000);
    const res = (await client.json('POST', '/collections/load/points', JSON.stringify({ ids, with_payload: false }))) as { result: unknown[] };
    missing += ids.length - res.result.length;
  }
  return missing;
}

runTool(SPEC, async ({ values: { seconds, writers, readers } }) => {
  const dir = mkdtempSync(join(tmpdir(), 'vgdb-load-'));
  let server: ChildServer | null = null;
  try {
    say('load: starting the server');
    server = await spawnServer(dir);
    const client = new HttpClient(server.url, writers + readers + 2);
    await client.json('PUT', '/collections/load', JSON.stringify({ vectors: { size: DIM, distance: 'Cosine' } }));

    const acked: number[] = [];
    const writeLatency: number[] = [];
    const readLatency: number[] = [];
    let errors = 0;
    let nextId = 0;
    const rss: { t: number; mb: number }[] = [];
    const started = performance.now();
    const end = started + seconds * 1000;
    const progress = startProgress(`load: ${writers} writers and ${readers} readers`, seconds, 's');
    const sampler = setInterval(() => {
      rss.push({ t: performance.now() - started, mb: rssMb(server!.child.pid!) });
      progress.update(Math.min(seconds, Math.floor((performance.now() - started) / 1000)));
    }, 500);

    const timed = async (latencies: number[], work: () => Promise<unknown>): Promise<void> => {
      const t = performance.now();
      try {
        await work();
        latencies.push(performance.now() - t);
      } catch (err) {
        errors++;
        if (errors <= 5) progress.aside(() => process.stderr.write(`error: ${(err as Error).message}\n`));
      }
    };

    const writer = async (): Promise<void> => {
      while (performance.now() < end) {
        const ids = Array.from({ length: BATCH }, () => nextId++);
        const body = JSON.stringify({ points: ids.map((id) => ({ id, vector: vector(id), payload: { bucket: id % 16, writer: 'load' } })) });
        await timed(writeLatency, async () => {
          await client.json('PUT', '/collections/load/points', body);
          acked.push(...ids);
        });
      }
    };
    const reader = async (n: number): Promise<void> => {
      for (let i = 0; performance.now() < end; i++) {
        const kind = (i + n) % 3;
        const body =
          kind === 0
            ? JSON.stringify({ query: vector(i * 7 + n), limit: 10, filter: { must: [{ key: 'bucket', match: { value: i % 16 } }] } })
            : kind === 1
              ? JSON.stringify({ ids: [i, i + 1, i + 2] })
              : JSON.stringify({ limit: 20, offset: i * 5 });
        const path = kind === 0 ? '/points/query' : kind === 1 ? '/points' : '/points/scroll';
        await timed(readLatency, () => client.json('POST', `/collections/load${path}`, body));
      }
    };
    await Promise.all([...Array.from({ length: writers }, writer), ...Array.from({ length: readers }, (_, n) => reader(n))]);
    clearInterval(sampler);
    progress.update(seconds);
    progress.end();
    const elapsed = (performance.now() - started) / 1000;

    say(`load: checking the ${fmt(acked.length)} acknowledged points`);
    const lostLive = await missingIds(client, acked);
    client.close();
    server.child.kill('SIGTERM');
    await exited(server.child);
    say('load: restarting the server and checking them again');
    server = await spawnServer(dir);
    const after = new HttpClient(server.url, 2);
    const lostRestart = await missingIds(after, acked);
    after.close();

    writeLatency.sort((a, b) => a - b);
    readLatency.sort((a, b) => a - b);
    const quarter = rss.find((r) => r.t >= (seconds * 1000) / 4)?.mb ?? NaN;
    const last = rss[rss.length - 1]?.mb ?? NaN;
    console.log(`## Load test: ${writers} writers (batches of ${BATCH}, ${DIM}-d) and ${readers} readers for ${seconds} s\n`);
    console.log(
      table(
        ['what', 'figure'],
        [
          ['writes acknowledged', `${fmt(acked.length)} points (${fmt(acked.length / elapsed)} points/s, ${fmt(writeLatency.length / elapsed)} requests/s)`],
          ['write latency', `p50 ${fmt(percentile(writeLatency, 50), 2)} ms, p99 ${fmt(percentile(writeLatency, 99), 2)} ms`],
          ['reads (search with filter, retrieve, scroll)', `${fmt(readLatency.length)} (${fmt(readLatency.length / elapsed)}/s)`],
          ['read latency', `p50 ${fmt(percentile(readLatency, 50), 2)} ms, p99 ${fmt(percentile(readLatency, 99), 2)} ms`],
          ['errors', String(errors)],
          ['acknowledged writes missing (live / after restart)', `${lostLive} / ${lostRestart}`],
          ['server RSS at 1/4 of the run → end (max)', `${fmt(quarter)} MB → ${fmt(last)} MB (${fmt(Math.max(...rss.map((r) => r.mb)))} MB)`],
        ],
      ),
    );
    return errors > 0 || lostLive > 0 || lostRestart > 0 ? 1 : 0;
  } finally {
    if (server) {
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
