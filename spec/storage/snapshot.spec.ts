import { expect } from 'chai';
import { readdirSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Collection } from '../../storage/collection.js';
import { Engine } from '../../storage/engine/engine.js';
import { CorruptDataError } from '../../storage/errors.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { MemoryLog } from '../../storage/log/memory-log.js';
import { decodeSnapshot, encodeSnapshot, writeSnapshot, type SnapshotOutput } from '../../storage/snapshot/snapshot-codec.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { searchCollection } from '../../query/search/vector-search.js';
import { capturedParts } from '../helpers/captured-parts.js';
import { tempDir } from '../helpers/temp-dir.js';
import { randomVectors } from '../helpers/vectors.js';

const DIM = 16;
const config = (distance: CollectionConfig['distance']): CollectionConfig => ({ size: DIM, distance, m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) });
const join2 = (parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

function busyCollection(distance: CollectionConfig['distance']): Collection {
  const c = new Collection('busy', config(distance), 7);
  const data = randomVectors(1500, DIM, 11);
  c.upsert(data.map((vector, id) => ({ id, vector, payload: { g: id % 5, tags: [`t${id % 3}`] }, labels: id % 4 ? [] : ['Four'] })));
  c.upsert([{ id: 50_000, vector: null, payload: { node: true }, labels: ['Node'] }]);
  while (c.indexSome(10_000));
  for (let id = 0; id < 100; id++) c.remove(id * 3);
  c.upsert(randomVectors(200, DIM, 12).map((vector, i) => ({ id: 2000 + i, vector, payload: {}, labels: [] })));
  c.indexSome(50);
  c.graph.add(1, 2, 'A', 0.5);
  c.graph.add(2, 50_000, 'B', 1);
  c.graph.add(4, 1, 'A', 2, { since: 2020, note: 'x' });
  c.graph.add(4, 1, 'A', 3);
  c.remove(1500);
  return c;
}

function answers(c: Collection): unknown {
  return randomVectors(20, DIM, 99).map((q) => searchCollection(c, { vector: q, limit: 10, offset: 0, ef: 64, filter: null, scoreThreshold: null }).map((h) => [h.id, h.score]));
}

describe('storage/snapshot', () => {
  it('cuts a collection into frames that decode, from chunks or a file, to the same state', async () => {
    const c = busyCollection('Euclid');
    const other = new Collection('other', config('Cosine'), 3);
    other.upsert(randomVectors(300, DIM, 4).map((vector, id) => ({ id, vector, payload: { id }, labels: [] })));
    const state = new Map([['busy', c], ['other', other]]);
    const whole = join2(encodeSnapshot(state, 5));
    const bytes = join2(capturedParts(state, 5, 1000));
    // Each collection's payload is the same; each 1,000 bytes of it after the first take a 9-byte frame header more.
    const payloads = whole.length - 20 - 2 * 9 - 21;
    expect(bytes.length - whole.length).to.be.within(9 * (Math.floor(payloads / 1000) - 2), 9 * Math.ceil(payloads / 1000));
    // Read back from chunks of an unrelated size (values straddle frames and chunks), and from a file.
    const sevens = Array.from({ length: Math.ceil(bytes.length / 777) }, (_, i) => bytes.subarray(i * 777, (i + 1) * 777));
    const dir = tempDir();
    try {
      const files = new SnapshotFiles(dir.path);
      await files.save(5, [bytes]);
      for (const copy of [decodeSnapshot(sevens), files.loadNewest()!]) {
        expect(copy.opId).to.equal(5);
        const busy = copy.collections.get('busy')!;
        expect(answers(busy)).to.deep.equal(answers(c));
        expect(busy.graph.allEdges()).to.deep.equal(c.graph.allEdges());
        expect([...busy.store.sortedIds()]).to.deep.equal([...c.store.sortedIds()]);
        expect(join2(encodeSnapshot(copy.collections, 5))).to.deep.equal(whole);
      }
    } finally {
      dir.remove();
    }
    // A frame damaged anywhere, one missing, or the last one cut short is refused.
    for (const at of [30, 2500, Math.floor(bytes.length / 2), bytes.length - 40]) {
      const bad = Uint8Array.from(bytes);
      bad[at]! ^= 0x20;
      expect(() => decodeSnapshot(bad), `byte ${at}`).to.throw(CorruptDataError);
    }
    expect(() => decodeSnapshot([bytes.subarray(0, 20 + 1009), bytes.subarray(20 + 2 * 1009)]), 'a frame missing').to.throw(CorruptDataError, /collection 1 is damaged/);
    // A frame's length damaged into gigabytes is refused before anything is read for it.
    const long = Uint8Array.from(bytes);
    new DataView(long.buffer).setUint32(20 + 1009 + 1, 0xfffffff0, true);
    expect(() => decodeSnapshot(long), 'a huge frame length').to.throw(CorruptDataError, /a frame of 4294967280 bytes/);
    expect(() => decodeSnapshot([bytes.subarray(0, 20 + 1009), bytes.subarray(20 + 2 * 1009, 20 + 3 * 1009), bytes.subarray(20 + 1009)]), 'frames out of order').to.throw(CorruptDataError, /collection 1 is damaged/);
  });

  for (const distance of ['Cosine', 'Dot'] as const) {
    it(`restores a ${distance} collection exactly: points, pending, removed waypoints, graph, indexes, level generator`, () => {
      const original = busyCollection(distance);
      const restored = decodeSnapshot(join2(encodeSnapshot(new Map([['busy', original]]), 42)));
      expect(restored.opId).to.equal(42);
      const copy = restored.collections.get('busy')!;
      expect(copy.pendingCount).to.equal(original.pendingCount);
      expect(copy.index.nodeCount).to.equal(original.index.nodeCount);
      expect(copy.index.removedCount).to.equal(original.index.removedCount);
      expect(answers(copy)).to.deep.equal(answers(original));
      expect([...copy.store.sortedIds()]).to.deep.equal([...original.store.sortedIds()]);
      expect(new Set(copy.payloadIndex.lookup('g', 3))).to.deep.equal(new Set(original.payloadIndex.lookup('g', 3)));
      expect(new Set(copy.labelIndex.pointsWith('Node'))).to.deep.equal(new Set([50_000]));
      expect(copy.graph.allEdges()).to.deep.equal(original.graph.allEdges());
      expect(copy.graph.edgesAt(2, 'both', null)).to.deep.equal(original.graph.edgesAt(2, 'both', null));
      expect(copy.graph.edgesAt(4, 'outgoing', 'A').map((e) => e.properties), 'parallel edges, properties kept').to.deep.equal([{ since: 2020, note: 'x' }, {}]);
      expect(copy.graph.nextEdgeId).to.equal(original.graph.nextEdgeId);
      expect(copy.nextNodeId, 'the id counter stays above deleted ids').to.equal(original.nextNodeId).and.to.be.above(50_000);
      // Both go on the same way: the same pending work and the same level draws.
      while (original.indexSome(10_000));
      while (copy.indexSome(10_000));
      const more = randomVectors(100, DIM, 13).map((vector, i) => ({ id: 9000 + i, vector, payload: {}, labels: [] }));
      original.upsert(more);
      copy.upsert(more);
      while (original.indexSome(10_000));
      while (copy.indexSome(10_000));
      expect(answers(copy)).to.deep.equal(answers(original));
    });
  }

  it('snapshots a collection whose store has grown past the graph while points wait to be indexed', () => {
    const c = new Collection('fresh', config('Euclid'), 3);
    c.upsert(randomVectors(3000, DIM, 21).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
    expect(c.pendingCount).to.equal(3000);
    const copy = decodeSnapshot(join2(encodeSnapshot(new Map([['fresh', c]]), 9))).collections.get('fresh')!;
    expect(copy.pendingCount).to.equal(3000);
    expect(answers(copy)).to.deep.equal(answers(c));
    while (copy.indexSome(10_000));
    while (c.indexSome(10_000));
    expect(answers(copy)).to.deep.equal(answers(c));
  });

  it('snapshots a linked graph whose store has since grown past its arrays: the slots past them as unlinked', () => {
    const c = new Collection('grown', config('Euclid'), 3);
    const data = randomVectors(3000, DIM, 22);
    c.upsert(data.slice(0, 1000).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
    while (c.indexSome(10_000));
    c.upsert(data.slice(1000).map((vector, i) => ({ id: 1000 + i, vector, payload: {}, labels: [] })));
    expect(c.pendingCount).to.equal(2000);
    const copy = decodeSnapshot(join2(encodeSnapshot(new Map([['grown', c]]), 9))).collections.get('grown')!;
    expect(answers(copy)).to.deep.equal(answers(c));
    while (copy.indexSome(10_000));
    while (c.indexSome(10_000));
    expect(answers(copy)).to.deep.equal(answers(c));
    expect(join2(encodeSnapshot(new Map([['grown', copy]]), 9))).to.deep.equal(join2(encodeSnapshot(new Map([['grown', c]]), 9)));
  });

  it('reports a snapshot that cannot be encoded once, without retrying on every write', async () => {
    const reports: { error?: Error }[] = [];
    const failing = { loadNewest: () => null, write: async (_: number, fill: (out: SnapshotOutput) => void) => fill({ append: () => undefined, reserve: () => () => undefined }), list: () => [], readMark: () => null, writeMark: async () => undefined };
    const engine = new Engine(new MemoryLog(), { snapshots: failing, snapshotEvery: 2, onSnapshot: (r) => reports.push(r) });
    engine.replay();
    await engine.submit({ type: 'create_collection', name: 'c', config: config('Euclid') });
    const c = engine.collections.get('c')!;
    c.capture = () => {
      throw new Error('cannot encode');
    };
    for (let id = 0; id < 6; id++) await engine.submit({ type: 'upsert_points', collection: 'c', points: [{ id, vector: new Float32Array(DIM), payload: {}, labels: [] }] });
    expect(reports.length).to.be.within(2, 3);
    expect(reports.every((r) => r.error?.message === 'cannot encode')).to.equal(true);
  });

  it('loads a version 1 snapshot written by the first release (float32 weights, no node-id counter)', () => {
    // spec/fixtures/snapshot-v1.snap: 5 points (ids 1, 2, 3, 4, 9; 9 then deleted with its edge), edges 1→2 (0.5), 2→3 (2).
    const fixture = readFileSync(new URL('../../../spec/fixtures/snapshot-v1.snap', import.meta.url));
    const { opId, collections } = decodeSnapshot(fixture);
    expect(opId).to.equal(7);
    const c = collections.get('old')!;
    expect([...c.store.sortedIds()]).to.deep.equal([1, 2, 3, 4]);
    expect(c.graph.allEdges()).to.deep.equal([
      { id: 0, from: 1, to: 2, relation: 'KNOWS', weight: 0.5, properties: {} },
      { id: 1, from: 2, to: 3, relation: 'KNOWS', weight: 2, properties: {} },
    ]);
    expect(c.nextNodeId, 'one past the highest live id').to.equal(5);
    expect(new Set(c.labelIndex.pointsWith('Odd'))).to.deep.equal(new Set([1, 3]));
    const hits = searchCollection(c, { vector: [2, -2], limit: 2, offset: 0, ef: 16, filter: null, scoreThreshold: null });
    expect(hits.map((h) => h.id)).to.deep.equal([2, 1]);
  });

  it('loads a version 6 snapshot, whose settings follow the state (int8 codes, floats on disk), as the same collection', () => {
    // spec/fixtures/snapshot-v6.snap: written by the format-6 writer from the collection made here.
    const made = new Collection('settled', { size: 8, distance: 'Euclid', m: 4, m0: 8, efConstruct: 16, ml: 1 / Math.log(4) }, 3);
    made.upsert(randomVectors(300, 8, 71).map((vector, id) => ({ id, vector, payload: { id }, labels: [] })));
    while (made.indexSome(1000));
    made.settings = { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null }, vectors: { '': { on_disk: true } } };
    const fixture = readFileSync(new URL('../../../spec/fixtures/snapshot-v6.snap', import.meta.url));
    expect(fixture.readUInt16LE(4), 'the fixture is format 6').to.equal(6);
    const { opId, collections } = decodeSnapshot(fixture);
    expect(opId).to.equal(12);
    const c = collections.get('settled')!;
    expect(c.settings).to.deep.equal(made.settings);
    expect(c.quantized, 'codes made from the settings').to.not.equal(null);
    expect(Buffer.from(join2(encodeSnapshot(collections, 12))).equals(Buffer.from(join2(encodeSnapshot(new Map([['settled', made]]), 12)))), 'the same state, written as format 7').to.equal(true);
  });

  it('refuses a damaged snapshot', () => {
    const bytes = join2(encodeSnapshot(new Map([['busy', busyCollection('Euclid')]]), 5));
    for (const at of [0, 4, 20, 5000, bytes.length - 2]) {
      const bad = Uint8Array.from(bytes);
      bad[at]! ^= 0x20;
      expect(() => decodeSnapshot(bad), `byte ${at}`).to.throw(CorruptDataError);
    }
    expect(() => decodeSnapshot(bytes.subarray(0, bytes.length - 7))).to.throw(CorruptDataError);
  });

  it('writes a snapshot larger than its encode buffer straight into the file, the same bytes as encoded in memory, and checks it back', async () => {
    const dir = tempDir();
    try {
      const wide = new Collection('wide', { size: 256, distance: 'Dot', m: 8, m0: 16, efConstruct: 16, ml: 1 / Math.log(8) }, 3);
      wide.upsert(randomVectors(6_000, 256, 5).map((vector, id) => ({ id, vector, payload: { id }, labels: [] })));
      while (wide.indexSome(10_000));
      const state = new Map([['wide', wide], ['busy', busyCollection('Cosine')]]);
      const inMemory = Buffer.concat(encodeSnapshot(state, 8));
      expect(inMemory.length, 'many times the 256 KiB encode buffer').to.be.above(5 * 2 ** 20);
      const files = new SnapshotFiles(dir.path);
      let bytes = 0;
      await files.write(8, (out) => {
        bytes = writeSnapshot(state, 8, out);
      });
      const onDisk = readFileSync(join(dir.path, 'snapshot-0000000000000008.snap'));
      expect(bytes).to.equal(onDisk.length);
      expect(onDisk.equals(inMemory)).to.equal(true);
      expect(answers(files.loadNewest()!.collections.get('busy')!)).to.deep.equal(answers(state.get('busy')!));
    } finally {
      dir.remove();
    }
  });

  it('holds no more than its encode buffer while it writes a state much larger than it', async () => {
    const dir = tempDir();
    try {
      const wide = new Collection('wide', { size: 512, distance: 'Euclid', m: 4, m0: 8, efConstruct: 8, ml: 1 / Math.log(4) }, 3);
      wide.upsert(randomVectors(24_000, 512, 6).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
      const state = new Map([['wide', wide]]);
      const base = process.memoryUsage().arrayBuffers;
      let most = 0;
      let bytes = 0;
      await new SnapshotFiles(dir.path).write(4, (out) => {
        bytes = writeSnapshot(state, 4, {
          append: (b) => {
            most = Math.max(most, process.memoryUsage().arrayBuffers - base);
            out.append(b);
          },
          reserve: (n) => out.reserve(n),
        });
      });
      const seen = `${(most / 2 ** 20).toFixed(1)} MiB held while writing ${(bytes / 2 ** 20).toFixed(1)} MiB`;
      expect(bytes, seen).to.be.above(45 * 2 ** 20);
      expect(most, seen).to.be.below(9 * 2 ** 20);
      expect(new SnapshotFiles(dir.path).loadNewest()!.collections.get('wide')!.store.liveCount).to.equal(24_000);
    } finally {
      dir.remove();
    }
  });

  it('skips a damaged newest file for the one before it, ignores a half-written one, and keeps only the newest once it reads back', async () => {
    const dir = tempDir();
    try {
      const skipped: string[] = [];
      const files = new SnapshotFiles(dir.path, (file) => skipped.push(file));
      const c = busyCollection('Euclid');
      await files.save(10, encodeSnapshot(new Map([['busy', c]]), 10));
      const older = readFileSync(join(dir.path, 'snapshot-0000000000000010.snap'));
      await files.save(20, encodeSnapshot(new Map([['busy', c]]), 20));
      expect(readdirSync(dir.path)).to.deep.equal(['snapshot-0000000000000020.snap']);
      // An older file left beside it (as a crash between the rename and the deletion leaves it).
      writeFileSync(join(dir.path, 'snapshot-0000000000000010.snap'), older);
      const newest = join(dir.path, 'snapshot-0000000000000020.snap');
      const bytes = readFileSync(newest);
      bytes[bytes.length - 3]! ^= 1;
      writeFileSync(newest, bytes);
      writeFileSync(join(dir.path, 'snapshot-0000000000000030.snap.tmp'), 'half');
      expect(files.loadNewest()!.opId).to.equal(10);
      expect(skipped).to.deep.equal(['snapshot-0000000000000020.snap']);
      await files.save(40, encodeSnapshot(new Map(), 40));
      expect(readdirSync(dir.path).sort()).to.deep.equal(['snapshot-0000000000000040.snap']);
    } finally {
      dir.remove();
    }
  });

  it('snapshots every N operations, truncates the log, and restarts from snapshot plus tail with ids going on', async () => {
    const dir = tempDir();
    try {
      let tenReached!: () => void;
      const tenSnapshotted = new Promise<void>((resolve) => (tenReached = resolve));
      const onSnapshot = ({ opId }: { opId: number }): void => {
        if (opId >= 10) tenReached();
      };
      const open = () => new Engine(LmdbLog.open(join(dir.path, 'log')), { snapshots: new SnapshotFiles(join(dir.path, 'snap')), snapshotEvery: 5, logRetention: 0, onSnapshot });
      let engine = open();
      engine.replay();
      await engine.submit({ type: 'create_collection', name: 'c', config: config('Euclid') });
      const vectors = randomVectors(12, DIM, 1);
      for (let id = 0; id < 12; id++) await engine.submit({ type: 'upsert_points', collection: 'c', points: [{ id, vector: vectors[id]!, payload: { id }, labels: [] }] });
      // Snapshots are written in the background; the one at (or past) operation 10 comes however slow the disk.
      await tenSnapshotted;
      expect(engine.lastSnapshotOperationId).to.be.at.least(10);
      expect(engine.log.firstOperationId).to.be.above(engine.lastSnapshotOperationId);
      const tail = engine.log.lastOperationId - engine.lastSnapshotOperationId;
      expect(tail).to.be.below(5);
      engine.flushIndex();
      await engine.close();

      engine = open();
      expect(engine.replay()).to.equal(0, 'close wrote a last snapshot, so there is no tail to replay');
      expect(engine.collections.get('c')!.store.liveCount).to.equal(12);
      // Indexed before close: the last snapshot holds every point in the index (close writes one
      // at the same operation as a background snapshot taken before flushIndex, if there was one).
      const c = engine.collections.get('c')!;
      expect(c.index.nodeCount).to.equal(12);
      expect(c.pendingCount).to.equal(0);
      const next = await engine.submit({ type: 'delete_points', collection: 'c', ids: [1] });
      expect(next.opId).to.equal(14);
      await engine.close();
    } finally {
      dir.remove();
    }
  });

  it('writes a last snapshot at close when points were indexed since the newest one, at the same operation_id', async () => {
    const dir = tempDir();
    try {
      const open = (held: (() => void)[] | null) =>
        new Engine(LmdbLog.open(join(dir.path, 'log')), { snapshots: new SnapshotFiles(join(dir.path, 'snap')), ...(held ? { schedule: (task: () => void) => void held.push(task) } : {}) });
      // Background indexing held back: the snapshot taken after the writes holds every point as waiting.
      let engine = open([]);
      engine.replay();
      await engine.submit({ type: 'create_collection', name: 'c', config: config('Euclid') });
      const vectors = randomVectors(300, DIM, 2);
      await engine.submit({ type: 'upsert_points', collection: 'c', points: vectors.map((vector, id) => ({ id, vector, payload: {}, labels: [] })) });
      const opId = await engine.snapshot();
      expect(engine.collections.get('c')!.pendingCount).to.equal(300);
      engine.flushIndex();
      await engine.close();
      expect(readdirSync(join(dir.path, 'snap')).filter((f) => f.endsWith('.snap'))).to.deep.equal([`snapshot-${String(opId).padStart(16, '0')}.snap`]);

      engine = open(null);
      expect(engine.replay()).to.equal(0);
      const c = engine.collections.get('c')!;
      expect(c.pendingCount, 'nothing to link again at start').to.equal(0);
      expect(c.index.nodeCount).to.equal(300);
      await engine.close();
    } finally {
      dir.remove();
    }
  });

  it('refuses to start when log entries after the snapshot are missing', async () => {
    const log = new MemoryLog();
    const engine = new Engine(log);
    await engine.submit({ type: 'create_collection', name: 'c', config: config('Euclid') });
    await engine.submit({ type: 'delete_collection', name: 'c' });
    await log.truncateThrough(1);
    expect(() => new Engine(log).replay()).to.throw(/operations 1 to 1 are missing/);
  });
});
