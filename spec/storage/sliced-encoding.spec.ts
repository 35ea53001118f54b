import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Collection } from '../../storage/collection.js';
import { joinChunks } from '../../storage/codec/join-chunks.js';
import { Engine } from '../../storage/engine/engine.js';
import type { DbEvent } from '../../storage/events/types.js';
import { exportCollection } from '../../storage/export/export-writer.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { captureSnapshot, decodeSnapshot, encodeSnapshot, type SnapshotOutput } from '../../storage/snapshot/snapshot-codec.js';
import { block } from '../../storage/export/format.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { tempDir } from '../helpers/temp-dir.js';
import { randomVectors } from '../helpers/vectors.js';
import { FIXTURE_DIM, fixtureCollection } from './encoding-fixture.js';

const sha256 = (chunks: Iterable<Uint8Array>): string => {
  const h = createHash('sha256');
  for (const c of chunks) h.update(c);
  return h.digest('hex');
};

/** The chunks written to an output, copied (the encoder reuses its buffer). */
function memoryOutput(): { out: SnapshotOutput; bytes: () => Uint8Array } {
  const chunks: Uint8Array[] = [];
  return {
    out: {
      append: (b) => void chunks.push(b.slice()),
      reserve: (n) => {
        const room = new Uint8Array(n);
        chunks.push(room);
        return (b) => room.set(b);
      },
    },
    bytes: () => joinChunks(chunks),
  };
}

/**
 * Every kind of change a collection takes, one per call, in turn: indexing (which
 * frees the slots of removed waypoints), new points (into slots free before the capture
 * too), new vectors for old points, payloads, deletes, edges and their properties, named and
 * sparse vectors.
 */
function changer(c: Collection): () => void {
  const fresh = randomVectors(400, FIXTURE_DIM, 77);
  let k = 0;
  return () => {
    const i = k++;
    const v = fresh[i % fresh.length]!;
    switch (i % 8) {
      case 0:
        // Links the pending points, repairs the removed waypoints and frees their slots (new points below are given them).
        while (c.indexSome(1000));
        break;
      case 1:
        c.upsert([{ id: 10_000 + i, vector: v, payload: { added: i }, labels: ['New'] }]);
        break;
      case 2:
        c.upsert([{ id: 100 + i, vector: v, payload: { moved: i }, labels: [], named: { title: Float32Array.of(i, 1, 2) } }]);
        break;
      case 3:
        c.setPayload(200 + i, { changed: i }, ['Changed']);
        c.remove(300 + i);
        break;
      case 4:
        c.graph.add(1, 2, 'A', i);
        c.graph.add(5 + i, 6 + i, 'C', 1, { n: i });
        break;
      case 5:
        c.upsert([{ id: 400 + i, vector: null, payload: {}, labels: [], sparse: { words: { indices: Uint32Array.of(1), values: Float32Array.of(i) } } }]);
        break;
      case 6:
        c.remove(400 + i - 1);
        break;
      default:
        c.declareIndex('g', null);
        c.graph.removeIncident(2);
    }
  };
}

/**
 * A version 6 snapshot as version 5 wrote it: each collection's frames joined into one block
 * (type 1, its length, its CRC), the version in the header 5, the rest as it is.
 */
function asVersion5(v6: Uint8Array): Uint8Array {
  const view = new DataView(v6.buffer, v6.byteOffset, v6.byteLength);
  const head = v6.slice(0, 20);
  new DataView(head.buffer).setUint16(4, 5, true);
  const out: Uint8Array[] = [head];
  let at = 20;
  for (let i = view.getUint32(16, true); i > 0; i--) {
    const payloads: Uint8Array[] = [];
    for (let last = false; !last; ) {
      last = v6[at] === 4;
      const length = view.getUint32(at + 1, true);
      payloads.push(v6.subarray(at + 9, at + 9 + length));
      at += 9 + length;
    }
    out.push(block(1, joinChunks(payloads)));
  }
  out.push(v6.subarray(at));
  return joinChunks(out);
}

