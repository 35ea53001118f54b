import { expect } from 'chai';
import { useReplicaSet } from './replica-suite.js';
import { call, missing, pointIds, writePoint } from './writes.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('replication: async (acknowledged after LMDB, published behind it)', function () {
  this.timeout(120_000);
  const suite = useReplicaSet('async', 1, { SERVICE_REPLICATION: 'async' });

  it('acknowledges writes while JetStream has no quorum, reports them unpublished, and publishes them once it is back', async () => {
    await suite.set.nats.kill(0);
    await suite.set.nats.kill(1);
    const ids = Array.from({ length: 20 }, (_, i) => i + 1);
    let last = 0;
    for (const id of ids) last = (await writePoint(suite.set.url('primary'), id))!;
    expect(last, 'every write acknowledged from LMDB alone').to.be.a('number');
    const behind = (await call(suite.set.url('primary'), 'GET', '/replication')).body.result;
    expect(behind).to.include({ role: 'primary', mode: 'async' });
    expect(behind.unpublished_entries).to.be.at.least(1);
    expect(behind.published_operation_id).to.be.below(last);
    suite.set.nats.restart(0);
    suite.set.nats.restart(1);
    expect(missing(ids, await pointIds(suite.set.url('replica1'), last))).to.deep.equal([]);
    let status = (await call(suite.set.url('primary'), 'GET', '/replication')).body.result;
    for (let waited = 0; status.unpublished_entries > 0 && waited < 10_000; waited += 100) {
      await sleep(100);
      status = (await call(suite.set.url('primary'), 'GET', '/replication')).body.result;
    }
    expect(status).to.include({ unpublished_entries: 0, published_operation_id: last });
  });
});
