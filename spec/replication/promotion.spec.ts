import { expect } from 'chai';
import { useReplicaSet } from './replica-suite.js';
import { call, COLLECTION, missing, pointIds, writePoint, writeUntil } from './writes.js';

describe('replication: promoting a replica after the primary is killed', function () {
  this.timeout(120_000);
  const suite = useReplicaSet('promote', 2);

  it('keeps every acknowledged write, fences the old primary when it restarts, and the other replica follows the new one', async () => {
    let stop = false;
    const primaryUrl = suite.set.url('primary');
    const writing = writeUntil(() => primaryUrl, 1, 4, () => stop);
    await new Promise((r) => setTimeout(r, 800 + Math.random() * 400));
    await suite.set.kill('primary');
    stop = true;
    const { acknowledged } = await writing;
    expect(acknowledged.length).to.be.greaterThan(20);

    const refused = await call(suite.set.url('replica2'), 'POST', '/replication/promote/x');
    expect(refused.status).to.equal(404);
    const promoted = await call(suite.set.url('replica1'), 'POST', '/replication/promote');
    expect(promoted.status, JSON.stringify(promoted.body)).to.equal(200);
    const through = promoted.body.result.operation_id as number;
    expect(missing(acknowledged, await pointIds(suite.set.url('replica1'), through))).to.deep.equal([]);
    expect((await call(suite.set.url('replica1'), 'POST', '/replication/promote')).status, 'a primary is not promoted again').to.equal(409);

    const opId = await writePoint(suite.set.url('replica1'), 1_000_000);
    expect(opId).to.be.greaterThan(through);
    const held = await pointIds(suite.set.url('replica2'), opId!);
    expect(missing([...acknowledged, 1_000_000], held)).to.deep.equal([]);
    const misdirected = await call(suite.set.url('replica2'), 'PUT', `/collections/${COLLECTION}/points`, { points: [{ id: 5, vector: [1, 1] }] });
    expect(misdirected.status).to.equal(421);
    expect(misdirected.body.message).to.include(suite.set.url('replica1'));

    await suite.set.startServer('primary', 'primary');
    const fenced = await call(suite.set.url('primary'), 'PUT', `/collections/${COLLECTION}/points`, { points: [{ id: 6_000_000, vector: [1, 1] }] });
    expect(fenced.status).to.equal(503);
    expect(fenced.body.message).to.match(/takes no writes: it is fenced: operation \d+ in the stream is not this server's/);
    expect((await call(suite.set.url('primary'), 'GET', '/readyz')).status).to.equal(503);
    expect((await pointIds(suite.set.url('replica2'), 0)).has(6_000_000)).to.equal(false);
  });
});
