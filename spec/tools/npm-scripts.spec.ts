import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { call } from '../helpers/http.js';
import { commandLine, environmentOf, isAlive, listeningPorts, processTree } from '../helpers/process-tree.js';
import { tempDir } from '../helpers/temp-dir.js';
import { freePort } from '../../tools/lib/child-processes.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface NpmRun {
  child: ChildProcess;
  output(): string;
  /** How npm ended: its exit code, or the signal it died of (an orphan may still hold its output open). */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** npm's output is complete. */
  closed: Promise<void>;
}

/** Every process a test saw under npm, so a failed test leaves none behind. */
const seen = new Set<number>();

function killLeftovers(): void {
  for (const pid of seen) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  seen.clear();
}

/** Notes `root`'s whole tree as it is now, and answers it. */
function noteTree(root: number): number[] {
  const tree = processTree(root);
  for (const pid of tree) seen.add(pid);
  return tree;
}

function npm(args: string[], cwd: string, env: Record<string, string> = {}): NpmRun {
  const child = spawn('npm', args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  seen.add(child.pid!);
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const closed = new Promise<void>((done) => child.once('close', () => done()));
  return { child, output: () => out, ended, closed };
}

/** Asks `check` again every 100 ms until it answers something; the suite's timeout bounds the wait. */
async function until<T>(run: NpmRun, what: string, check: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    if (run.child.exitCode !== null || run.child.signalCode !== null) throw new Error(`npm ended before ${what}:\n${run.output()}`);
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

async function answers(url: string, path: string): Promise<number | undefined> {
  try {
    return (await call(url, 'GET', path)).status;
  } catch {
    return undefined;
  }
}

describe('npm scripts: signals sent to npm stop the whole process tree cleanly (Linux /proc)', function () {
  this.timeout(300_000);
  afterEach(killLeftovers);

  it('SIGTERM to `npm start` shuts the server down: tree gone, port free, data dir unlocked, shutdown snapshot written', async () => {
    const data = tempDir('vgdb-npm-start-');
    try {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const run = npm(['start'], repo, { SERVICE_DATA_DIR: data.path, SERVICE_PORT: String(port), SERVICE_QDRANT_PORT: '0', SERVICE_QDRANT_GRPC_PORT: '0', SERVICE_BOLT_PORT: '0', SERVICE_HOST: '127.0.0.1', SERVICE_LOG_LEVEL: 'warn' });
      await until(run, 'the server was ready', async () => {
        noteTree(run.child.pid!);
        return (await answers(url, '/readyz')) === 200 ? true : undefined;
      });
      expect((await call(url, 'PUT', '/collections/c', { vectors: { size: 2, distance: 'Dot' } })).status).to.equal(200);
      const written = await call(url, 'PUT', '/collections/c/points', { points: [{ id: 1, vector: [1, 2] }] });
      expect(written.status).to.equal(200);
      const tree = noteTree(run.child.pid!);
      expect(tree.map(commandLine).some((c) => c.includes('dist/server/main.js')), `the server runs under npm: ${tree.map(commandLine).join(' | ')}`).to.equal(true);

      run.child.kill('SIGTERM');
      expect(await run.ended, run.output()).to.deep.equal({ code: 0, signal: null });
      expect(tree.filter(isAlive), 'processes of the tree still running').to.deep.equal([]);
      expect(await portIsFree(port), 'the port is free again').to.equal(true);
      const reopened = LmdbLog.open(data.path);
      await reopened.close();
      expect(new SnapshotFiles(join(data.path, 'snapshots')).list(), 'the shutdown snapshot holds the last write').to.deep.equal([written.body.result.operation_id]);
    } finally {
      data.remove();
    }
  });

  it('SIGINT to `npm run load` stops the tool and the server it started, which shuts down cleanly', async () => {
    const run = npm(['run', 'load', '--', '--seconds', '600'], repo);
    const server = await until(run, 'the load tool was writing to its server', async () => {
      const pid = noteTree(run.child.pid!).find((p) => commandLine(p).includes('dist/server/main.js'));
      if (pid === undefined) return undefined;
      // The server listens on several ports (HTTP, the Qdrant dialect, Bolt): any HTTP one will do.
      for (const port of listeningPorts(pid)) {
        if ((await answers(`http://127.0.0.1:${port}`, '/collections/load')) === 200) return { pid, port, dataDir: environmentOf(pid).SERVICE_DATA_DIR! };
      }
      return undefined;
    });
    const tree = noteTree(run.child.pid!);
    try {
      run.child.kill('SIGINT');
      const ended = await run.ended;
      expect(ended.code === 0, `npm must not report success for an interrupted run: ${JSON.stringify(ended)}`).to.equal(false);
      expect(tree.filter(isAlive), 'processes of the tree still running').to.deep.equal([]);
      expect(await portIsFree(server.port), "the server's port is free again").to.equal(true);
      expect(new SnapshotFiles(join(server.dataDir, 'snapshots')).list(), 'the server wrote its shutdown snapshot').to.have.length(1);
    } finally {
      rmSync(server.dataDir, { recursive: true, force: true });
    }
  });
});

describe('npm scripts: build only when a source changed', function () {
  this.timeout(300_000);
  afterEach(killLeftovers);

  it('builds a fresh checkout, leaves dist/ untouched when nothing changed, and rebuilds a changed source', async () => {
    const clone = tempDir('vgdb-clone-');
    try {
      for (const entry of readdirSync(repo).filter((e) => !['.git', 'dist', 'node_modules', 'data'].includes(e))) cpSync(join(repo, entry), join(clone.path, entry), { recursive: true });
      symlinkSync(join(repo, 'node_modules'), join(clone.path, 'node_modules'));
      const build = async (): Promise<string> => {
        const run = npm(['run', 'build', '--', '--verbose'], clone.path);
        await run.closed;
        expect(await run.ended, run.output()).to.deep.equal({ code: 0, signal: null });
        return run.output();
      };
      const main = join(clone.path, 'dist/server/main.js');
      const config = join(clone.path, 'dist/server/config.js');

      expect(await build()).to.match(/out of date because output file .* does not exist/);
      expect(existsSync(main), 'a fresh checkout is built').to.equal(true);
      const builtAt = [statSync(main).mtimeMs, statSync(config).mtimeMs];

      expect(await build()).to.match(/is up to date/);
      expect([statSync(main).mtimeMs, statSync(config).mtimeMs], 'nothing was written').to.deep.equal(builtAt);

      appendFileSync(join(clone.path, 'server/config.ts'), "\nexport const changedSinceTheBuild = 'yes';\n");
      expect(await build()).to.match(/out of date because .*server\/config\.ts/);
      expect(readFileSync(config, 'utf8')).to.include('changedSinceTheBuild');
    } finally {
      clone.remove();
    }
  });
});
