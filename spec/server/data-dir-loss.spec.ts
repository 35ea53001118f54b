import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync, truncateSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { decodeMark } from '../../storage/snapshot/high-water-mark.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { exited, spawnServer, type ChildServer } from '../helpers/child-server.js';
import { call } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A collection and `count` acknowledged single-point upserts, 8 at a time; answers the highest operation_id acknowledged. */
async function write(url: string, count: number): Promise<number> {
  await call(url, 'PUT', '/collections/c', { vectors: { size: 2, distance: 'Euclid' } });
  let next = 0;
  let last = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const id = next++;
        const res = await call(url, 'PUT', '/collections/c/points?wait=true', { points: [{ id, vector: [id, 1] }] });
        expect(res.status).to.equal(200);
        last = Math.max(last, res.body.result.operation_id);
      }
    }),
  );
  return last;
}

/** Waits (by polling, no deadline of its own) until the server's high-water mark has reached `opId`. */
async function markReaches(dataDir: string, opId: number): Promise<void> {
  const file = join(dataDir, 'snapshots', 'high-water-mark');
  while (!existsSync(file) || decodeMark(readFileSync(file)).opId < opId) await new Promise((r) => setTimeout(r, 50));
}

function reservedThrough(dataDir: string): number {
  return decodeMark(readFileSync(join(dataDir, 'snapshots', 'high-water-mark'))).reservedThrough;
}

async function kill(server: ChildServer): Promise<void> {
  server.child.kill('SIGKILL');
  await exited(server.child);
}

async function refusal(dataDir: string): Promise<string> {
  try {
    await kill(await spawnServer(dataDir));
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the server started over a log that lost acknowledged operations');
}

async function count(url: string): Promise<number> {
  return (await call(url, 'POST', '/collections/c/points/count', {})).body.result.count;
}

describe('server start-up proves the log whole', function () {
  this.timeout(120_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('refuses a data.mdb truncated under a running server, naming what only it held; SERVICE_ACCEPT_LOSS=1 starts, logs the loss and keeps ids above it', async () => {
    const first = await spawnServer(dir.path, { SERVICE_SNAPSHOT_EVERY: '100' });
    const last = await write(first.url, 250);
    await markReaches(dir.path, last);
    const file = join(dir.path, 'data.mdb');
    truncateSync(file, Math.floor(statSync(file).size / 2 / 4096) * 4096);
    await kill(first);
    const snapshot = new SnapshotFiles(join(dir.path, 'snapshots')).list()[0]!;
    expect(snapshot).to.be.within(100, last - 1);
    const reserved = reservedThrough(dir.path);
    expect(reserved).to.be.above(last);

    const message = await refusal(dir.path);
    expect(message).to.match(/the log cannot be opened: .*data\.mdb is truncated/);
    expect(message).to.include(`operations ${snapshot + 1} to ${last} were durable in it and are in no snapshot`);
    expect(message).to.match(/import your exports .* or accept the loss: start once with SERVICE_ACCEPT_LOSS=1/);

    const accepting = await spawnServer(dir.path, { SERVICE_ACCEPT_LOSS: '1' });
    try {
      expect(accepting.output()).to.include(`operations ${snapshot + 1} to ${last} were durable in it and are in no snapshot`);
      expect(accepting.output()).to.include(`accepting loss: the log ends at operation 0 but the high-water mark (newest snapshot ${snapshot}) shows operation ${last} was durable: operations ${snapshot + 1} to ${last} are lost`);
      expect(await count(accepting.url), 'the points of the snapshot').to.equal(snapshot - 1);
      const next = await call(accepting.url, 'PUT', '/collections/c/points?wait=true', { points: [{ id: 10_000, vector: [0, 0] }] });
      expect(next.body.result.operation_id, 'above every id handed out before the loss, acknowledged or not').to.equal(reserved + 1);
    } finally {
      accepting.child.kill('SIGTERM');
      await exited(accepting.child);
    }
    expect(readdirSync(dir.path).some((f) => f.startsWith('data.mdb.damaged-')), 'the damaged file is kept aside').to.equal(true);

    const after = await spawnServer(dir.path);
    try {
      expect(await count(after.url)).to.equal(snapshot);
    } finally {
      await kill(after);
    }
  });

  it('refuses a deleted data.mdb while snapshots remain; SERVICE_ACCEPT_LOSS=1 goes on with operation_ids above them', async () => {
    const first = await spawnServer(dir.path, { SERVICE_SNAPSHOT_EVERY: '50' });
    const last = await write(first.url, 120);
    await markReaches(dir.path, last);
    await kill(first);
    unlinkSync(join(dir.path, 'data.mdb'));
    unlinkSync(join(dir.path, 'lock.mdb'));
    const snapshot = new SnapshotFiles(join(dir.path, 'snapshots')).list()[0]!;
    const reserved = reservedThrough(dir.path);

    const message = await refusal(dir.path);
    expect(message).to.include(`the log is missing operations that were durable: the log ends at operation 0 but the high-water mark (newest snapshot ${snapshot}) shows operation ${last} was durable: operations ${snapshot + 1} to ${last} are lost`);
    expect(message).to.include('SERVICE_ACCEPT_LOSS=1');

    const accepting = await spawnServer(dir.path, { SERVICE_ACCEPT_LOSS: '1' });
    try {
      expect(accepting.output()).to.include(`"from":${snapshot + 1},"to":${last}`);
      expect(await count(accepting.url)).to.equal(snapshot - 1);
      const next = await call(accepting.url, 'POST', '/collections/c/points/delete?wait=true', { points: [0] });
      expect(next.body.result.operation_id).to.equal(reserved + 1);
    } finally {
      await kill(accepting);
    }
    const after = await spawnServer(dir.path);
    try {
      expect(await count(after.url), 'the acceptance and the write after it survived a SIGKILL').to.equal(snapshot - 2);
    } finally {
      await kill(after);
    }
  });
});
