import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Something a suite needs from the machine rather than from node_modules. */
export interface Prerequisite {
  /** What is needed, as a person would name it: "Chromium at /usr/bin/chromium". */
  what: string;
  /** Whether this machine has it; asked when the suite starts. */
  present(): boolean;
  /** The command (or step) that provides it. */
  install: string;
}

interface Skipped {
  suite: string;
  what: string;
  install: string;
  tests: number;
}

const skipped: Skipped[] = [];

/** CI=true (or any value but "", "0", "false") makes every prerequisite required. */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && !['', '0', 'false'].includes(value);
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function commandOnPath(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && isExecutable(join(dir, name)));
}

/**
 * Registers, as the calling suite's first hook, a check for a prerequisite. When it is missing
 * the suite's tests are skipped with a notice naming the install command (mocha counts them as
 * pending, and the closing recap lists them), except under CI, where the suite fails instead.
 * Call it at the top of a `describe` callback, before the suite's other hooks.
 */
export function requirePrerequisite(prerequisite: Prerequisite): void {
  before(function () {
    if (prerequisite.present()) return;
    if (inCi()) throw new Error(`${prerequisite.what} is missing, and CI is set, so these tests are required: ${prerequisite.install}`);
    const suite = this.test?.parent;
    const tests = suite?.total() ?? 0;
    skipped.push({ suite: suite?.fullTitle() ?? '', what: prerequisite.what, install: prerequisite.install, tests });
    console.log(`    SKIPPED ${tests} test(s): ${prerequisite.what} is missing; to run them: ${prerequisite.install}`);
    this.skip();
  });
}

/** A root hook (loaded through .mocharc.json's "require") that repeats every skip at the end of the run. */
export const mochaHooks = {
  afterAll(): void {
    if (skipped.length === 0) return;
    const total = skipped.reduce((n, s) => n + s.tests, 0);
    console.log(`\n  ${total} test(s) SKIPPED: this machine lacks what they need (with CI set they fail instead):`);
    for (const s of skipped) console.log(`    - ${s.suite} (${s.tests}): ${s.what} is missing; to run them: ${s.install}`);
  },
};
