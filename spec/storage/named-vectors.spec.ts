import { expect } from 'chai';
import { join } from 'node:path';
import type { Collection } from '../../storage/collection.js';
import { joinChunks } from '../../storage/codec/join-chunks.js';
import { Engine } from '../../storage/engine/engine.js';
import { decodeEvent, encodeEvent } from '../../storage/events/codec.js';
import type { CollectionConfig, DbEvent, PointRecord, SparseVector } from '../../storage/events/types.js';
import { exportCollection } from '../../storage/export/export-writer.js';
import { ImportReader } from '../../storage/export/import-reader.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { MemoryLog } from '../../storage/log/memory-log.js';
import { decodeSnapshot, encodeSnapshot } from '../../storage/snapshot/snapshot-codec.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { searchCollection } from '../../query/search/vector-search.js';
import { tempDir } from '../helpers/temp-dir.js';
import { randomVectors } from '../helpers/vectors.js';
import { rejection } from '../helpers/rejection.js';

const hnsw = { m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) };
/** An unnamed 4-d vector, a named Cosine and a named Dot vector, and two sparse vectors. */
const config: CollectionConfig = {
  size: 4,
  distance: 'Euclid',
  ...hnsw,
  named: { title: { size: 3, distance: 'Cosine', ...hnsw, onDisk: false }, body: { size: 5, distance: 'Dot', ...hnsw, m: 4, m0: 8, onDisk: true } },
  sparse: { words: { modifier: 'none', index: {} }, bm25: { modifier: 'idf', index: { on_disk: true } } },
};

const sparse = (pairs: [number, number][]): SparseVector => ({ indices: Uint32Array.from(pairs.map((p) => p[0])), values: Float32Array.from(pairs.map((p) => p[1])) });

/** 300 points: every one has the unnamed vector, two in three a title, one in two a body, and sparse vectors over a small vocabulary. */
function points(seed: number): PointRecord[] {
  const unnamed = randomVectors(300, 4, seed);
  const titles = randomVectors(300, 3, seed + 1);
  const bodies = randomVectors(300, 5, seed + 2);
  return unnamed.map((vector, id) => {
    const p: PointRecord = { id, vector, payload: { g: id % 3 }, labels: [] };
    if (id % 3 !== 0) (p.named ??= {}).title = titles[id]!;
    if (id % 2 === 0) (p.named ??= {}).body = bodies[id]!;
    p.sparse = { words: sparse([[id % 7, 1], [7 + (id % 11), 2]]), bm25: sparse([[id % 5, 1]]) };
    return p;
  });
}

/** What searches answer on every vector: each a list of [id, score]. */
function answers(c: Collection): unknown {
  const run = (using: string, vector: ArrayLike<number>, sparseQuery?: SparseVector) =>
    searchCollection(c, { vector, using, sparse: sparseQuery ?? null, limit: 10, offset: 0, ef: 64, filter: null, scoreThreshold: null }).map((h) => [h.id, h.score]);
  return [
    ...randomVectors(5, 4, 90).map((q) => run('', q)),
    ...randomVectors(5, 3, 91).map((q) => run('title', q)),
    ...randomVectors(5, 5, 92).map((q) => run('body', q)),
    run('words', [], sparse([[3, 1], [9, 0.5]])),
    run('bm25', [], sparse([[1, 1], [2, 1]])),
  ];
}

/** Every point's vectors as stored (for bit-exact comparisons). */
function stored(c: Collection): unknown {
  return c.store.sortedIds().map((id) => {
    const slot = c.store.slotOf(id);
    const others = c.otherVectors(id);
    const sparseOut = Object.fromEntries(Object.entries(others.sparse ?? {}).map(([n, v]) => [n, [Array.from(v.indices), Array.from(v.values)]]));
    return [id, c.store.hasVector[slot] ? Array.from(c.store.vectorOf(slot)) : null, Object.fromEntries(Object.entries(others.named ?? {}).map(([n, v]) => [n, Array.from(v)])), sparseOut];
  });
}

