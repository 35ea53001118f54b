import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import { Engine } from '../../storage/engine/engine.js';
import { validateEvent } from '../../storage/engine/validate-event.js';
import { DEFAULT_WRITE_LIMITS } from '../../storage/engine/write-limits.js';
import { DbError } from '../../storage/errors.js';
import type { CollectionConfig, PointRecord } from '../../storage/events/types.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { MemoryLog } from '../../storage/log/memory-log.js';
import { searchCollection } from '../../query/search/vector-search.js';
import { tempDir } from '../helpers/temp-dir.js';
import { rejection } from '../helpers/rejection.js';

const config: CollectionConfig = { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 32, ml: 1 / Math.log(8) };
const point = (id: number, x: number, y: number, payload = {}): PointRecord => ({ id, vector: Float32Array.of(x, y), payload, labels: [] });

describe('storage/engine', () => {
  it('applies a request all or nothing: one bad point rejects the whole upsert and logs nothing', async () => {
    const engine = new Engine(new MemoryLog());
    await engine.submit({ type: 'create_collection', name: 'c', config });
    const before = engine.log.lastOperationId;
    const err = await rejection(engine.submit({ type: 'upsert_points', collection: 'c', points: [point(1, 0, 0), { ...point(2, 0, 0), vector: Float32Array.of(1, 2, 3) }] }));
    expect(err.code).to.equal(400);
    expect(err.message).to.match(/point 2: vector has 3 dimensions/);
    expect(engine.log.lastOperationId).to.equal(before);
    expect(engine.collections.get('c')!.store.liveCount).to.equal(0);
  });

  it('rejects non-finite vectors, bad ids, missing and duplicate collections with the right codes', async () => {
    const engine = new Engine(new MemoryLog());
    await engine.submit({ type: 'create_collection', name: 'c', config });
    expect((await rejection(engine.submit({ type: 'upsert_points', collection: 'c', points: [point(1, NaN, 0)] }))).message).to.match(/not a finite/);
    expect((await rejection(engine.submit({ type: 'upsert_points', collection: 'c', points: [point(-1, 0, 0)] }))).message).to.match(/invalid point id -1/);
    expect((await rejection(engine.submit({ type: 'upsert_points', collection: 'c', points: [point(2 ** 53, 0, 0)] }))).code).to.equal(400);
    expect((await rejection(engine.submit({ type: 'upsert_points', collection: 'nope', points: [point(1, 0, 0)] }))).code).to.equal(404);
    expect((await rejection(engine.submit({ type: 'create_collection', name: 'c', config }))).code).to.equal(409);
    expect((await rejection(engine.submit({ type: 'create_collection', name: '.hidden', config }))).code).to.equal(400);
    expect((await rejection(engine.submit({ type: 'create_collection', name: 'a/b', config }))).code).to.equal(400);
  });

  it('acknowledges concurrent writes in operation_id order and replays them to the same state', async () => {
    const dir = tempDir();
    try {
      let engine = new Engine(LmdbLog.open(dir.path));
      engine.replay();
      await engine.submit({ type: 'create_collection', name: 'c', config });
      const acks = await Promise.all(
        Array.from({ length: 200 }, (_, i) => engine.submit({ type: 'upsert_points', collection: 'c', points: [point(i % 50, i, i, { round: i })] })),
      );
      const ids = acks.map((a) => a.opId);
      expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).to.equal(200);
      const payloads = (e: Engine) => Array.from({ length: 50 }, (_, id) => e.collections.get('c')!.store.payloads[e.collections.get('c')!.store.slotOf(id)]);
      const live = payloads(engine);
      expect(live[7]).to.deep.equal({ round: 157 });
      await engine.submit({ type: 'delete_points', collection: 'c', ids: [3, 4] });
      await engine.close();

      engine = new Engine(LmdbLog.open(dir.path));
      expect(engine.replay()).to.equal(202);
      const c = engine.collections.get('c')!;
      expect(c.store.liveCount).to.equal(48);
      expect(c.store.has(3)).to.equal(false);
      expect(payloads(engine)[7]).to.deep.equal({ round: 157 });
      const next = await engine.submit({ type: 'delete_points', collection: 'c', ids: [5] });
      expect(next.opId).to.equal(203);
      await engine.close();
    } finally {
      dir.remove();
    }
  });

  it('applies a write synchronously over a log that is durable on append, and only there', async () => {
    const engine = new Engine(new MemoryLog());
    const created = engine.submitSync({ type: 'create_collection', name: 'c', config });
    expect(created.opId).to.equal(1);
    expect(engine.submitSync({ type: 'upsert_points', collection: 'c', points: [point(1, 0, 0)] }).opId).to.equal(2);
    expect(engine.collections.get('c')!.store.has(1), 'applied before submitSync returns').to.equal(true);
    expect(() => engine.submitSync({ type: 'create_collection', name: 'c', config })).to.throw(DbError, /already exists/);
    expect(engine.log.lastOperationId, 'a refused write is not logged').to.equal(2);

    const dir = tempDir();
    const durable = new Engine(LmdbLog.open(dir.path));
    try {
      durable.replay();
      expect(() => durable.submitSync({ type: 'create_collection', name: 'c', config })).to.throw(/durable at once/);
      expect(durable.log.lastOperationId).to.equal(0);
    } finally {
      await durable.log.close();
      dir.remove();
    }
  });

  it('moves the operation_id counter above an imported file\'s, applying writes in order across the jump, and replays the log', async () => {
    const dir = tempDir();
    try {
      const engine = new Engine(LmdbLog.open(dir.path));
      await engine.submit({ type: 'create_collection', name: 'c', config });
      const file = { config, points: [point(1, 1, 1)], edges: [], exportedAt: 9_000 };
      const writes = [
        engine.submit({ type: 'upsert_points', collection: 'c', points: [point(2, 2, 2)] }),
        engine.submit({ type: 'import_collection', name: 'copy', mode: 'create', ...file }),
        engine.submit({ type: 'import_collection', name: 'older', mode: 'create', ...file, exportedAt: 5 }),
      ];
      expect((await Promise.all(writes)).map((c) => c.opId)).to.deep.equal([2, 9_001, 9_002]);
      expect((await engine.submit({ type: 'upsert_points', collection: 'copy', points: [point(3, 3, 3)] })).opId).to.equal(9_003);
      await engine.log.close();
      const again = new Engine(LmdbLog.open(dir.path));
      expect(await again.start()).to.equal(5);
      expect([...again.collections.keys()].sort()).to.deep.equal(['c', 'copy', 'older']);
      expect(again.collections.get('copy')!.store.liveCount).to.equal(2);
      await again.close();

      const memory = new Engine(new MemoryLog());
      expect(memory.submitSync({ type: 'import_collection', name: 'copy', mode: 'create', ...file }).opId).to.equal(9_001);
      expect(memory.log.firstOperationId).to.equal(9_001);
      const far = 2 ** 53 - 1;
      expect(() => memory.submitSync({ type: 'import_collection', name: 'far', mode: 'create', ...file, exportedAt: far })).to.throw(
        DbError,
        `the file says it was exported at operation ${far}, above ${2 ** 52}: operation_ids after it would run out of exact integers`,
      );
      expect(memory.log.lastOperationId, 'nothing logged, the counter as it was').to.equal(9_001);
    } finally {
      dir.remove();
    }
  });

  it('makes an upsert visible to search at once, before the background indexer runs', async () => {
    const tasks: (() => void)[] = [];
    const engine = new Engine(new MemoryLog(), { schedule: (task) => tasks.push(task) });
    await engine.submit({ type: 'create_collection', name: 'c', config });
    await engine.submit({ type: 'upsert_points', collection: 'c', points: [point(1, 0, 0), point(2, 5, 5)] });
    const c = engine.collections.get('c')!;
    expect(c.index.nodeCount).to.equal(0);
    const hit = searchCollection(c, { vector: [4, 4], limit: 1, offset: 0, ef: 10, filter: null, scoreThreshold: null });
    expect(hit.map((h) => h.id)).to.deep.equal([2]);
    while (tasks.length) tasks.shift()!();
    expect(c.index.nodeCount).to.equal(2);
    expect(c.pendingCount).to.equal(0);
  });

  it('stops taking writes after a commit fails and acknowledges nothing that was not durable', async () => {
    const log = new MemoryLog();
    const failing = Object.assign(Object.create(log) as MemoryLog, {
      append: (event: Parameters<MemoryLog['append']>[0]) => {
        const appended = log.append(event);
        return { opId: appended.opId, durable: Promise.reject(new Error('EIO: fsync failed')) };
      },
    });
    const engine = new Engine(failing);
    const err = await rejection(engine.submit({ type: 'create_collection', name: 'c', config }));
    expect(err.code).to.equal(503);
    expect(engine.collections.has('c')).to.equal(false);
    expect(engine.failed?.message).to.match(/EIO/);
    expect((await rejection(engine.submit({ type: 'create_collection', name: 'd', config }))).message).to.match(/writes are stopped/);
  });
});

