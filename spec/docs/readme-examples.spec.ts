import { expect } from 'chai';
import { copyFileSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBrowser } from '../../tools/build-browser/main.js';
import { startTestServer, type TestServer } from '../helpers/http.js';
import { commandOnPath, requirePrerequisite } from '../helpers/prerequisite.js';
import { tempDir } from '../helpers/temp-dir.js';
import { outputMismatch } from './output-match.js';
import { readmeExamples } from './readme-examples.js';
import { runExample } from './run-example.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const examples = readmeExamples(readFileSync(join(repo, 'README.md'), 'utf8'));

// Floors, so that a broken parser or a README stripped of examples cannot pass by running none.
const MIN_RUN = 12;
const MIN_OUTPUTS = 8;

function titleOf(line: number, language: string, code: string): string {
  const first = code.split('\n').find((l) => l.trim() !== '' && !l.trim().startsWith('//')) ?? '';
  return `line ${line} (${language}): ${first.trim().slice(0, 80)}`;
}

/**
 * Runs README.md's examples in order, each one step that may build on the steps before it,
 * against one real server on a random loopback port. The shell steps share a temp dir as their
 * working directory (the quick start's export file lands there); JavaScript steps run beside
 * the browser bundle and can import the installed packages.
 */
describe('README examples, run in order against a real server', function () {
  let server: TestServer | null = null;
  let work: { path: string; remove(): void } | null = null;
  let ran = 0;
  let compared = 0;

  requirePrerequisite({ what: 'the curl command (the README examples use it)', present: () => commandOnPath('curl'), install: 'apt-get install -y curl (as root; .ci/run does it)' });
  before(async function () {
    this.timeout(180_000);
    work = tempDir('vgdb-readme-');
    const bundle = await buildBrowser();
    copyFileSync(join(bundle, 'vectorgraphdb.js'), join(work.path, 'vectorgraphdb.js'));
    symlinkSync(join(repo, 'node_modules'), join(work.path, 'node_modules'), 'dir');
    server = await startTestServer();
  });

  after(async () => {
    await server?.stop();
    server?.remove();
    work?.remove();
  });

  examples.forEach((example, step) => {
    const title = titleOf(example.line, example.language, example.code);
    if (example.notRun !== null) {
      it.skip(`${title} [not run: ${example.notRun}]`);
      return;
    }
    it(title, async () => {
      const result = await runExample(example, step, work!.path, server!.url, server!.service.qdrantUrl, server!.service.boltUrl, server!.service.qdrantGrpcUrl);
      expect(result.code, `exit status of README line ${example.line}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`).to.equal(0);
      expect(result.curlFailures, `curl commands of README line ${example.line} without a 2xx`).to.deep.equal([]);
      if (example.output) {
        const mismatch = outputMismatch(example.output, result.stdout);
        if (mismatch) expect.fail(`the output shown at README line ${example.output.line} differs: ${mismatch}`);
        compared++;
      }
      ran++;
    });
  });

  it(`ran at least ${MIN_RUN} examples and checked at least ${MIN_OUTPUTS} shown outputs`, () => {
    expect(ran, 'examples that ran and passed').to.be.at.least(MIN_RUN);
    expect(compared, 'shown outputs that matched').to.be.at.least(MIN_OUTPUTS);
  });
});
