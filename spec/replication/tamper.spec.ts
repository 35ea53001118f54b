import { expect } from 'chai';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { chainHashOf, frameChained, unframeRecord } from '../../storage/log/record.js';
import { entryHeaders, streamHead, SUBJECT } from '../../replication/stream.js';
import { useReplicaSet } from './replica-suite.js';
import { call, pointIds, writePoint } from './writes.js';

describe('replication: a replica checks each entry from the stream against the one before it', function () {
  this.timeout(60_000);
  const suite = useReplicaSet('tamper', 1);

  it('stops at an entry whose chain hash does not follow (its CRC recomputed), naming it, and applies nothing from it on', async () => {
    const opId = (await writePoint(suite.set.url('primary'), 1))!;
    await pointIds(suite.set.url('replica1'), opId);
    const nc = await connect({ servers: suite.set.nats.url.split(',') });
    try {
      const head = await streamHead(await jetstreamManager(nc), 'VGDB_LOG');
      if (head.last?.kind !== 'entry') throw new Error('the stream should end with an entry');
      // The same body and hash under the next operation_id: a whole record, with a valid CRC, that does not chain.
      const forged = frameChained(unframeRecord(head.last.record, head.last.opId), chainHashOf(head.last.record)!);
      await jetstream(nc).publish(SUBJECT, forged, { msgID: String(opId + 1), headers: entryHeaders(opId, null) });
    } finally {
      await nc.close();
    }
    let ready = await call(suite.set.url('replica1'), 'GET', '/readyz');
    for (let waited = 0; ready.status === 200 && waited < 10_000; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
      ready = await call(suite.set.url('replica1'), 'GET', '/readyz');
    }
    expect(ready.status).to.equal(503);
    expect(ready.body.message).to.match(new RegExp(`log entry ${opId + 1} from the stream has a chain hash that does not follow`));
    expect(ready.body.replication.applied_operation_id).to.equal(opId);
  });
});