describe('storage/sliced encoding of snapshots and exports', () => {
  it('writes the bytes it wrote before for the same state, loads them back to it, and loads formats 6 and 5 as written then', () => {
    // The hash of format 8 for fixtureCollection (format 7, whose hash was 581973a7..., with the
    // multivectors' count in each collection's config: 4 bytes in its first frame, and the version);
    // the export file's, format 7 (6 with the same count in its config).
    const state = new Map([['rich', fixtureCollection()], ['other', fixtureCollection('other')]]);
    const v8 = joinChunks(encodeSnapshot(state, 77));
    expect(sha256([v8])).to.equal('d32023207ea1fcbb7cdd3669e9f72edfbde37c1dbf38d851bd7bada76396bd19');
    expect(joinChunks(encodeSnapshot(decodeSnapshot(v8).collections, 77))).to.deep.equal(v8);
    expect(sha256(exportCollection(state.get('rich')!, 77, 'abcd').chunks())).to.equal('c7dee943ace6676e33b38dfb326962d390c30dca7fb91842495be119c6b42e11');
    // spec/fixtures/snapshot-v6.snap (the format-6 writer's), and the same as format 5 wrote it: the same state.
    const v6 = readFileSync(new URL('../../../spec/fixtures/snapshot-v6.snap', import.meta.url));
    const fromV6 = joinChunks(encodeSnapshot(decodeSnapshot(v6).collections, 12));
    expect(joinChunks(encodeSnapshot(decodeSnapshot(asVersion5(v6)).collections, 12))).to.deep.equal(fromV6);
  });

  it('writes a captured snapshot as the state was at the capture, whatever is applied between its slices', () => {
    const c = fixtureCollection();
    // Its slot is free at the capture: the first new point is given it.
    c.remove(90_000);
    const state = new Map([['rich', c]]);
    const atCapture = joinChunks(encodeSnapshot(state, 9));
    const capture = captureSnapshot(state, 9);
    const { out, bytes } = memoryOutput();
    const writing = capture.write(out);
    const change = changer(c);
    let slices = 0;
    while (!writing.next().done) {
      change();
      slices++;
    }
    capture.release();
    expect(slices, 'the writing was sliced').to.be.above(8);
    expect(Buffer.from(bytes()).equals(Buffer.from(atCapture))).to.equal(true);
    expect(Buffer.from(joinChunks(encodeSnapshot(state, 9))).equals(Buffer.from(atCapture)), 'the changes were applied').to.equal(false);
  });

  it('takes the HNSW links a piece at a time before anything else, linking nothing meanwhile, and links again once they are taken', async () => {
    const c = fixtureCollection();
    const state = new Map([['rich', c]]);
    const atCapture = joinChunks(encodeSnapshot(state, 9));
    const pending = c.pendingCount;
    expect(pending, 'points wait to be linked').to.be.above(0);
    const capture = captureSnapshot(state, 9);
    let copied = false;
    void capture.copied.then(() => (copied = true));
    const { out, bytes } = memoryOutput();
    const writing = capture.write(out);
    expect(c.indexSome(1000), 'no linking before the links are taken').to.equal(false);
    expect(c.pendingCount).to.equal(pending);
    // Between the copy's slices each graph links again once its own links are taken (the
    // unnamed vector's first): the bytes below are the capture's only if none linked before.
    let copySlices = 0;
    while (c.copying) {
      expect(c.indexSome(1000), 'indexing waits for the copy').to.equal(false);
      expect(bytes().length, 'nothing written before the links are taken').to.equal(0);
      copySlices++;
      expect(writing.next().done).to.equal(false);
    }
    expect(copySlices, 'the copy was sliced').to.be.above(1);
    await Promise.resolve();
    expect(copied).to.equal(true);
    while (c.indexSome(1000));
    expect(c.pendingCount, 'linked while the rest is written').to.equal(0);
    while (!writing.next().done);
    capture.release();
    expect(Buffer.from(bytes()).equals(Buffer.from(atCapture))).to.equal(true);
  });

  it('lets linking go on when a capture is released before its links are taken', async () => {
    const c = fixtureCollection();
    const capture = captureSnapshot(new Map([['rich', c]]), 9);
    const writing = capture.write(memoryOutput().out);
    writing.next();
    expect(c.copying).to.equal(true);
    let settled = false;
    const waiting = c.settled().then(() => (settled = true));
    await Promise.resolve();
    expect(settled, 'settled waits for the copy').to.equal(false);
    capture.release();
    await waiting;
    await capture.copied;
    expect(c.copying).to.equal(false);
    while (c.indexSome(1000));
    expect(c.pendingCount).to.equal(0);
  });

  it('writes an export as the collection was at its start, whatever is applied between its blocks and its slices', async () => {
    const c = fixtureCollection();
    const atStart = joinChunks([...exportCollection(c, 5).chunks()]);
    const change = changer(c);
    const blocks: Uint8Array[] = [];
    for (const chunk of exportCollection(c, 5).chunks()) {
      blocks.push(chunk);
      change();
    }
    expect(Buffer.from(joinChunks(blocks)).equals(Buffer.from(atStart))).to.equal(true);

    const now = joinChunks([...exportCollection(c, 5).chunks()]);
    let stop = false;
    const tick = (): void => {
      change();
      if (!stop) setImmediate(tick);
    };
    setImmediate(tick);
    const streamed: Uint8Array[] = [];
    for await (const chunk of exportCollection(c, 5).stream()) streamed.push(chunk);
    stop = true;
    expect(Buffer.from(joinChunks(streamed)).equals(Buffer.from(now))).to.equal(true);
  });

  describe('through the engine, on LMDB and snapshot files', () => {
    const config = { size: 8, distance: 'Cosine' as const, m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) };
    const vectors = randomVectors(6000, 8, 3);
    const upsert = (from: number, count: number, tag: number): DbEvent => ({
      type: 'upsert_points',
      collection: 'c',
      points: Array.from({ length: count }, (_, k) => ({ id: from + k, vector: vectors[(from + k + tag) % vectors.length]!, payload: { tag, k }, labels: tag % 2 ? ['Odd'] : [] })),
    });
    const file = (c: Collection, opId: number) => Buffer.from(joinChunks([...exportCollection(c, opId).chunks()]));

    it('takes a snapshot while writes go on: restarted from it, and replayed from the log to its operation_id, the state is the same', async () => {
      const dir = tempDir();
      const log = LmdbLog.open(dir.path);
      const files = new SnapshotFiles(join(dir.path, 'snapshots'));
      const engine = new Engine(log, { snapshots: files, logRetention: 1_000_000 });
      try {
        await engine.start();
        await engine.submit({ type: 'create_collection', name: 'c', config });
        for (let from = 0; from < 5000; from += 500) await engine.submit(upsert(from, 500, 0));
        await engine.submit({ type: 'upsert_edge', collection: 'c', from: 1, to: 2, relation: 'R', weight: 1, properties: { since: 1 } });
        engine.flushIndex();
        let acknowledged = 0;
        let done = false;
        const taking = engine.snapshot().finally(() => (done = true));
        while (!done) {
          const i = acknowledged++;
          await engine.submit(i % 3 === 2 ? { type: 'delete_points', collection: 'c', ids: [i * 7] } : upsert(i * 13, 20, i + 1));
        }
        const opId = await taking;
        expect(acknowledged, 'writes were applied while the snapshot was written').to.be.above(0);
        expect(opId).to.be.below(engine.lastAppliedOperationId);
        expect(readdirSync(join(dir.path, 'snapshots')).filter((f) => f.endsWith('.tmp'))).to.deep.equal([]);

        const snapshot = files.loadNewest()!;
        expect(snapshot.opId).to.equal(opId);
        const replayed = new Engine(log, { schedule: () => undefined });
        replayed.replay(opId, 0);
        expect(file(snapshot.collections.get('c')!, opId).equals(file(replayed.collections.get('c')!, opId))).to.equal(true);
        expect(snapshot.collections.get('c')!.nextNodeId).to.equal(replayed.collections.get('c')!.nextNodeId);

        const restarted = new Engine(log, { snapshots: files, schedule: () => undefined });
        restarted.replay();
        expect(restarted.lastSnapshotOperationId).to.equal(opId);
        expect(file(restarted.collections.get('c')!, 1).equals(file(engine.collections.get('c')!, 1))).to.equal(true);
      } finally {
        await engine.close();
        dir.remove();
      }
    });

    it('holds background indexing off while a snapshot copies the links, and takes it up again once they are taken', async () => {
      const dir = tempDir();
      // Indexing slices run only when the test runs them.
      const tasks: (() => void)[] = [];
      const engine = new Engine(LmdbLog.open(dir.path), { snapshots: new SnapshotFiles(join(dir.path, 'snapshots')), schedule: (task) => void tasks.push(task) });
      const runTasks = () => {
        for (let task = tasks.shift(); task; task = tasks.shift()) task();
      };
      try {
        await engine.start();
        await engine.submit({ type: 'create_collection', name: 'c', config });
        await engine.submit(upsert(0, 3000, 0));
        const c = engine.collections.get('c')!;
        expect(c.pendingCount).to.equal(3000);
        // A copy longer than the snapshot's first slice (this graph's links take one piece): the
        // engine then lets the event loop turn with the links not yet taken.
        const capture = c.capture.bind(c);
        c.capture = (links) => {
          const real = capture(links);
          function* longer() {
            const until = performance.now() + 5;
            while (performance.now() < until);
            yield;
            yield* real.copy;
          }
          return { ...real, copy: longer() };
        };
        const taking = engine.snapshot();
        expect(c.copying, 'the capture holds linking off').to.equal(true);
        runTasks();
        expect(c.pendingCount, 'nothing linked while the links are copied').to.equal(3000);
        expect(tasks, 'the indexing slice found nothing to do and stopped').to.deep.equal([]);
        await taking;
        expect(c.copying).to.equal(false);
        expect(tasks.length, 'indexing scheduled again once the links were taken').to.be.above(0);
        while (tasks.length > 0) runTasks();
        expect(c.pendingCount).to.equal(0);
      } finally {
        await engine.close();
        dir.remove();
      }
    });

    it('fails only that snapshot when its encoding fails part way: reported once, no temporary file, the capture released, writes and the next snapshot go on', async () => {
      const dir = tempDir();
      const files = new SnapshotFiles(join(dir.path, 'snapshots'));
      const reports: { opId: number; error?: Error }[] = [];
      const engine = new Engine(LmdbLog.open(dir.path), { snapshots: files, onSnapshot: (r) => reports.push(r) });
      try {
        await engine.start();
        await engine.submit({ type: 'create_collection', name: 'c', config });
        await engine.submit(upsert(0, 3000, 0));
        const c = engine.collections.get('c')!;
        const capture = c.capture.bind(c);
        let released = 0;
        c.capture = () => {
          const real = capture();
          return {
            copy: real.copy,
            *write(w) {
              let pieces = 0;
              for (const step of real.write(w)) {
                if (++pieces === 3) throw new Error('the encoder died');
                yield step;
              }
            },
            release: () => {
              released++;
              real.release();
            },
          };
        };
        const failed = engine.snapshot().then(
          () => null,
          (err: Error) => err,
        );
        await engine.submit(upsert(3000, 10, 1));
        expect((await failed)?.message).to.equal('the encoder died');
        expect(reports.map((r) => r.error?.message)).to.deep.equal(['the encoder died']);
        expect(released).to.equal(1);
        expect(files.list()).to.deep.equal([]);
        expect(readdirSync(join(dir.path, 'snapshots')).filter((f) => f.endsWith('.tmp'))).to.deep.equal([]);

        c.capture = capture;
        await engine.submit({ type: 'delete_points', collection: 'c', ids: [5] });
        const opId = await engine.snapshot();
        expect(files.list()).to.deep.equal([opId]);
        expect(files.loadNewest()!.collections.get('c')!.store.liveCount).to.equal(3009);
      } finally {
        await engine.close();
        dir.remove();
      }
    });

    it('writes its last snapshot at shutdown, with the writes acknowledged before', async () => {
      const dir = tempDir();
      const files = new SnapshotFiles(join(dir.path, 'snapshots'));
      const engine = new Engine(LmdbLog.open(dir.path), { snapshots: files });
      await engine.start();
      try {
        await engine.submit({ type: 'create_collection', name: 'c', config });
        await engine.submit(upsert(0, 2000, 0));
        const last = engine.lastAppliedOperationId;
        await engine.close();
        expect(files.list()).to.deep.equal([last]);
        expect(files.loadNewest()!.collections.get('c')!.store.liveCount).to.equal(2000);
      } finally {
        dir.remove();
      }
    });
  });
});
