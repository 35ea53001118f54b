import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { Writable } from 'node:stream';
import { LogOutput } from '../../server/log-output.js';
import { createLogger } from '../../server/logger.js';
import { exited, spawnServer, type ChildServer } from '../helpers/child-server.js';
import { call } from '../helpers/http.js';
import { scrape } from '../helpers/prometheus.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A writable whose writes complete only when the test says so: a stdout nobody reads. */
function heldStream(highWaterMark = 256): { stream: Writable; written: string[]; release(): void; drain(): Promise<void> } {
  const written: string[] = [];
  const held: (() => void)[] = [];
  const stream = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      held.push(done);
    },
  });
  const release = (): void => {
    while (held.length) held.shift()!();
  };
  /** Lets the reader take everything buffered, as a reader that wakes up would. */
  const drain = async (): Promise<void> => {
    while (stream.writableLength > 0) {
      release();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { stream, written, release, drain };
}

/** Requests that each log a line: 404s with a long path, and 400s. */
async function loggedRequests(url: string, count: number, pathLength: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const path = i % 2 ? `/${'n'.repeat(pathLength)}-${i}` : '/collections/c';
    statuses.push((await call(url, 'PUT', path, i % 2 ? undefined : '{"vectors": nope')).status);
  }
  return statuses;
}

describe('server: log output never blocks or stops the service', () => {
  describe('LogOutput', () => {
    it('drops and counts lines past its buffer while the reader is stuck, then reports them once it drains', async () => {
      const { stream, written, release } = heldStream();
      const output = LogOutput.stream(stream, 2000);
      const logger = createLogger('info', output);
      for (let i = 0; i < 50; i++) logger.info({ i }, 'x'.repeat(100));
      expect(stream.writableLength).to.be.at.most(2000);
      expect(output.dropped).to.be.greaterThan(30);
      const taken = 50 - output.dropped;

      const notices = (): string[] => written.filter((line) => line.includes('droppedLines'));
      while (notices().length === 0) {
        release();
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(notices()).to.have.length(1);
      expect(JSON.parse(notices()[0]!)).to.include({ level: 40, droppedLines: output.dropped });
      expect(written.filter((l) => /"i":\d+/.test(l))).to.have.length(taken);

      logger.info('after');
      expect(written.at(-1)).to.include('"msg":"after"');
      expect(output.dropped).to.equal(50 - taken);
    });

    it('also notices a drained buffer at the next line when it is smaller than the stream buffers (no drain event)', async () => {
      const { stream, written, drain } = heldStream(1 << 16);
      const output = LogOutput.stream(stream, 2000);
      const logger = createLogger('info', output);
      for (let i = 0; i < 50; i++) logger.info('x'.repeat(100));
      const dropped = output.dropped;
      expect(dropped).to.be.greaterThan(30);
      await drain();
      expect(written.some((l) => l.includes('droppedLines'))).to.equal(false);
      logger.info('after');
      await drain();
      const [line, notice] = written.slice(-2).map((l) => JSON.parse(l) as { msg: string; droppedLines?: number });
      expect(line!.msg).to.equal('after');
      expect(notice!.droppedLines).to.equal(dropped);
    });

    it('in batches: lines go out together in one write after the batch time, in order, and the drop count includes lines still waiting', async () => {
      const { stream, written, release } = heldStream(1 << 16);
      const output = LogOutput.stream(stream, 1 << 20, 20);
      const logger = createLogger('info', output);
      for (let i = 0; i < 5; i++) logger.info({ i }, 'batched');
      expect(written).to.have.length(0);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(written).to.have.length(1);
      expect(written[0]!.trimEnd().split('\n').map((l) => (JSON.parse(l) as { i: number }).i)).to.deep.equal([0, 1, 2, 3, 4]);
      release();

      stream.destroy(new Error('EPIPE'));
      logger.info('lost');
      logger.info('lost too');
      expect(output.dropped).to.equal(2);
    });

    it('in batches: the lines still waiting are written when the process exits, also by process.exit after a fatal line', async () => {
      const module = new URL('../../server/log-output.js', import.meta.url).href;
      const logger = new URL('../../server/logger.js', import.meta.url).href;
      const script = `const { LogOutput } = await import(${JSON.stringify(module)}); const { createLogger } = await import(${JSON.stringify(logger)});
        const log = createLogger('info', LogOutput.stdout()); log.info('first'); log.fatal('last words'); process.exit(3);`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      expect(await exited(child)).to.equal(3);
      expect(out.trimEnd().split('\n').map((l) => (JSON.parse(l) as { msg: string }).msg)).to.deep.equal(['first', 'last words']);
    });

    it('drops lines without throwing once the stream has failed', () => {
      const { stream } = heldStream();
      const output = LogOutput.stream(stream);
      stream.destroy(new Error('EPIPE'));
      const logger = createLogger('info', output);
      expect(() => logger.error('lost')).not.to.throw();
      expect(output.dropped).to.equal(1);
    });
  });

  describe('the real server', () => {
    const dir = tempDir();
    let server: ChildServer | null = null;
    afterEach(async () => {
      if (server && server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGKILL');
        await exited(server.child);
      }
      server = null;
    });
    after(() => dir.remove());

    it('with stdout on /dev/full: answers, counts the lost lines, and ends with 0 on SIGTERM', async () => {
      const full = openSync('/dev/full', 'w');
      try {
        server = await spawnServer(dir.path, {}, { stdout: full });
      } finally {
        closeSync(full);
      }
      const statuses = await loggedRequests(server.url, 40, 100);
      expect(new Set(statuses)).to.deep.equal(new Set([400, 404]));
      expect((await call(server.url, 'GET', '/healthz')).status).to.equal(200);
      expect((await call(server.url, 'GET', '/readyz')).status).to.equal(200);
      expect((await scrape(server.url)).value('vgdb_log_lines_dropped_total')).to.be.at.least(40);
      server.child.kill('SIGTERM');
      expect(await exited(server.child)).to.equal(0);
    });

    it('with stdout a pipe nobody reads: keeps answering, drops lines, reports them once read again, ends with 0 on SIGTERM', async () => {
      server = await spawnServer(dir.path);
      const stdout = server.child.stdout!;
      stdout.pause();
      const statuses = await loggedRequests(server.url, 300, 7000);
      expect(new Set(statuses)).to.deep.equal(new Set([400, 404]));
      expect((await call(server.url, 'GET', '/healthz')).status).to.equal(200);
      expect((await scrape(server.url)).value('vgdb_log_lines_dropped_total')).to.be.greaterThan(0);

      let read = '';
      const notice = new Promise<{ droppedLines: number }>((resolve) => {
        stdout.on('data', (chunk: Buffer) => {
          read += chunk.toString();
          const line = read.split('\n').find((l) => l.includes('"droppedLines"'));
          if (line) resolve(JSON.parse(line) as { droppedLines: number });
        });
      });
      stdout.resume();
      const { droppedLines } = await notice;
      expect(droppedLines).to.be.greaterThan(0);
      expect((await scrape(server.url)).value('vgdb_log_lines_dropped_total')).to.equal(droppedLines);

      stdout.pause();
      server.child.kill('SIGTERM');
      expect(await exited(server.child)).to.equal(0);
    });
  });
});
