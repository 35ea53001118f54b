import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { call, startTestServer, type TestServer } from '../helpers/http.js';
import { dirBytes } from '../../tools/lib/dir-bytes.js';

const DIM = 128;
const POINTS = 40_000;
const BATCH = 1000;
const CYCLES = 6;

/** The vector of point `id` after `cycle`: a tenth of the points take a new one each cycle. */
const vectorOf = (id: number, cycle: number): number[] => {
  const turn = Math.floor((cycle + 10 - (id % 10)) / 10);
  return Array.from({ length: DIM }, (_, d) => Math.sin(id + d + turn * 0.1));
};

/** Writes every point again: a new payload for all, a new vector for a tenth. */
async function overwriteAll(s: TestServer, cycle: number): Promise<void> {
  for (let from = 0; from < POINTS; from += BATCH) {
    const points = [];
    for (let id = from; id < from + BATCH; id++) points.push({ id, vector: vectorOf(id, cycle), payload: { cycle } });
    const res = await call(s.url, 'PUT', '/collections/steady/points', { points });
    expect(res.status).to.equal(200);
  }
}

describe('server: the data dir of a steady-state database stays within twice its export', function () {
  this.timeout(300_000);
  let s: TestServer;
  before(async () => {
    // Scaled down with the database: a snapshot per MiB of log, half a MiB of log kept before it.
    s = await startTestServer({ SERVICE_SNAPSHOT_EVERY: '0', SERVICE_SNAPSHOT_EVERY_BYTES: String(2 ** 20), SERVICE_LOG_RETENTION_BYTES: String(2 ** 19) });
    await call(s.url, 'PUT', '/collections/steady', { vectors: { size: DIM, distance: 'Euclid' } });
  });
  after(() => s.remove());

  it(`after ${CYCLES} cycles writing all ${POINTS} points again, with snapshots along the way`, async () => {
    const sizes: number[] = [];
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      await overwriteAll(s, cycle);
      // Steady state: the index catches up between bursts of writes (and lets the slots of replaced
      // vectors go), and the snapshot the burst triggered is written and has replaced the one before.
      while ((await call(s.url, 'GET', '/collections/steady')).body.result.status !== 'green') await new Promise((r) => setTimeout(r, 100));
      while (readdirSync(join(s.dataDir, 'snapshots')).filter((f) => f.includes('.snap')).length !== 1) await new Promise((r) => setTimeout(r, 100));
      sizes.push(dirBytes(s.dataDir));
    }
    const exported = await fetch(`${s.url}/collections/steady/export`);
    const exportBytes = (await exported.arrayBuffer()).byteLength;
    // At rest: stopped, with its shutdown snapshot written.
    await s.stop();
    const atRest = dirBytes(s.dataDir);
    const snapshots = readdirSync(join(s.dataDir, 'snapshots')).filter((f) => f.endsWith('.snap'));
    const mib = (b: number) => (b / 2 ** 20).toFixed(1);
    const seen = `data dir ${sizes.map(mib).join(', ')} MiB after each cycle, ${mib(atRest)} MiB at rest; export ${mib(exportBytes)} MiB`;
    expect(snapshots, seen).to.have.length(1);
    expect(atRest, seen).to.be.at.most(2 * exportBytes);
    // Between the bursts of writes too, and not growing with them.
    for (const size of sizes) expect(size, seen).to.be.at.most(2 * exportBytes);
    expect(Math.max(...sizes.slice(CYCLES / 2)), seen).to.be.at.most(Math.max(...sizes.slice(0, CYCLES / 2)) * 1.15);
  });
});
