import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from 'lmdb';
import { Engine } from '../../storage/engine/engine.js';
import { importStream } from '../../storage/engine/stream-import.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { exportFileChunks } from '../../tools/lib/export-file.js';
import { repair } from '../../tools/replay/commands.js';
import { tempDir } from '../helpers/temp-dir.js';

const REPLAY = fileURLToPath(new URL('../../tools/replay/main.js', import.meta.url));

function replay(...args: string[]): { code: number; out: string } {
  const r = spawnSync(process.execPath, [REPLAY, ...args], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout + r.stderr };
}

const verify = (dir: string) => replay('verify', '--data-dir', dir);

/** 1 create and 12 upserts (operations 1..13), a snapshot at 4, the high-water mark at 13; closed as a SIGKILL leaves it. */
async function history(dir: string): Promise<void> {
  const engine = new Engine(LmdbLog.open(dir), { snapshots: new SnapshotFiles(join(dir, 'snapshots')), logRetention: 1000 });
  await engine.start();
  await engine.submit({ type: 'create_collection', name: 'h', config: { size: 2, distance: 'Euclid', m: 4, m0: 8, efConstruct: 8, ml: 0.7 } });
  for (let id = 0; id < 12; id++) {
    await engine.submit({ type: 'upsert_points', collection: 'h', points: [{ id, vector: Float32Array.of(id, 1), payload: {}, labels: [] }] });
    if (id === 2) await engine.snapshot();
  }
  await engine.markDurable();
  await engine.log.close();
}

async function removeEntries(dir: string, from: number, to: number): Promise<void> {
  const env = open({ path: dir, noSubdir: false });
  const db = env.openDB<Uint8Array, number>({ name: 'log', encoding: 'binary' });
  for (let opId = from; opId <= to; opId++) db.removeSync(opId);
  await env.close();
}

describe('tools/replay verify and repair against a log that lost entries', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(async () => {
    dir = tempDir();
    await history(dir.path);
  });
  afterEach(() => dir.remove());

  it('verify fails on a hole in the log, which every entry decoding does not show', async () => {
    expect(verify(dir.path).code).to.equal(0);
    await removeEntries(dir.path, 8, 9);
    const v = verify(dir.path);
    expect(v.code).to.equal(1);
    expect(v.out).to.include('FAIL operations 8 to 9 are missing: the log jumps from operation 7 to 10');
  });

  it('verify fails on a log that ends before the high-water mark; repair with accept-loss accepts it and verify is OK again', async () => {
    await removeEntries(dir.path, 10, 13);
    const v = verify(dir.path);
    expect(v.code).to.equal(1);
    expect(v.out).to.include('FAIL the log ends at operation 9 but the high-water mark (newest snapshot 4) shows operation 13 was durable: operations 10 to 13 are lost');

    const printed: string[] = [];
    const log = LmdbLog.open(dir.path);
    const tool = { log, snapshots: new SnapshotFiles(join(dir.path, 'snapshots')), print: (line: string) => printed.push(line) };
    try {
      expect(await repair(tool, false, true)).to.equal(1);
      expect(printed).to.include('would accept: the log ends at operation 9 but the high-water mark (newest snapshot 4) shows operation 13 was durable: operations 10 to 13 are lost');
      expect(await repair(tool, true, true)).to.equal(0);
      expect(printed.at(-1), 'the counter moves above the reservation the mark holds').to.equal('the state now ends at operation 1000000 (snapshot 1000000); new operations get ids above it');
    } finally {
      await log.close();
    }
    const again = verify(dir.path);
    expect(again.code, again.out).to.equal(0);
  });

  it('repair --accept-loss on the command line: a dry run without --yes, the loss accepted with it, never together with --skip', async () => {
    await removeEntries(dir.path, 10, 13);
    const both = replay('repair', '--data-dir', dir.path, '--accept-loss', '--skip', '10', '--yes');
    expect(both.code).to.equal(2);
    expect(both.out).to.include('--skip and --accept-loss are separate repairs');
    const dry = replay('repair', '--data-dir', dir.path, '--accept-loss');
    expect(dry.code, dry.out).to.equal(1);
    expect(dry.out).to.include('would accept: the log ends at operation 9');
    expect(verify(dir.path).code, 'a dry run changes nothing').to.equal(1);
    const done = replay('repair', '--data-dir', dir.path, '--accept-loss', '--yes');
    expect(done.code, done.out).to.equal(0);
    expect(verify(dir.path).code).to.equal(0);
  });

  it('verify names a streamed import whose stage file is damaged or missing; repair --accept-loss passes over a missing one', async () => {
    const engine = new Engine(LmdbLog.open(dir.path), { snapshots: new SnapshotFiles(join(dir.path, 'snapshots')), logRetention: 1000 });
    await engine.start();
    const config = { size: 2, distance: 'Euclid' as const, m: 4, m0: 8, efConstruct: 8, ml: 0.7 };
    const file = [...exportFileChunks({ name: 'i', config, points: 1_500, pointAt: (id) => ({ id, vector: Float32Array.of(id, 2), payload: {}, labels: [] }) })];
    expect((await importStream(engine, 'i', 'create', file)).opId).to.equal(14);
    await engine.submit({ type: 'upsert_points', collection: 'h', points: [{ id: 99, vector: Float32Array.of(9, 9), payload: {}, labels: [] }] });
    await engine.markDurable();
    await engine.log.close();
    expect(verify(dir.path).code).to.equal(0);

    const stage = join(dir.path, 'imports', '1.stage');
    const bytes = readFileSync(stage);
    bytes[bytes.length - 3]! ^= 0xff;
    writeFileSync(stage, bytes);
    const damaged = verify(dir.path);
    expect(damaged.code).to.equal(1);
    expect(damaged.out).to.include('staged import 1: block 2 fails its checksum; the server will not start: run repair --skip 14 --yes');

    unlinkSync(stage);
    const missing = verify(dir.path);
    expect(missing.code).to.equal(1);
    expect(missing.out).to.include('FAIL operation 14 (an import into "i") cannot be applied: its staged blocks, imports/1.stage in the data dir, is missing');
    const accepted = replay('repair', '--data-dir', dir.path, '--accept-loss', '--yes');
    expect(accepted.code, accepted.out).to.equal(0);
    expect(accepted.out).to.include('accepted loss: operation 14 (an import into "i") cannot be applied');
    const again = verify(dir.path);
    expect(again.code, again.out).to.equal(0);
  });
});
