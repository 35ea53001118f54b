import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CollectionSnapshots, type SnapshotSource } from '../../server/collection-snapshots.js';
import { Engine } from '../../storage/engine/engine.js';
import type { DbEvent, PointRecord } from '../../storage/events/types.js';
import { setPropertyTypes } from '../../storage/property-types.js';
import { exportCollection } from '../../storage/export/export-writer.js';
import { ImportReader } from '../../storage/export/import-reader.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { MemoryLog } from '../../storage/log/memory-log.js';
import { CypherReplicaError, CypherReplicas } from '../../workers/cypher-replicas.js';
import type { RemoteExport } from '../../workers/remote-export.js';
import { EXPORT_WINDOW_BYTES } from '../../workers/replica-messages.js';
import { tempDir } from '../helpers/temp-dir.js';
import { randomVectors } from '../helpers/vectors.js';

const DIM = 256;
/** About 10.5 MB of export: more than twice the window a replica runs ahead. */
const POINTS = 10_000;
const config = { size: DIM, distance: 'Euclid' as const, m: 8, m0: 16, efConstruct: 50, ml: 1 / Math.log(8) };
/** The largest block of this file: 1,000 points of DIM floats and their small payloads. */
const BLOCK_BYTES = 1000 * (DIM * 4 + 100);

async function load(engine: Engine): Promise<void> {
  await engine.submit({ type: 'create_collection', name: 'v', config });
  const vectors = randomVectors(POINTS, DIM, 3);
  for (let from = 0; from < POINTS; from += 2500) {
    await engine.submit({ type: 'upsert_points', collection: 'v', points: vectors.slice(from, from + 2500).map((vector, k) => ({ id: from + k, vector, payload: { n: from + k }, labels: ['P'] })) });
  }
  await engine.submit({ type: 'upsert_edge', collection: 'v', from: 1, to: 2, relation: 'NEXT', weight: 0.5 });
}

const payloadSet = (id: number, payload: Record<string, unknown>): DbEvent => ({ type: 'update_points', collection: 'v', updates: [{ op: 'set_payload', ids: [id], payload, key: null }] });

async function bytesOf(remote: RemoteExport): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of remote.stream()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const inPlace = (engine: Engine, head = ''): Buffer => Buffer.concat([...exportCollection(engine.collections.get('v')!, engine.lastAppliedOperationId, head).chunks()]);

