import { expect } from 'chai';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import neo4j from 'neo4j-driver';
import { SnapshotFrameCheck } from '../../storage/snapshot/snapshot-frames.js';
import { exportFileChunks } from '../../tools/lib/export-file.js';
import { useReplicaSet } from './replica-suite.js';
import { call, COLLECTION, missing, pointIds, writePoint, writeUntil } from './writes.js';

describe('replication: a primary and two replicas over a 3-node JetStream cluster (sync)', function () {
  this.timeout(120_000);
  const suite = useReplicaSet('sync', 2);

  it('every write acknowledged under sync is readable on both replicas with min_operation_id', async () => {
    let count = 0;
    const { acknowledged, maxOpId } = await writeUntil(() => suite.set.url('primary'), 1, 4, () => count++ >= 200);
    expect(acknowledged.length).to.be.greaterThan(150);
    for (const name of ['replica1', 'replica2']) expect(missing(acknowledged, await pointIds(suite.set.url(name), maxOpId)), name).to.deep.equal([]);
  });

  it('a write larger than the NATS servers take in one message (max_payload, 1 MB here) is published in pieces and applied whole on both replicas', async () => {
    const text = 'x'.repeat(1_000);
    const points = Array.from({ length: 3_000 }, (_, i) => ({ id: 700_000 + i, vector: [i % 7, 1], payload: { n: i, text } }));
    const res = await call(suite.set.url('primary'), 'PUT', `/collections/${COLLECTION}/points`, { points });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    const opId = res.body.result.operation_id as number;
    for (const name of ['replica1', 'replica2']) {
      expect(missing(points.map((p) => p.id), await pointIds(suite.set.url(name), opId)), name).to.deep.equal([]);
      const read = await call(suite.set.url(name), 'GET', `/collections/${COLLECTION}/points/702999`);
      expect(read.body.result.payload, name).to.deep.equal({ n: 2_999, text });
    }
    // And writes go on after it.
    const after = (await writePoint(suite.set.url('primary'), 703_000))!;
    expect((await pointIds(suite.set.url('replica1'), after)).has(703_000)).to.equal(true);
    expect((await call(suite.set.url('primary'), 'GET', '/replication')).body.result.fenced).to.equal(null);
  });

  it('an import into the primary is staged beside its log, published as those blocks ahead of its entry, and staged and applied on both replicas', async () => {
    const text = 'z'.repeat(1_000);
    const file = Buffer.concat([...exportFileChunks({ name: 'x', config: { size: 2, distance: 'Dot', m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16) }, points: 3_000, pointAt: (i) => ({ id: i, vector: Float32Array.of(i % 7, 1), payload: { n: i, text }, labels: [] }) })]);
    expect(file.length, 'more than one NATS message holds').to.be.above(2 * 2 ** 20);
    const res = await fetch(`${suite.set.url('primary')}/collections/staged/import?mode=create`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: file });
    const answer = (await res.json()) as { result: { points_imported: number; operation_id: number } };
    expect(res.status, JSON.stringify(answer).slice(0, 300)).to.equal(200);
    expect(answer.result.points_imported).to.equal(3_000);
    const opId = answer.result.operation_id;
    const stageSizes = (name: string) => readdirSync(join(suite.set.dataDir(name), 'imports')).map((f) => statSync(join(suite.set.dataDir(name), 'imports', f)).size);
    const [staged] = stageSizes('primary');
    expect(staged, 'the primary staged the blocks').to.be.above(2 * 2 ** 20);
    for (const name of ['replica1', 'replica2']) {
      const read = await call(suite.set.url(name), 'GET', '/collections/staged/points/2999', undefined, { 'x-min-operation-id': String(opId) });
      expect(read.status, JSON.stringify(read.body).slice(0, 300)).to.equal(200);
      expect(read.body.result.payload, name).to.deep.equal({ n: 2_999, text });
      const count = await call(suite.set.url(name), 'POST', '/collections/staged/points/count', { exact: true });
      expect(count.body.result.count, name).to.equal(3_000);
      expect(stageSizes(name), `${name} staged the same blocks`).to.deep.equal([staged]);
    }
    expect((await call(suite.set.url('primary'), 'GET', '/replication')).body.result.fenced).to.equal(null);
  });

  it('a replica refuses writes with 421 naming the primary, in our dialect, Qdrant\'s and Bolt\'s', async () => {
    const ours = await call(suite.set.url('replica1'), 'PUT', `/collections/${COLLECTION}/points`, { points: [{ id: 1, vector: [1, 1] }] });
    expect(ours.status).to.equal(421);
    expect(ours.body).to.include({ status: 'error', code: 421 });
    expect(ours.body.message).to.include(suite.set.primaryUrl);
    // An import too, before its body is read or staged: bytes that are no export file get the 421, not a 400.
    const file = Buffer.alloc(100_000, 7);
    const stages = (): number => (existsSync(join(suite.set.dataDir('replica1'), 'imports')) ? readdirSync(join(suite.set.dataDir('replica1'), 'imports')).length : 0);
    const stagesBefore = stages();
    const imported = await fetch(`${suite.set.url('replica1')}/collections/refused/import?mode=create`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: file });
    expect(imported.status).to.equal(421);
    expect(((await imported.json()) as { message: string }).message).to.include(suite.set.primaryUrl);
    expect(stages(), 'nothing staged').to.equal(stagesBefore);
    const server = suite.set.servers.get('replica1')!;
    const qdrantPort = /"port":(\d+)[^\n]*"dialect":"qdrant"/.exec(server.output())![1];
    const qdrant = await call(`http://127.0.0.1:${qdrantPort}`, 'PUT', `/collections/${COLLECTION}/points`, { points: [{ id: 1, vector: [1, 1] }] });
    expect(qdrant.status).to.equal(421);
    expect(qdrant.body.status.error).to.include(suite.set.primaryUrl);
    const boltUrl = /"url":"(bolt:\/\/[^"]+)"[^\n]*"msg":"listening \(Bolt\)"/.exec(server.output())![1]!;
    const driver = neo4j.driver(boltUrl, neo4j.auth.basic('neo4j', 'x'));
    try {
      const err = await driver.executeQuery(`CREATE (n {name: 'x'})`, {}, { database: COLLECTION }).catch((e: { code: string; message: string }) => e);
      expect((err as { code: string }).code).to.equal('Neo.ClientError.Cluster.NotALeader');
      expect((err as { message: string }).message).to.include(suite.set.primaryUrl);
    } finally {
      await driver.close();
    }
  });

  it('reports its lag on /readyz, GET /replication and the changefeed', async () => {
    const opId = (await writePoint(suite.set.url('primary'), 100_000))!;
    await pointIds(suite.set.url('replica2'), opId);
    const ready = await call(suite.set.url('replica2'), 'GET', '/readyz');
    expect(ready.status).to.equal(200);
    expect(ready.body.replication).to.include({ role: 'replica', mode: 'sync', primary: suite.set.primaryUrl, stopped: null, fenced: null });
    expect(ready.body.replication.applied_operation_id).to.be.at.least(opId);
    const status = await call(suite.set.url('replica2'), 'GET', '/replication');
    expect(status.body.result.lag_entries).to.be.a('number');
    const primary = await call(suite.set.url('primary'), 'GET', '/replication');
    expect(primary.body.result).to.include({ role: 'primary', unpublished_entries: 0 });
    expect(primary.body.result.published_operation_id).to.be.at.least(opId);
    const feed = await fetch(`${suite.set.url('replica2')}/changes?from=${opId}&wait_ms=0`);
    expect(Number(feed.headers.get('x-applied-operation-id'))).to.be.at.least(opId);
    expect(feed.headers.get('x-replication-lag-entries')).to.match(/^\d+$/);
    const lines = (await feed.text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0].operation_id).to.equal(opId);
  });

  it('a replica killed and restarted catches up on what was written while it was down', async () => {
    await suite.set.kill('replica1');
    let count = 0;
    const { acknowledged, maxOpId } = await writeUntil(() => suite.set.url('primary'), 200_000, 4, () => count++ >= 100);
    await suite.set.startServer('replica1', 'replica');
    expect(missing(acknowledged, await pointIds(suite.set.url('replica1'), maxOpId))).to.deep.equal([]);
  });

  it('a primary that keeps no log beyond its snapshots restarts as the primary: snapshots keep the newest published entry, to know the stream\'s head for its own', async () => {
    await suite.set.kill('primary');
    await suite.set.startServer('primary', 'primary', { SERVICE_LOG_RETENTION: '0', SERVICE_SNAPSHOT_EVERY: '5' });
    // The tenth write is followed by a snapshot at it, which drops the log through it but for what the stream does not hold.
    for (let id = 400_000; id < 400_010; id++) await writePoint(suite.set.url('primary'), id);
    const snapshots = join(suite.set.dataDir('primary'), 'snapshots');
    const last = (await call(suite.set.url('primary'), 'GET', '/replication')).body.result.published_operation_id as number;
    while (!readdirSync(snapshots).includes(`snapshot-${String(last).padStart(16, '0')}.snap`)) await new Promise((r) => setTimeout(r, 20));
    await suite.set.kill('primary');
    await suite.set.startServer('primary', 'primary');
    // It listens on a new port: new replicas bootstrap from there.
    suite.set.primaryUrl = suite.set.url('primary');
    expect((await call(suite.set.url('primary'), 'GET', '/readyz')).status).to.equal(200);
    const opId = await writePoint(suite.set.url('primary'), 400_010);
    expect(opId, 'the restarted primary takes writes').to.be.a('number');
    expect((await pointIds(suite.set.url('replica2'), opId!)).has(400_010)).to.equal(true);
  });

  it('the primary streams a fresh snapshot to GET /replication/bootstrap, with its length and operation_id', async () => {
    const opId = (await writePoint(suite.set.url('primary'), 310_000))!;
    const res = await fetch(new URL('/replication/bootstrap', suite.set.url('primary')));
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/octet-stream');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).to.equal(bytes.length);
    const check = new SnapshotFrameCheck();
    check.feed(bytes);
    const head = check.end();
    expect(head.opId).to.equal(Number(res.headers.get('x-operation-id')));
    expect(head.opId, 'everything applied is in it').to.be.at.least(opId);
  });

  it('a replica started on an empty data dir bootstraps from the primary\'s snapshot, then follows', async () => {
    await suite.set.startServer('replica3', 'replica');
    const all = await pointIds(suite.set.url('primary'), 0);
    const opId = (await writePoint(suite.set.url('primary'), 300_000))!;
    const held = await pointIds(suite.set.url('replica3'), opId);
    expect(missing([...all, 300_000], held)).to.deep.equal([]);
    expect(suite.set.servers.get('replica3')!.output()).to.match(/bootstrapped from the primary/);
  });
});
