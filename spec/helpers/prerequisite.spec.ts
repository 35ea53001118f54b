import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { commandOnPath, inCi } from './prerequisite.js';
import { tempDir } from './temp-dir.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const helper = join(repo, 'dist/spec/helpers/prerequisite.js');
const mocha = join(repo, 'node_modules/mocha/bin/mocha.js');

/** Runs mocha, as `npm test` does, on a suite that needs something this machine lacks. */
function runSuiteMissingSomething(ci: string | undefined): { status: number | null; out: string } {
  const dir = tempDir('vgdb-prereq-');
  try {
    const spec = join(dir.path, 'needs.spec.mjs');
    writeFileSync(
      spec,
      `import { requirePrerequisite } from ${JSON.stringify(pathToFileURL(helper).href)};
describe('a suite with a missing prerequisite', function () {
  requirePrerequisite({ what: 'the frobnicator', present: () => false, install: 'apt-get install -y frobnicator' });
  before(() => { throw new Error('a later hook must not run'); });
  it('first', () => {});
  it('second', () => {});
});
describe('a suite without one', () => { it('runs', () => {}); });
`,
    );
    const env = { ...process.env };
    delete env.CI;
    if (ci !== undefined) env.CI = ci;
    const r = spawnSync(process.execPath, [mocha, '--no-config', '--require', helper, spec], { encoding: 'utf8', env });
    return { status: r.status, out: r.stdout + r.stderr };
  } finally {
    dir.remove();
  }
}

describe('spec/helpers/prerequisite', function () {
  this.timeout(60_000);

  it('skips a suite whose prerequisite is missing: a notice naming the install command, counted as pending, recapped at the end', () => {
    const { status, out } = runSuiteMissingSomething(undefined);
    expect(status, out).to.equal(0);
    expect(out).to.include('SKIPPED 2 test(s): the frobnicator is missing; to run them: apt-get install -y frobnicator');
    expect(out).to.match(/1 passing/);
    expect(out).to.match(/2 pending/);
    expect(out).to.match(/2 test\(s\) SKIPPED: this machine lacks what they need[^\n]*\n\s+- a suite with a missing prerequisite \(2\): the frobnicator is missing/);
  });

  it('fails the suite instead when CI is set', () => {
    const { status, out } = runSuiteMissingSomething('true');
    expect(status, out).to.not.equal(0);
    expect(out).to.match(/1 failing/);
    expect(out).to.include('the frobnicator is missing, and CI is set, so these tests are required: apt-get install -y frobnicator');
    expect(out).not.to.match(/pending/);
  });

  it('reads CI as set unless it is empty, 0 or false, and finds commands on PATH', () => {
    expect([undefined, '', '0', 'false', 'FALSE', 'true', '1', 'yes'].map((CI) => inCi({ CI }))).to.deep.equal([false, false, false, false, false, true, true, true]);
    expect(commandOnPath('node', { PATH: dirname(process.execPath) })).to.equal(true);
    expect(commandOnPath('node', { PATH: '' })).to.equal(false);
  });
});
