import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { Engine, type EngineOptions, type Scheduler } from '../../storage/engine/engine.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { LogLossError, type LogProblem } from '../../storage/log/log-audit.js';
import type { HighWaterMark } from '../../storage/snapshot/high-water-mark.js';
import type { SnapshotOutput } from '../../storage/snapshot/snapshot-codec.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The reservation a fresh data dir's first start-up writes into the high-water mark. */
const RESERVED = 1_000_000;
const config: CollectionConfig = { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 32, ml: 1 / Math.log(8) };

function engineOn(dir: string, options: EngineOptions = {}): Engine {
  return new Engine(LmdbLog.open(dir), { snapshots: new SnapshotFiles(join(dir, 'snapshots')), logRetention: 1_000_000, ...options });
}

/**
 * A collection and `count` single-point upserts (operations 1..count+1), a snapshot after the
 * first `snapshotAfter` of them, the high-water mark at the end; then the log is closed as a
 * SIGKILL would leave it (no snapshot at close). Answers the last operation_id.
 */
async function history(dir: string, count: number, snapshotAfter: number): Promise<number> {
  const engine = engineOn(dir);
  await engine.start();
  await engine.submit({ type: 'create_collection', name: 'c', config });
  for (let id = 0; id < count; id++) {
    await engine.submit({ type: 'upsert_points', collection: 'c', points: [{ id, vector: Float32Array.of(id, 1), payload: {}, labels: [] }] });
    if (id + 1 === snapshotAfter) await engine.snapshot();
  }
  await engine.markDurable();
  await engine.log.close();
  return count + 1;
}

/** Takes entries out of the log behind its back, as damaged LMDB pages can without an error. */
async function removeEntries(dir: string, from: number, to: number): Promise<void> {
  const env = open({ path: dir, noSubdir: false });
  const db = env.openDB<Uint8Array, number>({ name: 'log', encoding: 'binary' });
  for (let opId = from; opId <= to; opId++) db.removeSync(opId);
  await env.close();
}

async function startError(engine: Engine): Promise<LogLossError> {
  try {
    await engine.start();
  } catch (err) {
    await engine.log.close();
    if (err instanceof LogLossError) return err;
    throw err;
  }
  await engine.close();
  throw new Error('start-up went on over a log with operations missing');
}

