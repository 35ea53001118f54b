import { expect } from 'chai';
import { tempDir } from '../helpers/temp-dir.js';
import { NATS_SERVER, natsServerPresent, ReplicaSet } from '../helpers/replica-set.js';
import { requirePrerequisite } from '../helpers/prerequisite.js';
import { call, createCollection, missing, pointIds, writePoint } from './writes.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('replication: async (acknowledged after LMDB, published behind it)', function () {
  this.timeout(120_000);
  requirePrerequisite({ what: `nats-server (${NATS_SERVER})`, present: natsServerPresent, install: 'apt-get install -y nats-server (as root; .ci/run does it), or set NATS_SERVER_PATH' });
  const dir = tempDir('vgdb-repl-async-');
  let set: ReplicaSet;

  before(async () => {
    set = await ReplicaSet.start(dir.path, 1, { SERVICE_REPLICATION: 'async' });
    await createCollection(set.url('primary'));
  });
  after(async () => {
    await set?.stop();
    dir.remove();
  });

  it('acknowledges writes while JetStream has no quorum, reports them unpublished, and publishes them once it is back', async () => {
    await set.nats.kill(0);
    await set.nats.kill(1);
    const ids = Array.from({ length: 20 }, (_, i) => i + 1);
    let last = 0;
    for (const id of ids) last = (await writePoint(set.url('primary'), id))!;
    expect(last, 'every write acknowledged from LMDB alone').to.be.a('number');
    const behind = (await call(set.url('primary'), 'GET', '/replication')).body.result;
    expect(behind).to.include({ role: 'primary', mode: 'async' });
    expect(behind.unpublished_entries).to.be.at.least(1);
    expect(behind.published_operation_id).to.be.below(last);
    set.nats.restart(0);
    set.nats.restart(1);
    expect(missing(ids, await pointIds(set.url('replica1'), last))).to.deep.equal([]);
    let status = (await call(set.url('primary'), 'GET', '/replication')).body.result;
    for (let waited = 0; status.unpublished_entries > 0 && waited < 10_000; waited += 100) {
      await sleep(100);
      status = (await call(set.url('primary'), 'GET', '/replication')).body.result;
    }
    expect(status).to.include({ unpublished_entries: 0, published_operation_id: last });
  });
});
