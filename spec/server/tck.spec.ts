import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useTestServer } from '../helpers/http.js';
import { requirePrerequisite } from '../helpers/prerequisite.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const runner = resolve(process.env.TCK_RUNNER ?? resolve(repo, '../shared/tck/run-tck.mjs'));
const record = JSON.parse(readFileSync(resolve(repo, 'spec/server/tck-record.json'), 'utf8')) as { suite: string; passed: number; strict: { passed: number } };

/** Runs the TCK runner against the server; answers its output. */
function runTck(url: string, args: string[] = ['--suite', record.suite]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [runner, '--url', url, ...args, '--jobs', '4'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', fail);
    child.on('close', () => done(out));
  });
}

describe('server: openCypher TCK selection (../shared/tck)', function () {
  this.timeout(600_000);
  requirePrerequisite({ what: `the openCypher TCK runner at ${runner}`, present: () => existsSync(runner), install: 'put the shared/ directory (with tck/) beside the checkout, or set TCK_RUNNER=/path/to/run-tck.mjs' });
  const s = useTestServer();

  it(`passes at least the recorded ${record.passed} scenarios`, async () => {
    const out = await runTck(s.url);
    const summary = /^(\d+) passed, (\d+) failed/m.exec(out);
    expect(summary, `the runner printed no summary:\n${out.slice(-2000)}`).to.not.equal(null);
    console.log(`      tck: ${summary![0]}`);
    const failures = out.split('\n').filter((l) => l.startsWith('FAIL '));
    expect(Number(summary![1]), `fewer scenarios pass than recorded in spec/server/tck-record.json:\n${failures.slice(0, 20).join('\n')}`).to.be.at.least(record.passed);
  });

  it(`passes at least the recorded ${record.strict.passed} scenarios of the full TCK with --strict-numbers --strict-errors`, async () => {
    const out = await runTck(s.url, ['--suite', 'full', '--strict-numbers', '--strict-errors']);
    const summary = /^(\d+) passed, (\d+) failed/m.exec(out);
    expect(summary, `the runner printed no summary:\n${out.slice(-2000)}`).to.not.equal(null);
    console.log(`      tck full, strict: ${summary![0]}`);
    const failures = out.split('\n').filter((l) => l.startsWith('FAIL '));
    expect(Number(summary![1]), `fewer scenarios pass than recorded in spec/server/tck-record.json:\n${failures.slice(0, 20).join('\n')}`).to.be.at.least(record.strict.passed);
  });
});
