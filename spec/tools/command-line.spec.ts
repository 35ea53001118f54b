import { expect } from 'chai';
import { runToolProcess, type ToolRun } from './tool-process.js';

interface ToolCase {
  tool: string;
  /** Flags the usage text must name. */
  flags: string[];
  /** Arguments with a bad value, and what the one line must say. */
  badValues: { args: string[]; says: RegExp }[];
}

const TOOLS: ToolCase[] = [
  {
    tool: 'replay',
    flags: ['inspect', 'verify', 'rebuild', 'stats', 'repair', '--data-dir', '--from', '--to', '--collection', '--until', '--out', '--yes'],
    badValues: [
      { args: ['inspect', '--from', 'x'], says: /--from must be an operation_id/ },
      { args: ['rebuild', '--until', '-4', '--out', 'o'], says: /--until must be an operation_id .* got "-4"/ },
      { args: ['bogus'], says: /unknown command "bogus": expected one of inspect, verify, rebuild, serve, stats, repair/ },
      { args: [], says: /missing command/ },
      { args: ['verify', '--yes'], says: /--yes does not apply to verify/ },
      { args: ['inspect', '--to'], says: /--to needs a value: an operation_id/ },
      { args: ['stats', '--data_dir', '/x'], says: /unknown flag --data_dir \(did you mean --data-dir\?\)/ },
    ],
  },
  {
    tool: 'crash-test',
    flags: ['--cycles', '--replication'],
    badValues: [
      { args: ['--cycles', 'many'], says: /--cycles must be a whole number from 1 to 100000, got "many"/ },
      { args: ['--cycles', '0'], says: /--cycles must be .* got "0"/ },
      { args: ['--cycles'], says: /--cycles needs a value/ },
    ],
  },
  {
    tool: 'load',
    flags: ['--seconds', '--writers', '--readers'],
    badValues: [
      { args: ['--seconds', '1.5'], says: /--seconds must be a whole number from 1 to 86400, got "1.5"/ },
      { args: ['--writers', '--readers', '2'], says: /--writers needs a value/ },
      { args: ['--readers', '100000'], says: /--readers must be a whole number from 0 to 1000/ },
    ],
  },
  {
    tool: 'bench',
    flags: ['--points', '--queries', '--only'],
    badValues: [
      { args: ['--points', '1e5'], says: /--points must be a whole number from 10 to 10000000, got "1e5"/ },
      { args: ['--only', 'everything'], says: /--only must be one of ann, filtered, quantization, http, workers, graph, cypher-load, browser, durability, console, replication, scale, got "everything"/ },
      { args: ['--queries='], says: /--queries needs a value/ },
    ],
  },
  {
    tool: 'scale-demo',
    flags: ['--dir', '--points', '--dim', '--snapshot'],
    badValues: [
      { args: ['write'], says: /write needs --dir DIR/ },
      { args: ['write', '--dir', '/x', '--points', '0'], says: /--points must be a whole number from 1 to 100,000,000, got "0"/ },
      { args: ['grow'], says: /unknown command "grow": expected one of write, restart/ },
    ],
  },
  {
    tool: 'build-browser',
    flags: ['--help'],
    badValues: [{ args: ['dist/elsewhere'], says: /unexpected argument "dist\/elsewhere"/ }],
  },
  {
    tool: 'build-console',
    flags: ['--help'],
    badValues: [{ args: ['dist/elsewhere'], says: /unexpected argument "dist\/elsewhere"/ }],
  },
];

function expectOneLineRefusal(r: ToolRun, tool: string, says: RegExp): void {
  expect(r.code, r.err).to.equal(2);
  expect(r.out).to.equal('');
  const lines = r.err.split('\n');
  expect(lines, r.err).to.have.length(2);
  expect(lines[1]).to.equal('');
  expect(lines[0]).to.match(new RegExp(`^${tool}: `));
  expect(lines[0]).to.match(says);
  expect(lines[0]).to.match(/run with --help for usage$/);
  expect(r.err).not.to.match(/\n\s+at /);
}

describe('tools: --help and bad command lines', function () {
  this.timeout(60_000);

  for (const { tool, flags, badValues } of TOOLS) {
    describe(tool, () => {
      it('answers --help and -h with its usage on stdout, naming its flags, exit 0', () => {
        for (const help of ['--help', '-h']) {
          const r = runToolProcess(tool, [help]);
          expect(r.code, r.err).to.equal(0);
          expect(r.err).to.equal('');
          expect(r.out).to.match(/^usage: npm run /);
          for (const flag of flags) expect(r.out, `usage names ${flag}`).to.include(flag);
        }
      });

      it('refuses an unknown flag in one line naming it, exit 2', () => {
        expectOneLineRefusal(runToolProcess(tool, ['--bogus-flag', '3']), tool, /unknown flag --bogus-flag/);
        expectOneLineRefusal(runToolProcess(tool, ['-x']), tool, /unknown flag -x/);
      });

      it('refuses a bad, missing or unexpected value in one line saying what is expected, exit 2', () => {
        for (const { args, says } of badValues) expectOneLineRefusal(runToolProcess(tool, args), tool, says);
      });
    });
  }

  it('--help wins over a bad flag next to it', () => {
    const r = runToolProcess('bench', ['--points', 'abc', '--help']);
    expect(r.code).to.equal(0);
    expect(r.out).to.match(/^usage: npm run bench/);
  });
});
