import { expect } from 'chai';
import { exited, spawnServer } from '../helpers/child-server.js';
import { call, startTestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('server: durability across restarts', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('keeps everything over a clean stop, and operation_ids continue upward', async () => {
    let s = await startTestServer({}, dir.path);
    await call(s.url, 'PUT', '/collections/k', { vectors: { size: 2, distance: 'Cosine' } });
    const up = await call(s.url, 'PUT', '/collections/k/points', { points: [{ id: 1, vector: [1, 0], payload: { a: 1 }, labels: ['L'] }, { id: 2, vector: [0, 1] }] });
    await call(s.url, 'POST', '/collections/k/points/delete', { points: [2] });
    await s.stop();

    s = await startTestServer({}, dir.path);
    const got = await call(s.url, 'POST', '/collections/k/points', { ids: [1, 2], with_vector: true });
    expect(got.body.result).to.deep.equal([{ id: 1, payload: { a: 1 }, labels: ['L'], vector: [1, 0] }]);
    const next = await call(s.url, 'PUT', '/collections/k/points', { points: [{ id: 3, vector: [1, 1] }] });
    expect(next.body.result.operation_id).to.equal(up.body.result.operation_id + 2);
    await s.stop();
  });

  it('loses no acknowledged write when SIGKILLed right after the acknowledgement', async () => {
    let server = await spawnServer(dir.path);
    await call(server.url, 'PUT', '/collections/k', { vectors: { size: 3, distance: 'Euclid' } });
    const acks = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call(server.url, 'PUT', '/collections/k/points', { points: [{ id: i, vector: [i, i, i], payload: { i } }] })),
    );
    expect(acks.every((a) => a.status === 200)).to.equal(true);
    const last = await call(server.url, 'POST', '/collections/k/points/delete', { points: [0] });
    expect(last.status).to.equal(200);
    server.child.kill('SIGKILL');
    await exited(server.child);

    server = await spawnServer(dir.path);
    try {
      const count = await call(server.url, 'POST', '/collections/k/points/count', {});
      expect(count.body.result.count).to.equal(39);
      const p = await call(server.url, 'POST', '/collections/k/points', { ids: [39], with_vector: true });
      expect(p.body.result).to.deep.equal([{ id: 39, payload: { i: 39 }, labels: [], vector: [39, 39, 39] }]);
      const hit = await call(server.url, 'POST', '/collections/k/points/query', { query: [20.1, 20, 20], limit: 1 });
      expect(hit.body.result[0].id).to.equal(20);
      const next = await call(server.url, 'POST', '/collections/k/points/delete', { points: [1] });
      expect(next.body.result.operation_id).to.equal(last.body.result.operation_id + 1);
    } finally {
      server.child.kill('SIGTERM');
      expect(await exited(server.child)).to.equal(0);
    }
  });

  it('restarts from a snapshot with the HNSW graph whole, not rebuilt', async () => {
    let s = await startTestServer({ SERVICE_SNAPSHOT_EVERY: '0' }, dir.path);
    await call(s.url, 'PUT', '/collections/k', { vectors: { size: 4, distance: 'Dot' } });
    await call(s.url, 'PUT', '/collections/k/points', { points: Array.from({ length: 300 }, (_, id) => ({ id, vector: [id % 7, id % 11, 1, id / 300] })) });
    while ((await call(s.url, 'GET', '/collections/k')).body.result.status !== 'green') await new Promise((r) => setTimeout(r, 20));
    const before = await call(s.url, 'POST', '/collections/k/points/query', { query: [1, 2, 3, 4], limit: 5 });
    await s.stop();

    s = await startTestServer({ SERVICE_SNAPSHOT_EVERY: '0' }, dir.path);
    try {
      expect(s.service.engine.lastSnapshotOperationId).to.equal(2);
      const info = (await call(s.url, 'GET', '/collections/k')).body.result;
      expect(info).to.deep.include({ status: 'green', points_count: 300, indexed_vectors_count: 300 });
      const after = await call(s.url, 'POST', '/collections/k/points/query', { query: [1, 2, 3, 4], limit: 5 });
      expect(after.body.result).to.deep.equal(before.body.result);
    } finally {
      await s.stop();
    }
  });

  it('loses no acknowledged write when killed while snapshots are being written', async () => {
    let server = await spawnServer(dir.path, { SERVICE_SNAPSHOT_EVERY: '3', SERVICE_LOG_RETENTION: '0' });
    await call(server.url, 'PUT', '/collections/k', { vectors: { size: 2, distance: 'Euclid' } });
    const acked: number[] = [];
    await Promise.all(
      Array.from({ length: 60 }, async (_, id) => {
        const res = await call(server.url, 'PUT', '/collections/k/points', { points: [{ id, vector: [id, 1] }] });
        if (res.status === 200) acked.push(id);
      }),
    );
    server.child.kill('SIGKILL');
    await exited(server.child);
    server = await spawnServer(dir.path);
    try {
      const got = await call(server.url, 'POST', '/collections/k/points', { ids: acked, with_payload: false });
      expect(got.body.result.map((p: { id: number }) => p.id).sort((a: number, b: number) => a - b)).to.deep.equal(acked.sort((a, b) => a - b));
      expect(acked).to.have.length(60);
    } finally {
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
  });

  it('refuses to start a second server on the same data dir with a clear message', async () => {
    const first = await spawnServer(dir.path);
    try {
      let message = '';
      try {
        await spawnServer(dir.path);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).to.match(/in use by process \d+/);
      expect((await call(first.url, 'GET', '/ready')).status).to.equal(200);
    } finally {
      first.child.kill('SIGTERM');
      await exited(first.child);
    }
  });
});
