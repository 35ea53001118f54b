import { expect } from 'chai';
import { Engine } from '../../storage/engine/engine.js';
import type { CollectionConfig, PointRecord } from '../../storage/events/types.js';
import { MemoryLog } from '../../storage/log/memory-log.js';
import { searchCollection } from '../../query/search/vector-search.js';
import { rejection } from '../helpers/rejection.js';

const config = (size: number): CollectionConfig => ({ size, distance: 'Euclid', m: 8, m0: 16, efConstruct: 32, ml: 1 / Math.log(8) });
const points = (n: number, dim = 2): PointRecord[] => Array.from({ length: n }, (_, id) => ({ id, vector: Float32Array.from({ length: dim }, (_, d) => id + d), payload: { n: id }, labels: [] }));

async function engineWith(size = 2): Promise<Engine> {
  const engine = new Engine(new MemoryLog());
  await engine.submit({ type: 'create_collection', name: 'c', config: config(size) });
  return engine;
}

function recordOf(engine: Engine, opId: number): Uint8Array {
  for (const { record } of engine.log.readRaw(opId, opId)) return record;
  return expect.fail(`no entry ${opId}`);
}

describe('storage/engine: an upsert of many points submitted in slices', () => {
  it('logs and applies it as submit does, its points checked between pauses', async () => {
    const engine = await engineWith();
    let pauses = 0;
    const { opId, result } = await engine.submitInSlices({ type: 'upsert_points', collection: 'c', points: points(1000) }, 0, async () => void pauses++);
    expect(result.error).to.equal(undefined);
    expect(opId).to.equal(engine.log.lastOperationId);
    expect(pauses, 'a pause after each 64 points, checked and then encoded').to.equal(30);
    const c = engine.collections.get('c')!;
    expect(c.store.liveCount).to.equal(1000);
    // The entry encoded a slice at a time is the one submit logs.
    const whole = await engineWith();
    await whole.submit({ type: 'upsert_points', collection: 'c', points: points(1000) });
    expect(recordOf(engine, opId)).to.deep.equal(recordOf(whole, opId));
    expect(searchCollection(c, { vector: [500, 501], limit: 1, offset: 0, ef: 32, filter: null, scoreThreshold: null })[0]!.id).to.equal(500);
  });

  it('refuses a bad point with submit\'s message and logs nothing', async () => {
    for (const [what, spoil] of [
      ['a vector of the wrong size', (p: PointRecord[]) => (p[700] = { ...p[700]!, vector: Float32Array.of(1, 2, 3) })],
      ['a payload that is no object', (p: PointRecord[]) => (p[65] = { ...p[65]!, payload: 3 as never })],
      ['an empty label', (p: PointRecord[]) => (p[999] = { ...p[999]!, labels: [''] })],
    ] as const) {
      const bad = points(1000);
      spoil(bad);
      const engine = await engineWith();
      const before = engine.log.lastOperationId;
      const whole = await rejection(engine.submit({ type: 'upsert_points', collection: 'c', points: bad }));
      const sliced = await rejection(engine.submitInSlices({ type: 'upsert_points', collection: 'c', points: bad }, 0, async () => undefined));
      expect(sliced.code, what).to.equal(400);
      expect(sliced.message, what).to.equal(whole.message);
      expect(engine.log.lastOperationId, what).to.equal(before);
    }
  });

  it('checks the points again when their collection is dropped and made again with another size while they are checked', async () => {
    const engine = await engineWith();
    let first = true;
    const pause = async (): Promise<void> => {
      if (!first) return;
      first = false;
      await engine.submit({ type: 'delete_collection', name: 'c' });
      await engine.submit({ type: 'create_collection', name: 'c', config: config(3) });
    };
    const before = engine.log.lastOperationId;
    const err = await rejection(engine.submitInSlices({ type: 'upsert_points', collection: 'c', points: points(1000) }, 0, pause));
    expect(err.code).to.equal(400);
    expect(err.message).to.match(/point 0: vector has 2 dimensions, collection "c" expects 3/);
    expect(engine.log.lastOperationId, 'the drop and the create only').to.equal(before + 2);
  });

  it('logs the write to the collection an alias names, encoded again, when the collection gives way to that alias meanwhile', async () => {
    const engine = await engineWith();
    await engine.submit({ type: 'create_collection', name: 'd', config: config(2) });
    let first = true;
    const pause = async (): Promise<void> => {
      if (!first) return;
      first = false;
      await engine.submit({ type: 'delete_collection', name: 'c' });
      await engine.submit({ type: 'aliases', actions: [{ create: { alias: 'c', collection: 'd' } }] });
    };
    const { opId, result } = await engine.submitInSlices({ type: 'upsert_points', collection: 'c', points: points(1000) }, 0, pause);
    expect(result.error).to.equal(undefined);
    expect(engine.collections.get('d')!.store.liveCount).to.equal(1000);
    const [logged] = [...engine.log.read(opId, opId)];
    expect(logged!.event).to.include({ type: 'upsert_points', collection: 'd' });
  });

  it('refuses with a 503 an upsert whose slices outlast the start of close(), logging nothing', async () => {
    const engine = await engineWith();
    const before = engine.log.lastOperationId;
    let closing: Promise<void> | null = null;
    const pause = async (): Promise<void> => {
      closing ??= engine.close();
    };
    const err = await rejection(engine.submitInSlices({ type: 'upsert_points', collection: 'c', points: points(1000) }, 0, pause));
    await closing;
    expect(err.code).to.equal(503);
    expect(err.message).to.match(/shutting down/);
    expect(engine.log.lastOperationId).to.equal(before);
    expect((await rejection(engine.submit({ type: 'delete_points', collection: 'c', ids: [1] }))).code, 'any write after close').to.equal(503);
  });

  it('refuses as submit does when the engine takes no writes or the collection is missing, before any point is checked', async () => {
    const engine = new Engine(new MemoryLog(), { readOnly: 'a read-only copy' });
    let pauses = 0;
    const err = await rejection(engine.submitInSlices({ type: 'upsert_points', collection: 'c', points: points(1000) }, 0, async () => void pauses++));
    expect(err.code).to.equal(403);
    const missing = await rejection((await engineWith()).submitInSlices({ type: 'upsert_points', collection: 'nope', points: points(1000) }, 0, async () => void pauses++));
    expect(missing.code).to.equal(404);
    expect(pauses).to.equal(0);
  });
});
