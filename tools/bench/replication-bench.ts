import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { exited, spawnServer } from '../lib/spawn-server.js';
import { HttpClient, runConcurrent } from '../lib/http-client.js';
import { ReplicaSet } from '../lib/replica-set.js';
import { fmt, percentile } from './table.js';

const DIM = 16;
const CONCURRENCY = 32;
/** How often the replica's lag is read while the load runs. */
const SAMPLE_MS = 50;

type Mode = 'none' | 'async' | 'sync';

const upsert = (id: number): string => JSON.stringify({ points: [{ id, vector: Array.from({ length: DIM }, (_, i) => Math.sin(id + i)), payload: { n: id } }] });

interface Lag {
  entries: number;
  ms: number;
}

/** Reads the replica's lag every SAMPLE_MS until stopped. */
function sampleLag(client: HttpClient): { stop(): Promise<Lag[]> } {
  const samples: Lag[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const { result } = (await client.json('GET', '/replication')) as { result: { lag_entries: number; lag_ms: number } };
      samples.push({ entries: result.lag_entries, ms: result.lag_ms });
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

/**
 * Write latency (one writer) and throughput (32 at once) of one-point upserts with no
 * replication, async and sync, over loopback; with replication on, the one replica's lag as it
 * is read during the load and how long it takes to apply the last write after the load; and
 * the changefeed's entries per second, read back from the primary.
 */
export async function benchReplication(sequential: number, concurrent: number, dir: string, log: (m: string) => void): Promise<string[][]> {
  const rows: string[][] = [];
  for (const mode of ['none', 'async', 'sync'] as Mode[]) {
    const home = join(dir, mode);
    mkdirSync(home, { recursive: true });
    log(`replication: ${mode}: starting...`);
    const set = mode === 'none' ? null : await ReplicaSet.start(home, 1, { SERVICE_REPLICATION: mode });
    const solo = set ? null : await spawnServer(home);
    const primaryUrl = set ? set.url('primary') : solo!.url;
    const client = new HttpClient(primaryUrl, CONCURRENCY);
    const replica = set ? new HttpClient(set.url('replica1'), 2) : null;
    try {
      await client.json('PUT', '/collections/b', JSON.stringify({ vectors: { size: DIM, distance: 'Dot' } }));
      log(`replication: ${mode}: ${sequential} writes one at a time, ${concurrent} writes ${CONCURRENCY} at a time...`);
      const one = (await runConcurrent(sequential, 1, async (i) => void (await client.json('PUT', '/collections/b/points', upsert(i))))).sort();
      const lag = replica ? sampleLag(replica) : null;
      let lastOpId = 0;
      const started = performance.now();
      await runConcurrent(concurrent, CONCURRENCY, async (i) => {
        const { result } = (await client.json('PUT', '/collections/b/points', upsert(sequential + i))) as { result: { operation_id: number } };
        lastOpId = Math.max(lastOpId, result.operation_id);
      });
      const seconds = (performance.now() - started) / 1000;
      const samples = (await lag?.stop()) ?? [];
      let catchUp = '-';
      if (replica) {
        const t = performance.now();
        while ((((await replica.json('GET', '/replication')) as { result: { applied_operation_id: number } }).result.applied_operation_id) < lastOpId) await new Promise((r) => setTimeout(r, 5));
        catchUp = fmt(performance.now() - t, 1);
      }
      const maxEntries = samples.reduce((m, s) => Math.max(m, s.entries), 0);
      const maxMs = samples.reduce((m, s) => Math.max(m, s.ms), 0);
      const feedStarted = performance.now();
      const feed = await fetch(`${primaryUrl}/changes?from=1&wait_ms=0`);
      const entries = (await feed.text()).split('\n').filter((l) => l !== '').length;
      const feedRate = entries / ((performance.now() - feedStarted) / 1000);
      rows.push([
        mode,
        fmt(percentile(one, 50), 2),
        fmt(percentile(one, 99), 2),
        fmt(concurrent / seconds),
        replica ? fmt(maxEntries) : '-',
        replica ? fmt(maxMs) : '-',
        catchUp,
        `${fmt(feedRate)} (${fmt(entries)} entries)`,
      ]);
    } finally {
      client.close();
      replica?.close();
      if (set) await set.stop();
      if (solo) {
        solo.child.kill('SIGTERM');
        await exited(solo.child);
      }
    }
  }
  return rows;
}
