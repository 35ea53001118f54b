import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { Collection } from '../../storage/collection.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { encodeSnapshot, FRAME_BYTES, writeSnapshotInSlices } from '../../storage/snapshot/snapshot-codec.js';
import { StateSender } from '../../workers/state-stream.js';

const DIM = 128;
const config: CollectionConfig = { size: DIM, distance: 'Euclid', m: 8, m0: 16, efConstruct: 16, ml: 1 / Math.log(8) };

/** 100,000 x 128 floats, a few linked: a state of about 55 MB. */
function bigState(): Map<string, Collection> {
  const c = new Collection('big', config, 1);
  const vector = new Float32Array(DIM);
  for (let from = 0; from < 100_000; from += 10_000) {
    c.upsert(Array.from({ length: 10_000 }, (_, i) => {
      vector.fill(Math.sin(from + i));
      return { id: from + i, vector, payload: { i: from + i }, labels: [] };
    }));
  }
  c.indexSome(500);
  c.graph.add(1, 2, 'R', 1);
  return new Map([['big', c]]);
}

/** Sends `state` to a receiving thread as the Cypher replicas do; answers what it decoded and the most the sender held at once. */
async function send(state: Map<string, Collection>, lateMs: number, stopAfterSlices = Infinity): Promise<{ answer: { opId?: number; sha256?: string; error?: string }; mostPending: number }> {
  const thread = new Worker(new URL('./state-receiver.js', import.meta.url));
  try {
    const sender = new StateSender();
    thread.postMessage({ stream: sender.stream, lateMs }, [sender.stream.port]);
    const answered = once(thread, 'message');
    let slices = 0;
    try {
      await writeSnapshotInSlices(state, 9, sender, 1, async () => {
        await new Promise((r) => setImmediate(r));
        await sender.room(() => false);
        if (++slices >= stopAfterSlices) throw new Error('given up');
      });
      sender.end(null);
    } catch (err) {
      sender.end((err as Error).message);
    }
    return { answer: ((await answered) as [{ opId?: number; sha256?: string; error?: string }])[0], mostPending: sender.mostPending };
  } finally {
    await thread.terminate();
  }
}

describe('workers: a Cypher replica\'s state, sent as it is encoded', function () {
  this.timeout(120_000);
  const state = bigState();
  const whole = encodeSnapshot(state, 9);
  const size = whole.reduce((n, c) => n + c.length, 0);
  const sha256 = whole.reduce((h, c) => h.update(c), createHash('sha256')).digest('hex');

  it('arrives whole, and the sender never holds more than a frame and what the replica has not taken (8 MiB)', async () => {
    expect(size).to.be.above(50 * 2 ** 20);
    for (const lateMs of [0, 1_000]) {
      const { answer, mostPending } = await send(state, lateMs);
      expect(answer, `${lateMs} ms late`).to.deep.equal({ opId: 9, sha256 });
      expect(mostPending, `${lateMs} ms late: held ${(mostPending / 2 ** 20).toFixed(1)} MiB`).to.be.below(FRAME_BYTES + 8 * 2 ** 20 + 2 * 2 ** 20);
    }
  });

  it('does not wait for a replica that stopped: the encoder goes on once the replica is given up', async () => {
    const sender = new StateSender();
    sender.append(new Uint8Array(9 * 2 ** 20));
    let givenUp = false;
    const waited = sender.room(() => givenUp);
    const first = await Promise.race([waited.then(() => 'room'), new Promise((r) => setTimeout(() => r('waiting'), 50))]);
    expect(first, 'nobody takes the 9 MiB sent').to.equal('waiting');
    givenUp = true;
    await waited;
    sender.end('given up');
  });

  it('stops the replica\'s read when the sender gives up part way, saying why', async () => {
    const { answer } = await send(state, 0, 5);
    expect(answer.error).to.equal('StateStoppedError: the request thread stopped sending the state: given up');
  });
});
