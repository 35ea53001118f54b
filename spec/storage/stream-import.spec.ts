import { expect } from 'chai';
import { join } from 'node:path';
import { open } from 'lmdb';
import { Engine } from '../../storage/engine/engine.js';
import { importStream } from '../../storage/engine/stream-import.js';
import type { CollectionConfig, PointRecord } from '../../storage/events/types.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { exportFileChunks } from '../../tools/lib/export-file.js';
import { tempDir } from '../helpers/temp-dir.js';

const CONFIG: CollectionConfig = { size: 4, distance: 'Euclid', m: 4, m0: 8, efConstruct: 8, ml: 0.7 };
const pointAt = (i: number): PointRecord => ({ id: i, vector: Float32Array.of(i, 1, 2, 3), payload: { i }, labels: [] });
const fileOf = (points: number, from = 0) => [...exportFileChunks({ name: 'c', config: CONFIG, points, pointAt: (i) => pointAt(i + from), edges: [{ from: from, to: from + 1, relation: 'R', weight: 2 }] })];

function stagedKeys(dir: string): number {
  const env = open({ path: dir, noSubdir: false, readOnly: true });
  try {
    return env.openDB({ name: 'staged', encoding: 'binary' }).getKeysCount();
  } finally {
    void env.close();
  }
}

describe('storage: streamed imports', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('applies a merge a slice at a time while the event loop runs, and readers that wait see it whole', async () => {
    const engine = new Engine(LmdbLog.open(dir.path));
    await engine.start();
    await importStream(engine, 'c', 'create', fileOf(100));
    const c = engine.collections.get('c')!;
    let turns = 0;
    let sliced = false;
    const seen: number[] = [];
    const ticker = setInterval(() => {
      turns++;
      if (!engine.applyingInSlices) return;
      sliced = true;
      void engine.settled('c').then(() => seen.push(c.store.liveCount));
    }, 0);
    const { result } = await importStream(engine, 'c', 'merge', fileOf(20_000, 50));
    clearInterval(ticker);
    expect(result).to.deep.include({ imported: 19_950, skipped: 50 });
    expect(sliced, 'the merge applied in slices').to.equal(true);
    expect(turns).to.be.above(0);
    expect(seen.length).to.be.above(0);
    expect(new Set(seen)).to.deep.equal(new Set([20_050]));
    expect(c.graph.find(50, 51, 'R')).to.be.at.least(0);
    await engine.close();
  });

  it('takes no snapshot of a merge applied in part, and one once it is whole', async () => {
    const engine = new Engine(LmdbLog.open(dir.path), { snapshots: new SnapshotFiles(join(dir.path, 'snapshots')) });
    await engine.start();
    await importStream(engine, 'c', 'create', fileOf(10));
    const refusals: string[] = [];
    const ticker = setInterval(() => {
      if (engine.applyingInSlices) engine.snapshot().catch((err: Error) => refusals.push(err.message));
    }, 0);
    const { opId } = await importStream(engine, 'c', 'merge', fileOf(20_000, 5));
    clearInterval(ticker);
    expect(refusals.length).to.be.above(0);
    expect(refusals[0]).to.match(/no snapshot while merge import \d+ is applied in part/);
    expect(await engine.snapshot()).to.equal(opId);
    await engine.close();
  });

  it('drops a stage with its entry once a snapshot covers it, and starts from the snapshot to the same state', async () => {
    const snapshots = () => new SnapshotFiles(join(dir.path, 'snapshots'));
    const engine = new Engine(LmdbLog.open(dir.path), { snapshots: snapshots(), logRetention: 0 });
    await engine.start();
    await importStream(engine, 'c', 'create', fileOf(2_500));
    await engine.log.close();
    // Three POINTS blocks and one EDGES block.
    expect(stagedKeys(dir.path)).to.equal(4);

    const again = new Engine(LmdbLog.open(dir.path), { snapshots: snapshots(), logRetention: 0 });
    await again.start();
    await again.submit({ type: 'upsert_points', collection: 'c', points: [pointAt(9_999)] });
    await again.snapshot();
    await again.log.close();
    expect(stagedKeys(dir.path)).to.equal(0);

    const third = new Engine(LmdbLog.open(dir.path), { snapshots: snapshots() });
    await third.start();
    const c = third.collections.get('c')!;
    expect(c.store.liveCount).to.equal(2_501);
    expect(Array.from(c.store.vectorOf(c.store.slotOf(2_000)))).to.deep.equal([2_000, 1, 2, 3]);
    await third.close();
  });

  it('discards a stage whose import is refused before it is logged, and drops an orphan stage at the next open', async () => {
    const engine = new Engine(LmdbLog.open(dir.path));
    await engine.start();
    await importStream(engine, 'c', 'create', fileOf(10));
    let refused = '';
    await importStream(engine, 'c', 'create', fileOf(3_000)).catch((err: Error) => (refused = err.message));
    expect(refused).to.match(/already exists/);
    const log = engine.log as LmdbLog;
    const orphan = log.stageImport();
    for (const chunk of fileOf(1_500).slice(3, 5)) orphan.add(chunk);
    await orphan.finish();
    await log.close();
    // The first import's points and edges blocks, and the orphan's two.
    expect(stagedKeys(dir.path)).to.equal(2 + 2);

    const reopened = LmdbLog.open(dir.path);
    await reopened.close();
    expect(stagedKeys(dir.path)).to.equal(2);
  });

  it('keeps at most the retention in bytes of the log before a snapshot', async () => {
    const log = LmdbLog.open(dir.path);
    const big = (id: number): PointRecord => ({ id, vector: new Float32Array(4), payload: { pad: 'x'.repeat(1000) }, labels: [] });
    await log.append({ type: 'create_collection', name: 'c', config: CONFIG }).durable;
    for (let i = 0; i < 9; i++) await log.append({ type: 'upsert_points', collection: 'c', points: [big(i)] }).durable;
    // Ten entries; the newest five take over 5,000 bytes.
    expect(log.retentionCut(10, 100, 3_500)).to.equal(7);
    expect(log.retentionCut(10, 2, 1_000_000)).to.equal(8);
    expect(log.retentionCut(10, 100, 1_000_000)).to.equal(0);
    await log.close();
  });
});
