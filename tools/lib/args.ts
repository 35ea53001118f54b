import { parseArgs } from 'node:util';
import { suggestion } from './suggest.js';

/** A bad command line: the tool prints it as one line with a pointer to --help and exits 2. */
export class UsageError extends Error {}

/** A flag that takes a value; `read` turns its text (undefined when absent) into what the tool uses. */
export interface ValueFlag<T> {
  kind: 'value';
  /** What the value should be, for messages: "a whole number ≥ 1". */
  expects: string;
  read(raw: string | undefined, flag: string): T;
}

export interface SwitchFlag {
  kind: 'switch';
}

export type Flag = ValueFlag<unknown> | SwitchFlag;
export type Flags = Record<string, Flag>;

export type FlagValues<F extends Flags> = { [K in keyof F]: F[K] extends ValueFlag<infer T> ? T : boolean };

export interface ToolSpec<F extends Flags> {
  /** The tool's name, which starts every message it prints. */
  name: string;
  usage: string;
  flags: F;
  /** Sub-commands (the first argument), each with the flags it takes; without it the tool takes no arguments. */
  commands?: Record<string, readonly (keyof F & string)[]>;
}

export interface CommandLine<F extends Flags> {
  command: string;
  values: FlagValues<F>;
}

export const switchFlag: SwitchFlag = { kind: 'switch' };

export function text(expects: string): ValueFlag<string | undefined>;
export function text(expects: string, fallback: string): ValueFlag<string>;
export function text(expects: string, fallback?: string): ValueFlag<string | undefined> {
  return { kind: 'value', expects, read: (raw) => raw ?? fallback };
}

interface NumberRange {
  min?: number;
  max?: number;
  /** Overrides the generated description, e.g. "an operation_id (a whole number ≥ 0)". */
  expects?: string;
}

export function wholeNumber(range: NumberRange): ValueFlag<number | undefined>;
export function wholeNumber(range: NumberRange, fallback: number): ValueFlag<number>;
export function wholeNumber({ min = 0, max = Number.MAX_SAFE_INTEGER, expects }: NumberRange, fallback?: number): ValueFlag<number | undefined> {
  const description = expects ?? (max === Number.MAX_SAFE_INTEGER ? `a whole number ≥ ${min}` : `a whole number from ${min} to ${max}`);
  return {
    kind: 'value',
    expects: description,
    read(raw, flag) {
      if (raw === undefined) return fallback;
      const n = /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`${flag} must be ${description}, got "${raw}"`);
      return n;
    },
  };
}

export function oneOf<C extends string>(choices: readonly C[]): ValueFlag<C | undefined> {
  const description = `one of ${choices.join(', ')}`;
  return {
    kind: 'value',
    expects: description,
    read(raw, flag) {
      if (raw === undefined || (choices as readonly string[]).includes(raw)) return raw as C | undefined;
      throw new UsageError(`${flag} must be ${description}, got "${raw}"`);
    },
  };
}

const isHelp = (arg: string): boolean => arg === '--help' || arg === '-h';

/** True when the arguments ask for help (before any `--`). */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some(isHelp);
}

/** A value that is another flag rather than this flag's value (negative numbers are values). */
const looksLikeFlag = (value: string): boolean => value.startsWith('-') && !/^-\d/.test(value);

/** Reads the arguments against the spec; anything unknown, missing or malformed throws a UsageError naming it. */
export function readCommandLine<F extends Flags>(spec: ToolSpec<F>, args: readonly string[]): CommandLine<F> {
  const options = Object.fromEntries(Object.entries(spec.flags).map(([name, flag]) => [name, { type: flag.kind === 'switch' ? ('boolean' as const) : ('string' as const) }]));
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  const raw = new Map<string, string | true>();
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const flag = spec.flags[token.name];
    if (!flag || token.rawName !== `--${token.name}`) throw new UsageError(`unknown flag ${token.rawName}${suggestion(token.name, Object.keys(spec.flags), '--')}`);
    if (flag.kind === 'switch') {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
      raw.set(token.name, true);
    } else {
      if (token.value === undefined || token.value === '' || (!token.inlineValue && looksLikeFlag(token.value))) throw new UsageError(`${token.rawName} needs a value: ${flag.expects}`);
      raw.set(token.name, token.value);
    }
  }
  const command = readCommand(spec, positionals, [...raw.keys()]);
  const values: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(spec.flags)) {
    const given = raw.get(name);
    values[name] = flag.kind === 'switch' ? given === true : flag.read(given === true ? undefined : given, `--${name}`);
  }
  return { command, values: values as FlagValues<F> };
}

function readCommand<F extends Flags>(spec: ToolSpec<F>, positionals: string[], given: string[]): string {
  const [first, ...extra] = positionals;
  const taken = spec.commands === undefined ? 0 : 1;
  if (positionals.length > taken) throw new UsageError(`unexpected argument "${taken ? extra[0] : first}"`);
  if (spec.commands === undefined) return '';
  const names = Object.keys(spec.commands);
  if (first === undefined) throw new UsageError(`missing command: one of ${names.join(', ')}`);
  const allowed = spec.commands[first];
  if (!Object.hasOwn(spec.commands, first) || !allowed) throw new UsageError(`unknown command "${first}": expected one of ${names.join(', ')}${suggestion(first, names, '')}`);
  const stray = given.find((flag) => !allowed.includes(flag));
  if (stray !== undefined) throw new UsageError(`--${stray} does not apply to ${first} (it takes ${allowed.map((f) => `--${f}`).join(', ') || 'no flags'})`);
  return first;
}
