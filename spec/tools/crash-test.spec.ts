import { expect } from 'chai';
import { runCrashTest } from '../../tools/crash-test/run.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('tools/crash-test (a short run)', function () {
  this.timeout(120_000);

  it('loses no acknowledged write over SIGKILL cycles, half-applies nothing, and catches a damaged tail', async () => {
    const dir = tempDir('vgdb-crash-');
    try {
      const report = await runCrashTest(dir.path, 3);
      expect(report.problems).to.deep.equal([]);
      expect(report.lost).to.equal(0);
      expect(report.acknowledged, 'each kill waits for 20 acknowledged writes').to.be.at.least(60);
    } finally {
      dir.remove();
    }
  });
});