describe('storage/log audit at start-up', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('refuses a log whose tail is gone (the scan ends early), names the operations, and accepts the loss only when told', async () => {
    const last = await history(dir.path, 300, 100);
    await removeEntries(dir.path, 150, last);
    const err = await startError(engineOn(dir.path));
    expect(err.problems).to.have.length(1);
    expect(err.message).to.equal(`the log ends at operation 149 but the high-water mark (newest snapshot 101) shows operation ${last} was durable: operations 150 to ${last} are lost`);

    const losses: LogProblem[] = [];
    let engine = engineOn(dir.path, { acceptLoss: true, onLoss: (p) => losses.push(p) });
    await engine.start();
    expect(losses.map((p) => [p.from, p.to])).to.deep.equal([[150, last]]);
    expect(engine.collections.get('c')!.store.liveCount, 'what is left: operations 1..149').to.equal(148);
    const next = await engine.submit({ type: 'delete_points', collection: 'c', ids: [0] });
    expect(next.opId, 'ids go on above every id the mark reserved, so none acknowledged before the loss is reused').to.equal(RESERVED + 1);
    await engine.close();

    engine = engineOn(dir.path);
    await engine.start();
    expect(engine.collections.get('c')!.store.liveCount).to.equal(147);
    await engine.close();
  });

  it('refuses a log with a hole after the snapshot; accepting it cuts the log after the hole so the next start-up is clean', async () => {
    await history(dir.path, 100, 20);
    await removeEntries(dir.path, 40, 59);
    const err = await startError(engineOn(dir.path));
    expect(err.message).to.equal('operations 40 to 59 are missing: the log jumps from operation 39 to 60');

    const engine = engineOn(dir.path, { acceptLoss: true });
    await engine.start();
    expect(engine.collections.get('c')!.store.liveCount).to.equal(100 - 20);
    expect(engine.lastSnapshotOperationId, 'a snapshot of what is left, at the new counter').to.equal(RESERVED);
    expect(engine.log.firstOperationId, 'entries up to the hole are dropped').to.equal(60);
    await engine.close();
    const again = engineOn(dir.path);
    expect(await again.start()).to.equal(0);
    await again.close();
  });

  it('refuses a log that starts after the snapshot it needs', async () => {
    await history(dir.path, 50, 10);
    await removeEntries(dir.path, 1, 20);
    const err = await startError(engineOn(dir.path));
    expect(err.message).to.equal('operations 12 to 20 are missing: the log starts at operation 21 but the state ends at 11');
  });

  it('refuses a deleted log while snapshots remain; accepting goes on from the snapshot with ids above it', async () => {
    const last = await history(dir.path, 60, 30);
    unlinkSync(join(dir.path, 'data.mdb'));
    unlinkSync(join(dir.path, 'lock.mdb'));
    let err = await startError(engineOn(dir.path));
    expect(err.message).to.equal(`the log ends at operation 0 but the high-water mark (newest snapshot 31) shows operation ${last} was durable: operations 32 to ${last} are lost`);

    unlinkSync(join(dir.path, 'snapshots', 'high-water-mark'));
    unlinkSync(join(dir.path, 'data.mdb'));
    err = await startError(engineOn(dir.path));
    expect(err.message, 'the snapshot alone shows it').to.match(/^the log ends at operation 0 but snapshot 31 shows operation 31 was durable: the log file was lost or replaced/);

    const losses: LogProblem[] = [];
    const engine = engineOn(dir.path, { acceptLoss: true, onLoss: (p) => losses.push(p) });
    await engine.start();
    expect(losses).to.have.length(1);
    expect(engine.collections.get('c')!.store.liveCount).to.equal(30);
    expect((await engine.submit({ type: 'delete_points', collection: 'c', ids: [1] })).opId).to.equal(32);
    await engine.close();
  });

  it('refuses a damaged high-water mark, and rewrites it when the loss is accepted', async () => {
    await history(dir.path, 10, 5);
    const markFile = join(dir.path, 'snapshots', 'high-water-mark');
    const bytes = readFileSync(markFile);
    bytes[10]! ^= 1;
    writeFileSync(markFile, bytes);
    const err = await startError(engineOn(dir.path));
    expect(err.message).to.match(/high-water-mark is damaged: it fails its checksum; it can no longer show which operations were durable/);
    const engine = engineOn(dir.path, { acceptLoss: true });
    await engine.start();
    await engine.close();
    expect(new SnapshotFiles(join(dir.path, 'snapshots')).readMark()).to.deep.equal({ opId: 11, snapshotOpId: 11, reservedThrough: 11 + RESERVED });
  });

  it('advances the high-water mark once per period while writes come in, and never lowers it', async () => {
    const periodic: (() => void)[] = [];
    const schedule: Scheduler = (task, delayMs) => (delayMs === 60_000 ? periodic.push(task) : setImmediate(task));
    const files = new SnapshotFiles(join(dir.path, 'snapshots'));
    const written: HighWaterMark[] = [];
    const pending: Promise<void>[] = [];
    const store = {
      loadNewest: (atMost?: number) => files.loadNewest(atMost),
      write: (opId: number, fill: (out: SnapshotOutput) => void) => files.write(opId, fill),
      list: () => files.list(),
      readMark: () => files.readMark(),
      writeMark: (mark: HighWaterMark) => {
        written.push(mark);
        const write = files.writeMark(mark);
        pending.push(write);
        return write;
      },
    };
    const engine = new Engine(LmdbLog.open(dir.path), { snapshots: store, markEveryMs: 60_000, schedule });
    await engine.start();
    await engine.submit({ type: 'create_collection', name: 'c', config });
    for (let id = 0; id < 5; id++) await engine.submit({ type: 'delete_points', collection: 'c', ids: [id] });
    expect(periodic, 'one pending mark write for the whole burst').to.have.length(1);
    written.length = 0;
    periodic.shift()!();
    await Promise.all(pending);
    expect(written).to.deep.equal([{ opId: 6, snapshotOpId: 0, reservedThrough: RESERVED }]);
    expect(files.readMark()).to.deep.equal({ opId: 6, snapshotOpId: 0, reservedThrough: RESERVED });
    await files.writeMark({ opId: 2, snapshotOpId: 0, reservedThrough: 0 });
    expect(files.readMark()).to.deep.equal({ opId: 6, snapshotOpId: 0, reservedThrough: RESERVED });
    await engine.log.close();
  });

  it('writes a new id reservation into the mark once half of the current one is handed out', async () => {
    const engine = engineOn(dir.path, { reserveIds: 10 });
    await engine.start();
    const files = new SnapshotFiles(join(dir.path, 'snapshots'));
    expect(files.readMark()!.reservedThrough).to.equal(10);
    await engine.submit({ type: 'create_collection', name: 'c', config });
    for (let id = 0; id < 4; id++) await engine.submit({ type: 'delete_points', collection: 'c', ids: [id] });
    expect(files.readMark()!.reservedThrough, 'operation 5 is still within the first half').to.equal(10);
    await engine.submit({ type: 'delete_points', collection: 'c', ids: [9] });
    await engine.markDurable();
    expect(files.readMark()!.reservedThrough, 'operation 6 passed the half: reserved through 6 + 10').to.equal(16);
    await engine.close();
  });

  it('a failed snapshot write leaves no .tmp file behind', async () => {
    const snapDir = join(dir.path, 'snapshots');
    const files = new SnapshotFiles(snapDir);
    // A non-empty directory where the snapshot must go makes the rename fail after the temp file is written.
    const blocker = join(snapDir, 'snapshot-0000000000000007.snap');
    mkdirSync(blocker);
    writeFileSync(join(blocker, 'x'), 'x');
    let failed = false;
    await files.save(7, [Uint8Array.of(1, 2, 3)]).catch(() => (failed = true));
    expect(failed).to.equal(true);
    expect(readdirSync(snapDir).sort()).to.deep.equal(['snapshot-0000000000000007.snap']);
    expect(existsSync(`${blocker}.tmp`)).to.equal(false);
  });
});
