// Run by state-stream.spec in a worker thread: reads a state as a Cypher replica does, late when
// told to, and answers what it decoded.
import { createHash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import type { ByteSource } from '../../storage/codec/byte-source.js';
import { decodeSnapshot, encodeSnapshot } from '../../storage/snapshot/snapshot-codec.js';
import { receiveState, type StateStream } from '../../workers/state-stream.js';

/** Reads nothing for `ms` first: a replica busy while the encoder goes on. */
function late(source: ByteSource, ms: number): ByteSource {
  let first = true;
  return {
    read(n) {
      if (first) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
      first = false;
      return source.read(n);
    },
    get done() {
      return source.done;
    },
  };
}

parentPort!.once('message', (m: { stream: StateStream; lateMs: number }) => {
  try {
    const source = receiveState(m.stream);
    const state = decodeSnapshot(m.lateMs > 0 ? late(source, m.lateMs) : source);
    const hash = createHash('sha256');
    for (const chunk of encodeSnapshot(state.collections, state.opId)) hash.update(chunk);
    parentPort!.postMessage({ opId: state.opId, sha256: hash.digest('hex') });
  } catch (err) {
    parentPort!.postMessage({ error: `${(err as Error).name}: ${(err as Error).message}` });
  }
});
