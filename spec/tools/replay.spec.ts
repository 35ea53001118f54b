import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from 'lmdb';
import { Engine } from '../../storage/engine/engine.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { ImportReader } from '../../storage/export/import-reader.js';
import { startTestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runToolProcess } from './tool-process.js';

const replay = (...args: string[]) => runToolProcess('replay', args);

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

  it('shows progress off a terminal as plain lines on stderr, leaving the results on stdout as they were', () => {
    const v = replay('verify', '--data-dir', dir.path);
    const out = v.out.split('\n');
    expect(out[1]).to.match(/^hash chain: 12 link\(s\) checked from entry 1, head [0-9a-f]{64}$/);
    expect(out.filter((_, i) => i !== 1)).to.deep.equal(['13 entries checked (1..13)', 'snapshot 6 matches a replay from operation 1 (1 collections)', 'OK', '']);
    expect(v.err).not.to.include('\r');
    const lines = v.err.trimEnd().split('\n');
    const checking = lines.filter((l) => l.startsWith('replay verify: checking entries: '));
    const applying = lines.filter((l) => l.startsWith('replay verify: applying every entry: '));
    const replaying = lines.filter((l) => l.startsWith('replay verify: replaying to snapshot 6: '));
    expect(checking.length + applying.length + replaying.length, v.err).to.equal(lines.length);
    expect(checking[0]).to.equal('replay verify: checking entries: 0% (0/13 entries)');
    expect(checking.at(-1)).to.equal('replay verify: checking entries: 100% (13/13 entries)');
    expect(checking.length, 'one line per tenth at most, plus the start').to.be.at.most(11);
    expect(applying.at(-1)).to.equal('replay verify: applying every entry: 100% (13/13 entries)');
    expect(replaying.at(-1)).to.equal('replay verify: replaying to snapshot 6: 100% (6/6 entries)');

    const r = replay('rebuild', '--data-dir', dir.path, '--until', '10', '--out', join(dir.path, 'out'));
    expect(r.err.trimEnd().split('\n').at(-1)).to.equal('replay rebuild: 100% (4/4 entries)');
    expect(r.out).not.to.match(/%/);
  });

  it('refuses a --data-dir that does not exist or holds no database, naming it and creating nothing', () => {
    const missing = join(dir.path, 'typo');
    for (const command of ['stats', 'verify', 'inspect', 'repair']) {
      const r = replay(command, '--data-dir', missing);
      expect(r.code, r.err).to.equal(2);
      expect(r.out).to.equal('');
      expect(r.err).to.equal(`replay: no data directory at ${missing}; check --data-dir (default: $SERVICE_DATA_DIR, else ./data)\n`);
      expect(existsSync(missing)).to.equal(false);
    }
    const fromEnv = runToolProcess('replay', ['stats'], { SERVICE_DATA_DIR: missing });
    expect(fromEnv.code).to.equal(2);
    expect(fromEnv.err).to.include(missing);

    const empty = tempDir();
    try {
      const r = replay('verify', '--data-dir', empty.path);
      expect(r.code).to.equal(2);
      expect(r.err).to.equal(`replay: ${empty.path} holds no database (no data.mdb in it); check --data-dir\n`);
      expect(readdirSync(empty.path)).to.deep.equal([]);
      const file = join(empty.path, 'a-file');
      writeFileSync(file, 'not a directory');
      const f = replay('stats', '--data-dir', file);
      expect(f.code).to.equal(2);
      expect(f.err).to.match(/a-file is not a directory/);
    } finally {
      empty.remove();
    }
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

  it('verifies and rebuilds a log holding UUID ids, keeping them in the export files', async () => {
    const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const engine = new Engine(LmdbLog.open(dir.path), { snapshots: new SnapshotFiles(join(dir.path, 'snapshots')), logRetention: 1000 });
    engine.replay();
    await engine.submit({ type: 'upsert_points', collection: 'h', points: [{ id: uuid, vector: Float32Array.of(5, 5), payload: {}, labels: [] }] });
    await engine.submit({ type: 'upsert_edge', collection: 'h', from: uuid, to: 3, relation: 'U', weight: 2 });
    await engine.log.close();
    const v = replay('verify', '--data-dir', dir.path);
    expect(v.code, v.out + v.err).to.equal(0);
    const out = join(dir.path, 'out');
    const r = replay('rebuild', '--data-dir', dir.path, '--until', '15', '--out', out);
    expect(r.code, r.err).to.equal(0);
    const reader = new ImportReader();
    reader.feed(readFileSync(join(out, 'h.vgdb')));
    const file = reader.finish();
    expect(file.points.map((p) => p.id)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, uuid]);
    expect(file.edges.map((e) => [e.from, e.to, e.relation])).to.deep.equal([[1, 2, 'R'], [uuid, 3, 'U']]);
  });

  it('serves the state as of an operation read-only over the HTTP API, until SIGTERM', async () => {
    const main = fileURLToPath(new URL('../../tools/replay/main.js', import.meta.url));
    const child = spawn(process.execPath, [main, 'serve', '--data-dir', dir.path, '--until', '4', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const m = /read-only on (http:\/\/[\d.]+:\d+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
      });
      expect(out).to.match(/^serving the state right after operation 4 \(4 log entries replayed\)/);
      const scroll = (await (await fetch(`${url}/collections/h/points/scroll`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { result: { points: { id: number }[] } };
      expect(scroll.result.points.map((p) => p.id)).to.deep.equal([0, 1, 2]);
      const write = await fetch(`${url}/collections/h/points`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ points: [{ id: 99, vector: [1, 1] }] }) });
      expect(write.status).to.equal(403);
      expect(((await write.json()) as { message: string }).message).to.match(/^read-only: this server \(npm run replay -- serve\) shows the state right after operation 4/);
      const cypher = await fetch(`${url}/collections/h/graph/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'CREATE (n:X)' }) });
      expect(cypher.status, 'a Cypher write is refused too').to.equal(403);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
    } finally {
      child.kill('SIGKILL');
    }
    expect(replay('stats', '--data-dir', dir.path).out, 'serving wrote nothing').to.match(/operations 1\.\.13: 13 entries/);
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