/** Resolves after the replica has had turns to go on (a query answered there comes after the messages before it). */
async function replicaTurns(replicas: CypherReplicas, engine: Engine): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await engine.submit(payloadSet(0, { turn: i }));
    await replicas.ready();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('workers: an export encoded on a Cypher replica', function () {
  this.timeout(60_000);
  let engine: Engine;
  let replicas: CypherReplicas;
  let dir: ReturnType<typeof tempDir> | null = null;

  afterEach(async () => {
    await replicas.close();
    await engine.close();
    dir?.remove();
    dir = null;
  });

  describe('over an in-memory log', () => {
    beforeEach(async () => {
      engine = new Engine(new MemoryLog());
      await load(engine);
      replicas = new CypherReplicas(engine, 1);
    });

    it('is left to the request thread until a replica has its state, then is the bytes the request thread would write', async () => {
      expect(replicas.export('v', { logHead: true, digest: false }), 'no replica: the request thread encodes it').to.equal(null);
      expect(replicas.threads(), 'an export starts no replica').to.have.length(0);
      const loading = replicas.ready();
      expect(replicas.threads(), 'started').to.have.length(1);
      expect(replicas.export('v', { logHead: true, digest: false }), 'a replica still loading: the request thread encodes it').to.equal(null);
      await loading;
      const remote = (await replicas.export('v', { logHead: true, digest: true }))!;
      expect([remote.pointCount, remote.edgeCount, remote.dimension, remote.operationId, remote.logHead]).to.deep.equal([POINTS, 1, DIM, engine.lastAppliedOperationId, '']);
      const bytes = await bytesOf(remote);
      expect(bytes.equals(inPlace(engine)), 'the same bytes').to.equal(true);
      expect(remote.sha256).to.equal(createHash('sha256').update(bytes).digest('hex'));
      expect([replicas.exported, replicas.exportsOpen, replicas.answered], 'one export, none open, no query counted').to.deep.equal([1, 0, 0]);
    });

    it('writes every kind of state an export holds as the request thread does: named, sparse and absent vectors, UUID ids, typed payloads, labels, edge properties, indexes, settings', async () => {
      const hnsw = { m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) };
      await engine.submit({ type: 'create_collection', name: 'rich', config: { size: 8, distance: 'Cosine', ...hnsw, named: { title: { size: 3, distance: 'Dot', ...hnsw, onDisk: false } }, sparse: { words: { modifier: 'none', index: {} } } } });
      const vectors = randomVectors(600, 8, 41);
      const titles = randomVectors(600, 3, 42);
      await engine.submit({
        type: 'upsert_points',
        collection: 'rich',
        points: [
          ...vectors.map((vector, id): PointRecord => ({
            id,
            vector,
            payload: id % 10 === 0 ? setPropertyTypes({ at: '2024-01-02', n: id }, { at: 'date' }) : { g: id % 5, s: `p${id}`, tags: ['a', `t${id % 3}`] },
            labels: id % 4 ? [] : ['Four'],
            ...(id % 3 ? { named: { title: titles[id]! } } : {}),
            ...(id % 2 ? { sparse: { words: { indices: Uint32Array.of(id % 7, 7 + (id % 11)), values: Float32Array.of(1, id / 10) } } } : {}),
          })),
          { id: 'a3bb189e-8bf9-3888-9912-ace4e6543002', vector: vectors[5]!, payload: { uuid: true }, labels: ['U'] },
          { id: 90_000, vector: null, payload: { node: true }, labels: ['Node'] },
        ],
      });
      await engine.submit({ type: 'delete_points', collection: 'rich', ids: Array.from({ length: 30 }, (_, i) => i * 7) });
      await engine.submit({ type: 'upsert_edge', collection: 'rich', from: 4, to: 1, relation: 'A', weight: 2, properties: { since: 2020, note: 'x' } });
      await engine.submit({ type: 'upsert_edge', collection: 'rich', from: 3, to: 'a3bb189e-8bf9-3888-9912-ace4e6543002', relation: 'U', weight: 1.5 });
      await engine.submit({ type: 'payload_index', collection: 'rich', field: 'g', index: { type: 'keyword', params: {} } });
      await engine.submit({ type: 'collection_settings', collection: 'rich', settings: { optimizers_config: { indexing_threshold: 5000 } } });
      await replicas.ready();
      const remote = (await replicas.export('rich', { logHead: false, digest: false }))!;
      const bytes = await bytesOf(remote);
      const here = Buffer.concat([...exportCollection(engine.collections.get('rich')!, engine.lastAppliedOperationId, '').chunks()]);
      expect(bytes.equals(here), 'the same bytes').to.equal(true);
      const reader = new ImportReader();
      reader.feed(bytes);
      const file = reader.finish();
      expect([file.points.length, file.edges.length, Object.keys(file.indexes)]).to.deep.equal([572, 2, ['g']]);
    });

    it('is the collection at the operation in its header, whatever is applied while it is sent', async () => {
      await replicas.ready();
      const remote = (await replicas.export('v', { logHead: false, digest: false }))!;
      const before = inPlace(engine);
      const chunks = remote.stream();
      const first = await chunks.next();
      const fresh = randomVectors(20, DIM, 9);
      for (let i = 0; i < 20; i++) {
        await engine.submit({ type: 'delete_points', collection: 'v', ids: [POINTS - 1 - i] });
        await engine.submit({ type: 'upsert_points', collection: 'v', points: [{ id: i * 100, vector: fresh[i]!, payload: { moved: i }, labels: [] }, { id: POINTS + i, vector: fresh[i]!, payload: {}, labels: [] }] });
        await engine.submit(payloadSet(i * 50 + 1, { set: i }));
      }
      const rest: Uint8Array[] = [first.value as Uint8Array];
      for await (const chunk of chunks) rest.push(chunk);
      expect(Buffer.concat(rest).equals(before), 'the bytes of the state at its start').to.equal(true);
      const after = (await replicas.export('v', { logHead: false, digest: false }))!;
      const now = await bytesOf(after);
      expect(now.equals(inPlace(engine)), 'the next export has the writes').to.equal(true);
      const reader = new ImportReader();
      reader.feed(now);
      expect(reader.finish().points).to.have.length(POINTS);
    });

    it('runs no more than its window ahead of the reader, and stops when the reader lets it go', async () => {
      await replicas.ready();
      const remote = (await replicas.export('v', { logHead: false, digest: false }))!;
      // It sends up to the window however long a loaded machine takes (else the test times out),
      // and waits there through more turns.
      while (remote.buffered < EXPORT_WINDOW_BYTES - BLOCK_BYTES) await replicaTurns(replicas, engine);
      await replicaTurns(replicas, engine);
      expect(remote.buffered, 'and waited there').to.be.below(EXPORT_WINDOW_BYTES + BLOCK_BYTES);
      const chunks = remote.stream();
      await chunks.next();
      await chunks.return(undefined);
      expect(replicas.exportsOpen, 'let go').to.equal(0);
      await replicaTurns(replicas, engine);
      expect(remote.buffered, 'nothing more came').to.be.below(EXPORT_WINDOW_BYTES + BLOCK_BYTES);
      expect((await bytesOf((await replicas.export('v', { logHead: false, digest: false }))!)).equals(inPlace(engine)), 'the next export is whole').to.equal(true);
    });

    it('ends a reader waiting for its next chunk once released (its HTTP stream destroyed under it)', async () => {
      await replicas.ready();
      const remote = (await replicas.export('v', { logHead: false, digest: false }))!;
      const chunks = remote.stream();
      const waiting = chunks.next();
      remote.release();
      const first = await waiting;
      expect(first.done || (await chunks.next()).done, 'no chunk after the release').to.equal(true);
      expect(replicas.exportsOpen).to.equal(0);
    });

    it('fails the reader with a CypherReplicaError when the replica stops, and the next export runs on its new copy', async () => {
      await replicas.ready();
      const remote = (await replicas.export('v', { logHead: false, digest: false }))!;
      const chunks = remote.stream();
      await chunks.next();
      await replicas.threads()[0]!.terminate();
      let failure: unknown = null;
      try {
        for (;;) if ((await chunks.next()).done) break;
      } catch (err) {
        failure = err;
      }
      expect(failure).to.be.instanceOf(CypherReplicaError);
      expect((failure as Error).message).to.match(/^the Cypher replica sending the export stopped/);
      expect(replicas.exportsOpen).to.equal(0);
      await replicas.ready();
      expect((await bytesOf((await replicas.export('v', { logHead: false, digest: false }))!)).equals(inPlace(engine))).to.equal(true);
    });
  });

  it('leaves no collection snapshot file when the replica encoding it stops, and writes the next whole with its checksum', async () => {
    dir = tempDir();
    engine = new Engine(new MemoryLog());
    await load(engine);
    replicas = new CypherReplicas(engine, 1);
    await replicas.ready();
    const snapshots = new CollectionSnapshots(dir.path);
    const remote = (await replicas.export('v', { logHead: false, digest: true }))!;
    // The replica's thread stops once the first chunk is in: the snapshot meets the failure mid-file.
    const stopping: SnapshotSource = {
      release: remote.release,
      sha256: null,
      async *stream() {
        let first = true;
        for await (const chunk of remote.stream()) {
          yield chunk;
          if (first) await replicas.threads()[0]!.terminate();
          first = false;
        }
      },
    };
    let failure: unknown = null;
    await snapshots.create('v', stopping, new Date(0)).catch((err: unknown) => (failure = err));
    expect(failure).to.be.instanceOf(CypherReplicaError);
    expect(readdirSync(snapshots.dirOf('v')), 'no file, not even the temporary one').to.deep.equal([]);
    await replicas.ready();
    const made = await snapshots.create('v', (await replicas.export('v', { logHead: false, digest: true }))!, new Date(1));
    const bytes = readFileSync(join(snapshots.dirOf('v'), made.name));
    expect(made.checksum).to.equal(createHash('sha256').update(bytes).digest('hex'));
    expect(bytes.equals(inPlace(engine)), 'the bytes of an export (no head hash: a collection snapshot names none)').to.equal(true);
  });

  it('names the log head hash at the operation it was taken at, from the state and from the entries after it', async () => {
    dir = tempDir();
    const log = LmdbLog.open(dir.path);
    engine = new Engine(log);
    await load(engine);
    replicas = new CypherReplicas(engine, 1);
    await replicas.ready();
    const fromState = (await replicas.export('v', { logHead: true, digest: false }))!;
    expect(fromState.logHead).to.equal(log.headHash).and.to.match(/^[0-9a-f]{64}$/);
    expect((await bytesOf(fromState)).equals(inPlace(engine, log.headHash))).to.equal(true);
    await engine.submit(payloadSet(3, { later: true }));
    const fromEntry = (await replicas.export('v', { logHead: true, digest: false }))!;
    expect(fromEntry.logHead).to.equal(log.headHash).and.to.not.equal(fromState.logHead);
    expect((await bytesOf(fromEntry)).equals(inPlace(engine, log.headHash))).to.equal(true);
  });
});
