import { expect } from 'chai';
import { readdirSync, statSync, truncateSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { changePieces } from '../../query/changes/change-json.js';
import { Engine } from '../../storage/engine/engine.js';
import { importStream } from '../../storage/engine/stream-import.js';
import type { CollectionConfig, PointRecord } from '../../storage/events/types.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { stagedImportOf } from '../../storage/log/record.js';
import { LogLossError, type LogProblem } from '../../storage/log/log-audit.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { dirBytes } from '../../tools/lib/dir-bytes.js';
import { exportFileChunks } from '../../tools/lib/export-file.js';
import { tempDir } from '../helpers/temp-dir.js';

const CONFIG: CollectionConfig = { size: 4, distance: 'Euclid', m: 4, m0: 8, efConstruct: 8, ml: 0.7 };
const pointAt = (i: number): PointRecord => ({ id: i, vector: Float32Array.of(i, 1, 2, 3), payload: { i }, labels: [] });
const fileOf = (points: number, from = 0) => [...exportFileChunks({ name: 'c', config: CONFIG, points, pointAt: (i) => pointAt(i + from), edges: [{ from: from, to: from + 1, relation: 'R', weight: 2 }] })];

/** The stage files in the data dir's imports/ (none when it was never made). */
function stageFiles(dir: string): string[] {
  try {
    return readdirSync(join(dir, 'imports')).sort();
  } catch {
    return [];
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
    // Three POINTS blocks and one EDGES block, in the stage file, byte for byte as in the export file (past its header block).
    expect(stageFiles(dir.path)).to.deep.equal(['1.stage']);
    const file = fileOf(2_500);
    expect(statSync(join(dir.path, 'imports', '1.stage')).size).to.equal(file.slice(3, 7).reduce((n, c) => n + c.length, 0));

    const again = new Engine(LmdbLog.open(dir.path), { snapshots: snapshots(), logRetention: 0 });
    await again.start();
    await again.submit({ type: 'upsert_points', collection: 'c', points: [pointAt(9_999)] });
    await again.snapshot();
    await again.log.close();
    expect(stageFiles(dir.path)).to.deep.equal([]);

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
    // The first import's stage, and the orphan's; the refused import's went at once.
    expect(stageFiles(dir.path)).to.deep.equal(['1.stage', '3.stage']);

    const reopened = LmdbLog.open(dir.path);
    const fresh = reopened.stageImport();
    expect(fresh.id, 'a stage number is not handed out again').to.equal(4);
    await fresh.discard();
    await reopened.close();
    expect(stageFiles(dir.path)).to.deep.equal(['1.stage']);
  });

  it('stages a replica\'s import under its primary\'s stage number, refusing one taken, and applies its record only with that stage', async () => {
    const primary = new Engine(LmdbLog.open(join(dir.path, 'primary')));
    await primary.start();
    await primary.submit({ type: 'create_collection', name: 'first', config: CONFIG });
    await importStream(primary, 'c', 'create', fileOf(1_500));
    const [create, entry] = [...primary.log.readRaw()];
    const staged = stagedImportOf(2, entry!.record)!.staged!;
    const blocks = [...(primary.log as LmdbLog).stagedBlocks(staged.stage, staged.blocks, staged.digest)];
    await primary.close();

    const replica = new Engine(LmdbLog.open(join(dir.path, 'replica')));
    await replica.start();
    const log = replica.log as LmdbLog;
    await replica.applyReplicated(1, create!.record);
    // The record names stage 1: without its blocks it is refused before anything is logged.
    expect(() => replica.applyReplicated(2, entry!.record)).to.throw(/log entry 2 names staged import 1, and came with no staged blocks/);
    expect(log.lastOperationId).to.equal(1);
    const stage = log.stageImport(1);
    expect(() => log.stageImport(1), 'open already').to.throw(/import stage 1 is taken/);
    for (const block of blocks) stage.add(block);
    await stage.finish();
    await replica.applyReplicated(2, entry!.record, stage);
    expect(replica.collections.get('c')!.store.liveCount).to.equal(1_500);
    expect(() => log.stageImport(1), 'committed by its entry').to.throw(/import stage 1 is taken/);
    expect(log.stageImport().id, 'its own stages are numbered above it').to.equal(2);
    await replica.close();
  });

  it('refuses to start on an import whose stage file is missing or cut, naming it; accepting the loss passes over that import', async () => {
    const snapshots = () => new SnapshotFiles(join(dir.path, 'snapshots'));
    const engine = new Engine(LmdbLog.open(dir.path), { snapshots: snapshots() });
    await engine.start();
    await importStream(engine, 'c', 'create', fileOf(10));
    await engine.snapshot();
    await importStream(engine, 'd', 'create', fileOf(2_500));
    await engine.submit({ type: 'upsert_points', collection: 'c', points: [pointAt(77)] });
    await engine.markDurable();
    await engine.log.close();
    const stage = join(dir.path, 'imports', '2.stage');

    const startsWith = async (options: ConstructorParameters<typeof Engine>[1]) => {
      const again = new Engine(LmdbLog.open(dir.path), { snapshots: snapshots(), ...options });
      try {
        await again.start();
        return again;
      } catch (err) {
        await again.log.close();
        throw err;
      }
    };
    truncateSync(stage, statSync(stage).size - 1);
    const cut = await startsWith({}).catch((err: Error) => err);
    expect(cut).to.be.instanceOf(LogLossError);
    expect((cut as Error).message).to.match(/^operation 2 \(an import into "d"\) cannot be applied: its staged blocks, imports\/2\.stage in the data dir, holds \d+ bytes, not the \d+ staged$/);

    unlinkSync(stage);
    const missing = await startsWith({}).catch((err: Error) => err);
    expect((missing as Error).message).to.equal('operation 2 (an import into "d") cannot be applied: its staged blocks, imports/2.stage in the data dir, is missing');

    const losses: LogProblem[] = [];
    const accepted = await startsWith({ acceptLoss: true, onLoss: (p) => losses.push(p) });
    expect(losses.map((p) => p.message)).to.deep.equal([(missing as Error).message]);
    expect(accepted.collections.has('d'), 'the import is passed over').to.equal(false);
    expect(accepted.collections.get('c')!.store.liveCount, 'the writes after it apply').to.equal(11);
    await accepted.close();
    const later = await startsWith({});
    expect(later.collections.get('c')!.store.liveCount, 'later starts need no flag').to.equal(11);
    await later.close();
  });

  it('keeps the data dir within twice the export file after an import and its snapshot: data.mdb does not grow by the file', async () => {
    const wide: CollectionConfig = { size: 128, distance: 'Euclid', m: 16, m0: 32, efConstruct: 16, ml: 1 / Math.log(16) };
    const wideAt = (i: number): PointRecord => ({ id: i, vector: Float32Array.from({ length: 128 }, (_, d) => Math.sin(i * 0.37 + d)), payload: { i }, labels: [] });
    const file = [...exportFileChunks({ name: 'w', config: wide, points: 20_000, pointAt: wideAt })];
    const fileBytes = file.reduce((n, c) => n + c.length, 0);
    const engine = new Engine(LmdbLog.open(dir.path), { snapshots: new SnapshotFiles(join(dir.path, 'snapshots')), logRetention: 0 });
    await engine.start();
    await importStream(engine, 'w', 'create', file);
    expect(statSync(join(dir.path, 'data.mdb')).size, 'the blocks are staged outside data.mdb').to.be.below(fileBytes / 4);
    await engine.snapshot();
    const serving = dirBytes(dir.path);
    await engine.close();
    const atRest = dirBytes(dir.path);
    const seen = `data dir ${(serving / 2 ** 20).toFixed(1)} MiB serving, ${(atRest / 2 ** 20).toFixed(1)} MiB at rest, export ${(fileBytes / 2 ** 20).toFixed(1)} MiB`;
    expect(serving, seen).to.be.at.most(2 * fileBytes);
    expect(atRest, seen).to.be.at.most(2 * fileBytes);
    expect(stageFiles(dir.path)).to.deep.equal([]);
  });

  it('lets a changefeed line of an import finish when a snapshot drops the entry and deletes its stage file halfway', async () => {
    const engine = new Engine(LmdbLog.open(dir.path));
    await engine.start();
    const { opId } = await importStream(engine, 'c', 'create', fileOf(2_500));
    const [entry] = [...engine.log.read(opId, opId)];
    const pieces = changePieces(entry!);
    const line = [pieces.next().value, pieces.next().value, pieces.next().value];
    // Between its passes over the blocks (the ids, then the points and edges), the entry goes.
    await engine.log.truncateThrough(opId);
    expect(stageFiles(dir.path)).to.deep.equal([]);
    for (const piece of pieces) line.push(piece);
    const change = JSON.parse(line.join('')) as { ids: number[]; data: { points: unknown[]; edges: unknown[] } };
    expect([change.ids.length, change.data.points.length, change.data.edges.length]).to.deep.equal([2_500, 2_500, 1]);
    await engine.close();
  });

  /** The log's retention cut run to its end at once; with `steps`, how many times it yielded. */
  const cut = (log: LmdbLog, through: number, entries: number, bytes: number, steps?: { n: number }): number => {
    const work = log.retentionCut(through, entries, bytes);
    for (;;) {
      const step = work.next();
      if (step.done) return step.value;
      if (steps) steps.n++;
    }
  };

  it('keeps at most the retention in bytes of the log before a snapshot', async () => {
    let log = LmdbLog.open(dir.path);
    const big = (id: number): PointRecord => ({ id, vector: new Float32Array(4), payload: { pad: 'x'.repeat(1000) }, labels: [] });
    await log.append({ type: 'create_collection', name: 'c', config: CONFIG }).durable;
    for (let i = 0; i < 9; i++) await log.append({ type: 'upsert_points', collection: 'c', points: [big(i)] }).durable;
    // Ten entries; the newest five take over 5,000 bytes.
    expect(cut(log, 10, 100, 3_500)).to.equal(7);
    expect(cut(log, 10, 2, 1_000_000)).to.equal(8);
    expect(cut(log, 10, 100, 1_000_000)).to.equal(0);
    // Measured again after more entries and a truncation (the sizes read once are kept): the same cuts.
    for (let i = 9; i < 12; i++) await log.append({ type: 'upsert_points', collection: 'c', points: [big(i)] }).durable;
    expect(cut(log, 13, 100, 3_500)).to.equal(10);
    expect(cut(log, 10, 100, 3_500)).to.equal(7);
    await log.truncateThrough(7);
    expect(cut(log, 13, 100, 3_500)).to.equal(10);
    expect(cut(log, 13, 100, 1_000_000)).to.equal(0);
    expect(cut(log, 13, 3, 1_000_000)).to.equal(10);
    // Reopened, the sizes are read from the log again (the entries were written before it opened): the same cuts.
    await log.close();
    log = LmdbLog.open(dir.path);
    expect(cut(log, 13, 100, 3_500)).to.equal(10);
    expect(cut(log, 13, 3, 1_000_000)).to.equal(10);
    await log.close();
  });

  it('measures the retention a page of keys at a time, yielding between pages and after each entry it reads whole', async () => {
    let log = LmdbLog.open(dir.path);
    await log.append({ type: 'create_collection', name: 'c', config: CONFIG }).durable;
    const small = (id: number): PointRecord => ({ id, vector: new Float32Array(4), payload: {}, labels: [] });
    const upserts = async (from: number, to: number) => {
      for (let i = from; i < to - 1; i++) void log.append({ type: 'upsert_points', collection: 'c', points: [small(i)] });
      await log.append({ type: 'upsert_points', collection: 'c', points: [small(to - 1)] }).durable;
    };
    await upserts(0, 2_501);
    // 2,502 entries, none measured yet: keep 2,000 of them, across two pages of keys.
    const read = { n: 0 };
    expect(cut(log, 2_502, 2_000, 1_000_000_000, read)).to.equal(502);
    expect(read.n, 'each of the 2,001 entries read whole, and a page').to.equal(2_001 + 1);
    // Appended after the first cut: their sizes are noted as they are appended, none is read.
    await upserts(2_501, 4_501);
    const noted = { n: 0 };
    expect(cut(log, 4_502, 2_000, 1_000_000_000, noted)).to.equal(2_502);
    expect(noted.n, 'sizes known: a yield a page').to.equal(1);
    await log.close();
    log = LmdbLog.open(dir.path);
    const again = { n: 0 };
    expect(cut(log, 4_502, 2_000, 1_000_000_000, again)).to.equal(2_502);
    expect(again.n, 'reopened: read whole again').to.equal(2_001 + 1);
    expect(cut(log, 4_502, 5_000, 1_000_000_000)).to.equal(0);
    await log.close();
  });
});