describe('storage/engine capacity', () => {
  it('takes more vectors than one segment holds, and refuses past SERVICE_MAX_POINTS_PER_COLLECTION, applying none of it', () => {
    const c = new Collection('small', { ...config, size: 1024 }, 1, 64);
    const collections = new Map([['small', c]]);
    const limits = { ...DEFAULT_WRITE_LIMITS, maxPointsPerCollection: 300 };
    const points = (ids: number[]) => ids.map((id) => ({ id, vector: Float32Array.from({ length: 1024 }, (_, i) => id + i), payload: {}, labels: [] }));
    const many = points(Array.from({ length: 300 }, (_, id) => id));
    validateEvent(collections, { type: 'upsert_points', collection: 'small', points: many }, limits);
    c.upsert(many);
    expect(c.store.segments.length).to.be.greaterThan(4);
    expect(Array.from(c.store.vectorOf(c.store.slotOf(299)).subarray(0, 2))).to.deep.equal([299, 300]);
    expect(() => validateEvent(collections, { type: 'upsert_points', collection: 'small', points: points([999]) }, limits)).to.throw(DbError, /collection "small" would hold 301 points, more than the limit of 300 \(SERVICE_MAX_POINTS_PER_COLLECTION\)/);
    expect(c.store.liveCount).to.equal(300);
  });
});
