import { expect } from 'chai';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exited, spawnServer, type ChildServer } from '../helpers/child-server.js';
import { call, startTestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';

async function refusal(start: () => Promise<unknown>): Promise<string> {
  try {
    await start();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('a second server started on a data dir in use');
}

async function stop(server: ChildServer): Promise<void> {
  server.child.kill('SIGTERM');
  await exited(server.child);
}

describe('server data dir lock', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('keeps a second server out even after every lock file in the data dir is deleted', async () => {
    const first = await spawnServer(dir.path);
    try {
      expect(readFileSync(join(dir.path, 'LOCK'), 'utf8').trim()).to.equal(String(first.child.pid));
      expect(await refusal(() => spawnServer(dir.path))).to.match(new RegExp(`in use by process ${first.child.pid}`));
      unlinkSync(join(dir.path, 'LOCK'));
      unlinkSync(join(dir.path, 'lock.mdb'));
      expect(await refusal(() => spawnServer(dir.path))).to.match(/in use by another process \(its LOCK file is gone, the lock is not\)/);
      expect((await call(first.url, 'GET', '/ready')).status).to.equal(200);
    } finally {
      await stop(first);
    }
  });

  it('is freed by the kernel when the owner is SIGKILLed: the next server starts and has the data', async () => {
    const first = await spawnServer(dir.path);
    await call(first.url, 'PUT', '/collections/c', { vectors: { size: 2, distance: 'Euclid' } });
    await call(first.url, 'PUT', '/collections/c/points?wait=true', { points: [{ id: 1, vector: [1, 2] }] });
    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(readFileSync(join(dir.path, 'LOCK'), 'utf8').trim(), 'the dead owner left its pid behind').to.equal(String(first.child.pid));
    const second = await spawnServer(dir.path);
    try {
      expect((await call(second.url, 'POST', '/collections/c/points/count', {})).body.result.count).to.equal(1);
    } finally {
      await stop(second);
    }
  });

  it('is not blocked by a stale LOCK file naming a live, unrelated process', async () => {
    writeFileSync(join(dir.path, 'LOCK'), `${process.ppid}\n`);
    const server = await spawnServer(dir.path);
    try {
      expect((await call(server.url, 'GET', '/ready')).status).to.equal(200);
    } finally {
      await stop(server);
    }
  });

  it('refuses a second opener in the same process, and lets it in once the first has stopped', async () => {
    const first = await startTestServer({}, dir.path);
    try {
      expect(await refusal(() => startTestServer({}, dir.path))).to.match(new RegExp(`in use by process ${process.pid} \\(this process has it open already\\)`));
    } finally {
      await first.stop();
    }
    const again = await startTestServer({}, dir.path);
    await again.stop();
  });
});
