import { expect } from 'chai';
import { oneOf, readCommandLine, switchFlag, text, UsageError, wantsHelp, wholeNumber } from '../../tools/lib/args.js';

const SPEC = {
  name: 't',
  usage: 'usage: t',
  flags: {
    dir: text('a directory', './data'),
    from: wholeNumber({ min: 0 }, 1),
    until: wholeNumber({ min: 0 }),
    mode: oneOf(['fast', 'slow'] as const),
    yes: switchFlag,
  },
  commands: { show: ['dir', 'from', 'mode'], fix: ['dir', 'until', 'yes'] },
} as const;

const refusal = (args: string[]): string => {
  try {
    readCommandLine(SPEC, args);
  } catch (err) {
    expect(err).to.be.instanceOf(UsageError);
    return (err as Error).message;
  }
  return expect.fail(`${args.join(' ')} was accepted`);
};

describe('tools/lib/args', () => {
  it('reads a sub-command, typed values and defaults', () => {
    expect(readCommandLine(SPEC, ['show', '--from', '7', '--mode=slow'])).to.deep.equal({ command: 'show', values: { dir: './data', from: 7, until: undefined, mode: 'slow', yes: false } });
    expect(readCommandLine(SPEC, ['--yes', 'fix', '--until', '0', '--dir', '/x'])).to.deep.equal({ command: 'fix', values: { dir: '/x', from: 1, until: 0, mode: undefined, yes: true } });
  });

  it('refuses unknown flags, missing values, bad numbers and choices, naming the flag and what it expects', () => {
    expect(refusal(['show', '--nope'])).to.equal('unknown flag --nope');
    expect(refusal(['show', '-n'])).to.equal('unknown flag -n');
    expect(refusal(['show', '--form', '3'])).to.equal('unknown flag --form (did you mean --from?)');
    expect(refusal(['show', '--Dir=x'])).to.equal('unknown flag --Dir (did you mean --dir?)');
    expect(refusal(['fix', '--untill', '3'])).to.equal('unknown flag --untill (did you mean --until?)');
    expect(refusal(['show', '--from'])).to.equal('--from needs a value: a whole number ≥ 0');
    expect(refusal(['show', '--from', '--mode', 'fast'])).to.equal('--from needs a value: a whole number ≥ 0');
    expect(refusal(['show', '--dir='])).to.equal('--dir needs a value: a directory');
    expect(refusal(['show', '--from', '-1'])).to.equal('--from must be a whole number ≥ 0, got "-1"');
    expect(refusal(['show', '--from', '2.5'])).to.equal('--from must be a whole number ≥ 0, got "2.5"');
    expect(refusal(['show', '--from', '99999999999999999999'])).to.match(/--from must be a whole number/);
    expect(refusal(['show', '--mode', 'medium'])).to.equal('--mode must be one of fast, slow, got "medium"');
    expect(refusal(['fix', '--yes=no'])).to.equal('--yes takes no value');
  });

  it('refuses a missing or unknown sub-command, stray arguments and flags the sub-command does not take', () => {
    expect(refusal([])).to.equal('missing command: one of show, fix');
    expect(refusal(['shw'])).to.equal('unknown command "shw": expected one of show, fix (did you mean show?)');
    expect(refusal(['display'])).to.equal('unknown command "display": expected one of show, fix');
    expect(refusal(['toString'])).to.match(/unknown command "toString"/);
    expect(refusal(['show', 'extra'])).to.equal('unexpected argument "extra"');
    expect(refusal(['show', '--yes'])).to.equal('--yes does not apply to show (it takes --dir, --from, --mode)');
    expect(refusal(['show', '--', '--from'])).to.equal('unexpected argument "--from"');
  });

  it('takes no arguments at all without sub-commands', () => {
    const bare = { name: 'b', usage: '', flags: { n: wholeNumber({ min: 1, max: 3 }, 2) } };
    expect(readCommandLine(bare, []).values.n).to.equal(2);
    expect(() => readCommandLine(bare, ['x'])).to.throw(UsageError, 'unexpected argument "x"');
    expect(() => readCommandLine(bare, ['--n', '4'])).to.throw(UsageError, '--n must be a whole number from 1 to 3, got "4"');
  });

  it('sees --help and -h anywhere before --', () => {
    expect(wantsHelp(['show', '--from', '3', '-h'])).to.equal(true);
    expect(wantsHelp(['--help'])).to.equal(true);
    expect(wantsHelp(['show', '--', '--help'])).to.equal(false);
    expect(wantsHelp(['show'])).to.equal(false);
  });
});
