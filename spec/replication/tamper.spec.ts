import { expect } from 'chai';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { tempDir } from '../helpers/temp-dir.js';
import { NATS_SERVER, natsServerPresent, ReplicaSet } from '../helpers/replica-set.js';
import { requirePrerequisite } from '../helpers/prerequisite.js';
import { chainHashOf, frameChained, unframeRecord } from '../../storage/log/record.js';
import { entryHeaders, streamHead, SUBJECT } from '../../replication/stream.js';
import { call, createCollection, pointIds, writePoint } from './writes.js';

describe('replication: a replica checks each entry from the stream against the one before it', function () {
  this.timeout(60_000);
  requirePrerequisite({ what: `nats-server (${NATS_SERVER})`, present: natsServerPresent, install: 'apt-get install -y nats-server (as root; .ci/run does it), or set NATS_SERVER_PATH' });
  const dir = tempDir('vgdb-repl-tamper-');
  let set: ReplicaSet;

  before(async () => {
    set = await ReplicaSet.start(dir.path, 1);
    await createCollection(set.url('primary'));
  });
  after(async () => {
    await set?.stop();
    dir.remove();
  });

  it('stops at an entry whose chain hash does not follow (its CRC recomputed), naming it, and applies nothing from it on', async () => {
    const opId = (await writePoint(set.url('primary'), 1))!;
    await pointIds(set.url('replica1'), opId);
    const nc = await connect({ servers: set.nats.url.split(',') });
    try {
      const head = await streamHead(await jetstreamManager(nc), 'VGDB_LOG');
      if (head.last?.kind !== 'entry') throw new Error('the stream should end with an entry');
      // The same body and hash under the next operation_id: a whole record, with a valid CRC, that does not chain.
      const forged = frameChained(unframeRecord(head.last.record, head.last.opId), chainHashOf(head.last.record)!);
      await jetstream(nc).publish(SUBJECT, forged, { msgID: String(opId + 1), headers: entryHeaders(opId, null) });
    } finally {
      await nc.close();
    }
    let ready = await call(set.url('replica1'), 'GET', '/readyz');
    for (let waited = 0; ready.status === 200 && waited < 10_000; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
      ready = await call(set.url('replica1'), 'GET', '/readyz');
    }
    expect(ready.status).to.equal(503);
    expect(ready.body.message).to.match(new RegExp(`log entry ${opId + 1} from the stream has a chain hash that does not follow`));
    expect(ready.body.replication.applied_operation_id).to.equal(opId);
  });
});
