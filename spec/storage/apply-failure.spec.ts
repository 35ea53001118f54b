import { expect } from 'chai';
import { join } from 'node:path';
import type { Collection } from '../../storage/collection.js';
import { ApplyFailedError } from '../../storage/engine/apply-failure.js';
import { Engine } from '../../storage/engine/engine.js';
import { DbError } from '../../storage/errors.js';
import type { CollectionConfig, DbEvent } from '../../storage/events/types.js';
import type { SkipNote } from '../../storage/log/event-log.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { MemoryLog } from '../../storage/log/memory-log.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { tempDir } from '../helpers/temp-dir.js';

const config: CollectionConfig = { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 32, ml: 0.5 };
const upsert = (collection: string, id: number): DbEvent => ({ type: 'upsert_points', collection, points: [{ id, vector: Float32Array.of(id, 0), payload: {}, labels: [] }] });

/** The next upsert into `c` throws, as a view past one of its limits would. */
function breakNextUpsert(c: Collection): void {
  const real = c.upsert.bind(c);
  c.upsert = () => {
    c.upsert = real;
    throw new RangeError('Map maximum size exceeded');
  };
}

async function settled(p: Promise<unknown>): Promise<DbError | null> {
  try {
    await p;
    return null;
  } catch (err) {
    return err as DbError;
  }
}

describe('storage/engine: an entry whose apply throws', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.remove());

  it('stops writes: no later entry applies, every waiting write is rejected, the failure is reported once and nothing is snapshotted', async () => {
    const failures: ApplyFailedError[] = [];
    const engine = new Engine(LmdbLog.open(dir.path), { snapshots: new SnapshotFiles(join(dir.path, 'snapshots')), onApplyFailure: (f) => failures.push(f) });
    engine.replay();
    await engine.submit({ type: 'create_collection', name: 'c', config });
    await engine.submit(upsert('c', 1));
    breakNextUpsert(engine.collections.get('c')!);
    const outcomes = await Promise.all([upsert('c', 2), { type: 'create_collection', name: 'later', config } as DbEvent, upsert('c', 3)].map((e) => settled(engine.submit(e))));
    expect(outcomes.map((e) => e?.code)).to.deep.equal([503, 503, 503]);
    expect(outcomes[0]!.message).to.equal('log entry 3 (upsert_points on collection "c") could not be applied: Map maximum size exceeded; writes are stopped');
    expect(outcomes[1]!.message).to.match(/^writes stopped before this one was applied: log entry 3 .* It is in the log and applies at the next start once entry 3 is dealt with$/);

    expect(engine.lastAppliedOperationId).to.equal(2);
    expect(engine.collections.has('later'), 'a later entry never applies past the failed one').to.equal(false);
    expect(failures.map((f) => [f.opId, f.kind, f.collection])).to.deep.equal([[3, 'upsert_points', 'c']]);
    expect(engine.failed).to.be.instanceOf(ApplyFailedError);
    expect((await settled(engine.submit(upsert('c', 9))))!.message).to.match(/^writes are stopped after log entry 3 \(upsert_points on collection "c"\) could not be applied/);
    expect((await settled(engine.snapshot()))!.message).to.match(/no snapshot while writes are stopped/);
    await engine.close();
    expect(new SnapshotFiles(join(dir.path, 'snapshots')).list(), 'no snapshot at close either').to.deep.equal([]);

    const again = new Engine(LmdbLog.open(dir.path));
    expect(again.replay()).to.equal(5);
    expect(again.collections.get('c')!.store.sortedIds()).to.deep.equal([1, 2, 3]);
    expect(again.collections.has('later')).to.equal(true);
    await again.close();
  });

  it('stops the synchronous write path the same way', () => {
    const engine = new Engine(new MemoryLog());
    engine.submitSync({ type: 'create_collection', name: 'c', config });
    breakNextUpsert(engine.collections.get('c')!);
    expect(() => engine.submitSync(upsert('c', 1))).to.throw(DbError, /log entry 2 \(upsert_points on collection "c"\) could not be applied/);
    expect(() => engine.submitSync(upsert('c', 2))).to.throw(DbError, /writes are stopped after log entry 2/);
  });

  it('refuses a replay at the entry whose apply throws, and passes over an entry marked skipped, reporting it', async () => {
    const log = LmdbLog.open(dir.path);
    for (const e of [{ type: 'create_collection', name: 'c', config }, { type: 'create_collection', name: 'bad', config: { ...config, m0: 2 ** 32 - 1 } }, upsert('c', 7)] as DbEvent[]) {
      await log.append(e).durable;
    }
    expect(() => new Engine(log).replay()).to.throw(ApplyFailedError, /^log entry 2 \(create_collection on collection "bad"\) could not be applied/);
    const note: SkipNote = { kind: 'create_collection', collection: 'bad', reason: 'Invalid typed array length', at: '2026-01-01T00:00:00.000Z' };
    await log.markSkipped(2, note);
    await log.close();

    const reopened = LmdbLog.open(dir.path);
    const skips: [number, SkipNote][] = [];
    const engine = new Engine(reopened, { onSkipped: (opId, n) => skips.push([opId, n]) });
    expect(engine.replay()).to.equal(3);
    expect(skips).to.deep.equal([[2, note]]);
    expect([...engine.collections.keys()]).to.deep.equal(['c']);
    expect(engine.collections.get('c')!.store.has(7)).to.equal(true);
    await engine.close();
  });
});
