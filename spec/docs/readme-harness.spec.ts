import { expect } from 'chai';
import { useTestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';
import { jsonMismatch, outputMismatch } from './output-match.js';
import { readmeExamples, type ReadmeExample } from './readme-examples.js';
import { pointAtServer, runExample } from './run-example.js';

const fence = (language: string, body: string): string => '```' + language + '\n' + body + '\n```\n';

describe('README examples harness', () => {
  describe('finding the examples', () => {
    it('takes shell and JavaScript fences in order, with their not-run reasons and shown outputs', () => {
      const markdown = [
        '# Title',
        fence('sh', 'echo one'),
        '<!-- output -->',
        fence('text', 'one'),
        'A diagram:',
        fence('', 'a -> b'),
        fence('json', '{"not": "an example"}'),
        '<!-- not-run: needs a browser -->',
        '',
        fence('bash', 'chromium'),
        '- a list item with an indented block:',
        '  ```js',
        '  console.log(2);',
        '  ```',
        fence('ts', 'const n: number = 3;'),
      ].join('\n');
      const examples = readmeExamples(markdown);
      expect(examples.map((e) => [e.language, e.code, e.notRun])).to.deep.equal([
        ['shell', 'echo one\n', null],
        ['shell', 'chromium\n', 'needs a browser'],
        ['js', 'console.log(2);\n', null],
        ['ts', 'const n: number = 3;\n', null],
      ]);
      expect(examples[0]!.output).to.deep.equal({ kind: 'text', text: 'one\n', line: 7 });
      expect(examples[0]!.line).to.equal(2);
    });

    it('refuses markers that could hide an example or an output', () => {
      const cases: [string, RegExp][] = [
        ['<!-- not-run: -->\n' + fence('sh', 'x'), /not-run needs a reason/],
        ['<!-- not-run because -->\n' + fence('sh', 'x'), /malformed marker/],
        ['<!-- not-run: why -->\n' + fence('sh', 'x') + '<!-- output -->\n' + fence('text', 'x'), /must follow an example that runs/],
        [fence('sh', 'x') + '<!-- output -->\n' + fence('yaml', 'x'), /must be json or text/],
        ['<!-- output -->\nsome prose\n' + fence('sh', 'x'), /not directly before a fence/],
        ['<!-- not-run: why -->\n' + fence('json', '{}'), /not an example/],
        [fence('sh', 'x').slice(0, -4), /never closed/],
      ];
      for (const [markdown, message] of cases) expect(() => readmeExamples(markdown), markdown).to.throw(message);
    });
  });

  describe('comparing shown outputs', () => {
    it('lets the README leave keys out and round fractions', () => {
      expect(jsonMismatch({ status: 'ok', result: [{ id: 3, score: 0.967 }] }, { status: 'ok', result: [{ id: 3, score: 0.96684, payload: {} }], time: 0.01 })).to.equal(null);
    });

    it('catches a wrong value, a missing key, another length, an inexact integer and a wrong type', () => {
      expect(jsonMismatch({ score: 0.967 }, { score: 0.9676 })).to.match(/\$\.score: expected 0.967/);
      expect(jsonMismatch({ a: { b: 1 } }, { a: {} })).to.match(/\$\.a: the key "b" is missing/);
      expect(jsonMismatch({ rows: [[1], [2]] }, { rows: [[1]] })).to.match(/\$\.rows: expected 2 elements/);
      expect(jsonMismatch({ count: 3 }, { count: 3.2 })).to.match(/expected 3, got 3.2/);
      expect(jsonMismatch(['a'], ['b'])).to.match(/\$\[0\]: expected "a", got "b"/);
      expect(jsonMismatch({ ok: true }, { ok: 'true' })).to.match(/expected true/);
      expect(jsonMismatch({ a: 1 }, [1])).to.match(/expected an object/);
    });

    it('compares text line by line and needs one JSON value for a json output', () => {
      expect(outputMismatch({ kind: 'text', text: 'a\nb\n', line: 1 }, 'a  \nb\n')).to.equal(null);
      expect(outputMismatch({ kind: 'text', text: 'a\nb\n', line: 1 }, 'a\nc\n')).to.match(/expected the output/);
      expect(outputMismatch({ kind: 'json', text: '{"a": 1}', line: 1 }, '{"a":1}{"a":1}')).to.match(/did not print one JSON value/);
    });
  });

  describe('running an example', () => {
    const s = useTestServer();
    const example = (language: ReadmeExample['language'], code: string): ReadmeExample => ({ line: 1, language, code, notRun: null, output: null });

    it('points localhost:6333 at the test server and refuses any other use of port 6333', () => {
      expect(pointAtServer('curl localhost:6333/x http://localhost:6333/y', 'http://127.0.0.1:4567')).to.equal('curl 127.0.0.1:4567/x http://127.0.0.1:4567/y');
      expect(() => pointAtServer('curl 127.0.0.1:6333/x', 'http://127.0.0.1:4567')).to.throw(/port 6333/);
    });

    it('fails a shell step when a curl gets an error status or any command fails, and keeps the error body', async () => {
      const dir = tempDir('vgdb-harness-');
      try {
        const missing = await runExample(example('shell', 'curl localhost:6333/collections/nope\necho after\n'), 0, dir.path, s.url);
        expect(missing.code).to.equal(22);
        expect(missing.stdout).to.include('collection \\"nope\\" not found').and.not.include('after');
        expect(missing.curlFailures).to.have.length(1);
        expect(missing.curlFailures[0]).to.match(/^curl .*\/collections\/nope exited with 22$/);
        const hidden = await runExample(example('shell', 'echo "$(curl -sS localhost:6333/collections/nope)"\nbash -c "curl -sS localhost:6333/nope"\n'), 3, dir.path, s.url);
        expect(hidden.curlFailures, 'a curl inside $(…) and in a child bash').to.have.length(2);
        const failing = await runExample(example('shell', 'false | cat\necho after\n'), 1, dir.path, s.url);
        expect(failing.code).to.equal(1);
        const fine = await runExample(example('shell', 'curl localhost:6333/healthz\n'), 2, dir.path, s.url);
        expect([fine.code, fine.stdout, fine.curlFailures]).to.deep.equal([0, '{"status":"ok"}', []]);
      } finally {
        dir.remove();
      }
    });

    it('runs JavaScript and TypeScript as ES modules', async () => {
      const dir = tempDir('vgdb-harness-');
      try {
        const js = await runExample(example('js', "const r = await fetch('http://localhost:6333/healthz');\nconsole.log(r.status);\n"), 0, dir.path, s.url);
        expect([js.code, js.stdout]).to.deep.equal([0, '200\n']);
        const ts = await runExample(example('ts', 'const n: number = 2;\nconsole.log(n + 1);\n'), 1, dir.path, s.url);
        expect([ts.code, ts.stdout]).to.deep.equal([0, '3\n']);
        const thrown = await runExample(example('js', "throw new Error('boom');\n"), 2, dir.path, s.url);
        expect(thrown.code).to.equal(1);
      } finally {
        dir.remove();
      }
    });
  });
});
