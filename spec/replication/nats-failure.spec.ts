import { expect } from 'chai';
import { tempDir } from '../helpers/temp-dir.js';
import { NATS_SERVER, natsServerPresent, ReplicaSet } from '../helpers/replica-set.js';
import { requirePrerequisite } from '../helpers/prerequisite.js';
import { call, COLLECTION, createCollection, missing, pointIds, writeUntil } from './writes.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('replication: NATS nodes failing under sync writes', function () {
  this.timeout(120_000);
  requirePrerequisite({ what: `nats-server (${NATS_SERVER})`, present: natsServerPresent, install: 'apt-get install -y nats-server (as root; .ci/run does it), or set NATS_SERVER_PATH' });
  const dir = tempDir('vgdb-repl-nats-');
  let set: ReplicaSet;

  before(async () => {
    set = await ReplicaSet.start(dir.path, 2, { SERVICE_REPLICATION_TIMEOUT_MS: '1500' });
    await createCollection(set.url('primary'));
  });
  after(async () => {
    await set?.stop();
    dir.remove();
  });

  it('killing the stream leader\'s NATS node during writes loses no acknowledged write, and writes go on', async () => {
    let stop = false;
    const writing = writeUntil(() => set.url('primary'), 1, 4, () => stop);
    await sleep(500);
    const leader = await set.nats.leaderOf('VGDB_LOG');
    await set.nats.kill(leader);
    const published = async () => (await call(set.url('primary'), 'GET', '/replication')).body.result.published_operation_id as number;
    // The stream's group elects a new leader (some seconds in nats-server 2.9), then publishing goes on.
    const before = await published();
    for (let waited = 0; (await published()) <= before && waited < 30_000; waited += 250) await sleep(250);
    const after = await published();
    await sleep(500);
    stop = true;
    const { acknowledged, maxOpId } = await writing;
    expect(after, 'writes were published with one NATS node down').to.be.greaterThan(before);
    set.nats.restart(leader);
    for (const name of ['primary', 'replica1', 'replica2']) expect(missing(acknowledged, await pointIds(set.url(name), maxOpId)), name).to.deep.equal([]);
  });

  it('with two of three NATS nodes down a write is refused with 503 and not acknowledged; once they are back, writes go on', async () => {
    await set.nats.ready();
    const down = [0, 1];
    for (const i of down) await set.nats.kill(i);
    const refused = await call(set.url('primary'), 'PUT', `/collections/${COLLECTION}/points`, { points: [{ id: 900_000, vector: [1, 1] }] });
    expect(refused.status).to.equal(503);
    expect(refused.body.message).to.match(/JetStream did not confirm it/);
    for (const i of down) set.nats.restart(i);
    let count = 0;
    const { acknowledged, maxOpId } = await writeUntil(() => set.url('primary'), 500_000, 2, () => count++ >= 40);
    expect(acknowledged.length).to.be.greaterThan(0);
    for (const name of ['replica1', 'replica2']) expect(missing(acknowledged, await pointIds(set.url(name), maxOpId)), name).to.deep.equal([]);
  });
});
