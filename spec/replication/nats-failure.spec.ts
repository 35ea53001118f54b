import { expect } from 'chai';
import { useReplicaSet } from './replica-suite.js';
import { call, COLLECTION, missing, pointIds, writeUntil } from './writes.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('replication: NATS nodes failing under sync writes', function () {
  this.timeout(120_000);
  const suite = useReplicaSet('nats', 2, { SERVICE_REPLICATION_TIMEOUT_MS: '1500' });

  it('killing the stream leader\'s NATS node during writes loses no acknowledged write, and writes go on', async () => {
    let stop = false;
    const writing = writeUntil(() => suite.set.url('primary'), 1, 4, () => stop);
    await sleep(500);
    const leader = await suite.set.nats.leaderOf('VGDB_LOG');
    await suite.set.nats.kill(leader);
    const published = async () => (await call(suite.set.url('primary'), 'GET', '/replication')).body.result.published_operation_id as number;
    // The stream's group elects a new leader (some seconds in nats-server 2.9), then publishing goes on.
    const before = await published();
    for (let waited = 0; (await published()) <= before && waited < 30_000; waited += 250) await sleep(250);
    const after = await published();
    await sleep(500);
    stop = true;
    const { acknowledged, maxOpId } = await writing;
    expect(after, 'writes were published with one NATS node down').to.be.greaterThan(before);
    suite.set.nats.restart(leader);
    for (const name of ['primary', 'replica1', 'replica2']) expect(missing(acknowledged, await pointIds(suite.set.url(name), maxOpId)), name).to.deep.equal([]);
  });

  it('with two of three NATS nodes down a write is refused with 503 and not acknowledged; once they are back, writes go on', async () => {
    await suite.set.nats.ready();
    const down = [0, 1];
    for (const i of down) await suite.set.nats.kill(i);
    const refused = await call(suite.set.url('primary'), 'PUT', `/collections/${COLLECTION}/points`, { points: [{ id: 900_000, vector: [1, 1] }] });
    expect(refused.status).to.equal(503);
    expect(refused.body.message).to.match(/JetStream did not confirm it/);
    for (const i of down) suite.set.nats.restart(i);
    // Until 20 writes are acknowledged: the restarted nodes rejoin and elect in their own time (40 attempts, refused 20 ms apart, once ran out first in CI).
    const giveUpAt = Date.now() + 60_000;
    const { acknowledged, maxOpId } = await writeUntil(() => suite.set.url('primary'), 500_000, 2, (acked) => acked >= 20 || Date.now() > giveUpAt);
    expect(acknowledged.length, 'writes go on once the nodes are back').to.be.at.least(20);
    for (const name of ['replica1', 'replica2']) expect(missing(acknowledged, await pointIds(suite.set.url(name), maxOpId)), name).to.deep.equal([]);
  });
});
