import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { runCrashTest } from '../../tools/crash-test/run.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runToolProcess } from './tool-process.js';

describe('tools/crash-test (a short run)', function () {
  this.timeout(120_000);

  it('loses no acknowledged write over SIGKILL cycles, half-applies nothing, refuses poison inputs changing nothing, and catches a damaged tail and a data file cut short', async () => {
    const dir = tempDir('vgdb-crash-');
    try {
      const report = await runCrashTest(dir.path, 3);
      expect(report.problems).to.deep.equal([]);
      expect(report.lost).to.equal(0);
      expect(report.acknowledged, 'each kill waits for 20 acknowledged writes').to.be.at.least(60);
      expect(report.poisonsRefused, 'the poisoner sent poison between its good writes').to.be.at.least(1);
    } finally {
      dir.remove();
    }
  });

  it('as a command: cycle lines and the summary on stdout, progress lines on stderr, its temp dir removed', () => {
    const tmp = tempDir('vgdb-crash-cli-');
    try {
      const r = runToolProcess('crash-test', ['--cycles', '1'], { TMPDIR: tmp.path });
      expect(r.code, r.out + r.err).to.equal(0);
      const out = r.out.split('\n');
      expect(out[0]).to.match(/^cycle 1: \d+ points, \d+ edges, \d+ in flight at the kill, 0 lost$/);
      expect(r.out).to.match(/\ncycles 1, writes acknowledged \d+, writes lost 0, poison inputs refused [1-9]\d*, problems 0\n$/);
      expect(r.out).not.to.match(/%/);
      expect(r.err.trimEnd().split('\n')).to.deep.equal(['crash-test: 0% (0/1 cycles)', 'crash-test: 100% (1/1 cycles)']);
      expect(readdirSync(tmp.path)).to.deep.equal([]);
    } finally {
      tmp.remove();
    }
  });
});
