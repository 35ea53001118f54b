import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from 'lmdb';
import { Engine } from '../../storage/engine/engine.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { ImportReader } from '../../storage/export/import-reader.js';
import { startTestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';

const REPLAY = fileURLToPath(new URL('../../tools/replay/main.js', import.meta.url));

function replay(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [REPLAY, ...args], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** 1 create, 10 single upserts (ids 0..9), 1 delete, 1 edge: operations 1..13, a snapshot at 6. */
async function history(dir: string): Promise<void> {
  const engine = new Engine(LmdbLog.open(dir), { snapshots: new SnapshotFiles(join(dir, 'snapshots')), logRetention: 1000 });
  engine.replay();
  await engine.submit({ type: 'create_collection', name: 'h', config: { size: 2, distance: 'Euclid', m: 4, m0: 8, efConstruct: 8, ml: 0.7 } });
  for (let id = 0; id < 10; id++) {
    await engine.submit({ type: 'upsert_points', collection: 'h', points: [{ id, vector: Float32Array.of(id, 1), payload: { id }, labels: [] }] });
    if (id === 4) expect(await engine.snapshot()).to.equal(6);
  }
  await engine.submit({ type: 'delete_points', collection: 'h', ids: [0] });
  await engine.submit({ type: 'upsert_edge', collection: 'h', from: 1, to: 2, relation: 'R', weight: 1 });
  await engine.log.close();
}

async function damage(dir: string, opId: number): Promise<void> {
  const env = open({ path: dir });
  const db = env.openDB({ name: 'log', encoding: 'binary' });
  db.putSync(opId, Buffer.from('garbage that fails its checksum'));
  await env.close();
}

describe('tools/replay', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(async () => {
    dir = tempDir();
    await history(dir.path);
  });
  afterEach(() => dir.remove());

  it('inspects entries by range and collection', () => {
    const r = replay('inspect', '--data-dir', dir.path, '--from', '12', '--to', '13');
    expect(r.code).to.equal(0);
    expect(r.out.trim().split('\n').map((l) => l.split('\t').slice(0, 3).join(' '))).to.deep.equal(['12 delete_points h', '13 upsert_edge h']);
    expect(replay('inspect', '--data-dir', dir.path, '--collection', 'other').out).to.equal('');
  });

  it('reports stats and verifies the log and the newest snapshot against a replay', () => {
    const s = replay('stats', '--data-dir', dir.path);
    expect(s.out).to.match(/operations 1\.\.13: 13 entries/);
    expect(s.out).to.match(/upsert_points: 10/);
    const v = replay('verify', '--data-dir', dir.path);
    expect(v.code, v.out + v.err).to.equal(0);
    expect(v.out).to.match(/13 entries checked/);
    expect(v.out).to.match(/snapshot 6 matches a replay from operation 1/);
    expect(v.out.trim().split('\n').pop()).to.equal('OK');
  });

  it('rebuilds the state as of an operation as export files', () => {
    const out = join(dir.path, 'out');
    const r = replay('rebuild', '--data-dir', dir.path, '--until', '4', '--out', out);
    expect(r.code, r.err).to.equal(0);
    const reader = new ImportReader();
    reader.feed(readFileSync(join(out, 'h.vgdb')));
    const file = reader.finish();
    expect(file.points.map((p) => p.id)).to.deep.equal([0, 1, 2]);
  });

  it('finds a damaged entry: verify fails, the server refuses to start naming it, repair drops it, the server starts', async () => {
    await damage(dir.path, 12);
    const v = replay('verify', '--data-dir', dir.path);
    expect(v.code).to.equal(1);
    expect(v.out).to.match(/FAIL log entry 12 is damaged/);

    let message = '';
    try {
      const s = await startTestServer({ SERVICE_SNAPSHOT_EVERY: '0' }, dir.path);
      await s.stop();
    } catch (err) {
      message = (err as Error).message;
    }
    if (message === '') expect.fail('the server started on a damaged log');
    expect(message).to.match(/log entry 12 is damaged/);
    expect(message).to.match(/npm run replay -- repair --data-dir .* --yes/);

    const dry = replay('repair', '--data-dir', dir.path);
    expect(dry.code).to.equal(1);
    expect(dry.out).to.match(/would drop operations 12\.\.13/);
    const done = replay('repair', '--data-dir', dir.path, '--yes');
    expect(done.code, done.out + done.err).to.equal(0);
    expect(done.out).to.match(/dropped 2 entries from operation 12/);
    expect(replay('verify', '--data-dir', dir.path).out.trim().split('\n').pop()).to.equal('OK');

    const s = await startTestServer({}, dir.path);
    try {
      const next = await fetch(`${s.url}/collections/h/points/delete`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ points: [5] }) });
      const body = (await next.json()) as { result: { operation_id: number } };
      expect(body.result.operation_id, 'operation ids are never reused').to.equal(14);
    } finally {
      await s.stop();
    }
  });

  it('refuses while a server holds the data dir, and names what is wrong with bad arguments', async () => {
    const s = await startTestServer({}, dir.path);
    try {
      const r = replay('stats', '--data-dir', dir.path);
      expect(r.code).to.equal(2);
      expect(r.err).to.match(/in use by process/);
    } finally {
      await s.stop();
    }
    expect(replay('bogus').code).to.equal(2);
    expect(replay('rebuild', '--data-dir', dir.path, '--until', 'x', '--out', '/tmp/x').err).to.match(/--until must be an operation_id/);
    expect(existsSync(join(dir.path, 'snapshots'))).to.equal(true);
  });
});
