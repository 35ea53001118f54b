import { expect } from 'chai';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { writeSnapshot } from '../../storage/snapshot/snapshot-codec.js';
import { Engine } from '../../storage/engine/engine.js';
import { MemoryLog } from '../../storage/log/memory-log.js';
import type { RefusalAnswer, ReplicaAnswer, ReplicaRequest } from '../../workers/replica-messages.js';
import { StateSender } from '../../workers/state-stream.js';

/** The replica thread itself, spoken to in its messages: what the pool (cypher-replicas.ts) relies on. */
describe('workers: a Cypher replica thread', function () {
  this.timeout(30_000);
  let thread: Worker;

  beforeEach(async () => {
    const engine = new Engine(new MemoryLog());
    await engine.submit({ type: 'create_collection', name: 'g', config: { size: 2, distance: 'Euclid', m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16) } });
    thread = new Worker(new URL('../../workers/cypher-replica-worker.js', import.meta.url));
    const sender = new StateSender();
    const state: ReplicaRequest = { type: 'state', opId: engine.lastAppliedOperationId, head: null, stream: sender.stream };
    thread.postMessage(state, [sender.stream.port]);
    writeSnapshot(engine.collections, engine.lastAppliedOperationId, sender);
    sender.end(null);
    expect(((await once(thread, 'message')) as [ReplicaAnswer])[0], 'it tells the pool once it has its state').to.deep.equal({ type: 'loaded' });
    await engine.close();
  });

  afterEach(() => thread.terminate());

  const ask = async (request: ReplicaRequest): Promise<ReplicaAnswer> => {
    thread.postMessage(request);
    return ((await once(thread, 'message')) as [ReplicaAnswer])[0];
  };

  it('counts the wait for an operation not applied yet against the query deadline, and answers the timeout once it passes', async () => {
    const answer = (await ask({ type: 'query', id: 7, collection: 'g', text: 'RETURN 1', parameters: {}, after: 9, limits: { timeoutMs: 50 } })) as RefusalAnswer;
    expect(answer.type).to.equal('refused');
    expect(answer.id).to.equal(7);
    expect(answer.message).to.match(/^TransientError \(QueryTimeout\)/);
    expect(answer.cypher).to.deep.include({ kind: 'TransientError', detail: 'QueryTimeout' });
  });

  it('runs at once a query whose operation is applied, with the deadline it came with', async () => {
    const answer = await ask({ type: 'query', id: 8, collection: 'g', text: 'RETURN 1 AS one', parameters: {}, after: 1, limits: { timeoutMs: 50 } });
    expect(answer).to.deep.include({ type: 'result', id: 8, rowsJson: '[[1]]' });
  });
});