/** A history that uses each kind of named and sparse write. */
async function write(engine: Engine): Promise<void> {
  await engine.submit({ type: 'create_collection', name: 'c', config });
  await engine.submit({ type: 'upsert_points', collection: 'c', points: points(1) });
  await engine.submit({
    type: 'update_points',
    collection: 'c',
    updates: [
      { op: 'update_vectors', points: [{ id: 3, dense: { title: Float32Array.of(1, 0, 0) }, sparse: { words: sparse([[100, 5]]) } }] },
      { op: 'delete_vectors', ids: [4, 5], names: ['body', 'bm25', ''] },
    ],
  });
  await engine.submit({ type: 'delete_points', collection: 'c', ids: [10, 11] });
}

describe('storage: named and sparse vectors', () => {
  it('applies upserts and vector updates by name: a point keeps the vectors an update does not name', async () => {
    const engine = new Engine(new MemoryLog());
    await write(engine);
    const c = engine.collections.get('c')!;
    expect(c.store.liveCount).to.equal(298);
    expect(Array.from(c.named.get('title')!.vectorOf(3)!)).to.deep.equal([1, 0, 0]);
    expect(c.named.get('body')!.vectorOf(3), 'an odd id never had a body').to.equal(null);
    expect(Array.from(c.sparse.get('words')!.get(3)!.indices)).to.deep.equal([100]);
    expect(c.sparse.get('bm25')!.get(3), 'bm25 was not named: it stays').to.not.equal(null);
    expect([c.named.get('body')!.vectorOf(4), c.sparse.get('bm25')!.get(4), c.store.hasVector[c.store.slotOf(4)]]).to.deep.equal([null, null, 0]);
    expect(c.named.get('title')!.vectorOf(4), 'title was not deleted').to.not.equal(null);
    expect([c.named.get('title')!.vectorOf(10), c.sparse.get('words')!.get(10)], 'a deleted point loses every vector').to.deep.equal([null, null]);
    const hits = searchCollection(c, { vector: [], using: 'words', sparse: sparse([[100, 1]]), limit: 5, offset: 0, ef: 10, filter: null, scoreThreshold: null });
    expect(hits.map((h) => [h.id, h.score])).to.deep.equal([[3, 5]]);
  });

  it('refuses unknown names and wrong sizes, applying nothing of the request', async () => {
    const engine = new Engine(new MemoryLog());
    await engine.submit({ type: 'create_collection', name: 'c', config });
    const before = engine.log.lastOperationId;
    const bad = (p: Partial<PointRecord>) => engine.submit({ type: 'upsert_points', collection: 'c', points: [{ id: 1, vector: null, payload: {}, labels: [] }, { id: 2, vector: null, payload: {}, labels: [], ...p }] });
    expect((await rejection(bad({ named: { colour: Float32Array.of(1) } }))).message).to.match(/^point 2: collection "c" has no vector named "colour"/);
    expect((await rejection(bad({ named: { title: Float32Array.of(1, 2) } }))).message).to.equal('point 2: vector "title" has 2 dimensions, collection "c" expects 3');
    expect((await rejection(bad({ sparse: { title: sparse([[1, 1]]) } }))).message).to.match(/vector "title" is a dense vector/);
    expect((await rejection(bad({ sparse: { words: sparse([[1, NaN]]) } }))).message).to.match(/value 0 is not a finite/);
    const badUpdate = await rejection(engine.submit({ type: 'update_points', collection: 'c', updates: [{ op: 'delete_vectors', ids: [1], names: ['nope'] }] }));
    expect(badUpdate.code).to.equal(400);
    expect(engine.log.lastOperationId).to.equal(before);
    expect(engine.collections.get('c')!.store.liveCount).to.equal(0);
  });

  it('encodes each event with named and sparse vectors and decodes it as it was', async () => {
    const events: DbEvent[] = [
      { type: 'create_collection', name: 'c', config },
      { type: 'upsert_points', collection: 'c', points: points(5).slice(0, 3) },
      { type: 'update_points', collection: 'c', updates: [{ op: 'update_vectors', points: [{ id: 1, dense: { '': Float32Array.of(1, 2, 3, 4), body: new Float32Array(5) }, sparse: { bm25: sparse([[2, 1]]) } }] }, { op: 'delete_vectors', ids: [2], names: ['title', 'words'] }] },
      { type: 'import_collection', name: 'd', mode: 'create', config, points: points(6).slice(0, 2), edges: [], indexes: {}, settings: {}, exportedAt: 0 },
    ];
    for (const event of events) expect(decodeEvent(encodeEvent(event))).to.deep.equal(event);
  });

  it('restores every vector and index from a snapshot, and both go on alike', async () => {
    const engine = new Engine(new MemoryLog());
    await write(engine);
    const original = engine.collections.get('c')!;
    original.indexSome(250);
    const copy = decodeSnapshot(joinChunks(encodeSnapshot(engine.collections, 9))).collections.get('c')!;
    expect(copy.config).to.deep.equal(config);
    expect(copy.pendingCount).to.equal(original.pendingCount).and.to.be.above(0);
    expect(stored(copy)).to.deep.equal(stored(original));
    expect(answers(copy)).to.deep.equal(answers(original));
    while (original.indexSome(1000));
    while (copy.indexSome(1000));
    expect(copy.named.get('body')!.index.nodeCount).to.equal(original.named.get('body')!.index.nodeCount).and.to.equal(148);
    expect(answers(copy)).to.deep.equal(answers(original));
  });

  it('keeps named and sparse vectors across a restart on LMDB, from the snapshot and from the log after it', async () => {
    const dir = tempDir();
    try {
      const open = () => new Engine(LmdbLog.open(join(dir.path, 'log')), { snapshots: new SnapshotFiles(join(dir.path, 'snap')), logRetention: 1000 });
      let engine = open();
      engine.replay();
      await engine.submit({ type: 'create_collection', name: 'c', config });
      await engine.submit({ type: 'upsert_points', collection: 'c', points: points(1) });
      await engine.snapshot();
      await engine.submit({ type: 'update_points', collection: 'c', updates: [{ op: 'delete_vectors', ids: [0, 1, 2], names: ['title', 'words'] }] });
      const before = { stored: stored(engine.collections.get('c')!), answers: answers(engine.collections.get('c')!) };
      await engine.log.close();
      engine = open();
      expect(engine.replay(), 'the entry after the snapshot is replayed').to.equal(1);
      expect(stored(engine.collections.get('c')!)).to.deep.equal(before.stored);
      expect(answers(engine.collections.get('c')!)).to.deep.equal(before.answers);
      await engine.close();
    } finally {
      dir.remove();
    }
  });

  it('exports and imports every vector bit for bit, and merges only into a collection with the same vectors', async () => {
    const engine = new Engine(new MemoryLog());
    await write(engine);
    const c = engine.collections.get('c')!;
    const reader = new ImportReader();
    for (const chunk of exportCollection(c).chunks()) reader.feed(chunk);
    const file = reader.finish();
    expect(file.config).to.deep.equal(config);
    await engine.submit({ type: 'import_collection', name: 'copy', mode: 'create', config: file.config, points: file.points, edges: file.edges });
    const copy = engine.collections.get('copy')!;
    expect(stored(copy)).to.deep.equal(stored(c));
    expect(answers(copy)).to.deep.equal(answers(c));
    await engine.submit({ type: 'create_collection', name: 'other', config: { ...config, named: { title: config.named!.title! } } });
    const merge = await rejection(engine.submit({ type: 'import_collection', name: 'other', mode: 'merge', config: file.config, points: file.points, edges: [] }));
    expect(merge.message).to.match(/^vector mismatch: the file's vectors are dense: "", "title", "body"; sparse: "words", "bm25", collection "other" has dense: "", "title"; sparse: "words", "bm25"/);
  });

  it('keeps a node\'s named and sparse vectors when Cypher replaces its unnamed vector', async () => {
    const engine = new Engine(new MemoryLog());
    await write(engine);
    const c = engine.collections.get('c')!;
    const kept = c.otherVectors(6);
    await engine.submit({ type: 'graph_write', collection: 'c', changes: [{ kind: 'update_node', point: { id: 6, vector: Float32Array.of(9, 9, 9, 9), payload: {}, labels: [] } }] });
    expect(c.otherVectors(6)).to.deep.equal(kept);
    expect(Array.from(c.store.vectorOf(c.store.slotOf(6)))).to.deep.equal([9, 9, 9, 9]);
  });
});
