import { runtimeError } from './errors.js';
import { float, isNumber, numberOf } from './numbers.js';
import type { FunctionDef } from './functions.js';
import { listBytes, stringBytes } from './sizes.js';
import { typeName, type Value } from './values.js';

/** Cypher's string functions beyond case and trimming: split, substring, replace, left, right, and round with a precision. */

const badArg = (fn: string, v: Value) => runtimeError('TypeError', 'InvalidArgumentType', `${fn}() cannot take a ${typeName(v)}`);

function int(fn: string, v: Value): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badArg(fn, v);
  if (v < 0) throw runtimeError('ArgumentError', 'NegativeIntegerArgument', `${fn}() takes a non-negative length or start, got ${v}`);
  return v;
}

export const STRING_FUNCTIONS: Record<string, FunctionDef> = {
  split: {
    minArgs: 2,
    maxArgs: 2,
    call: ([s, sep], ctx) => {
      if (s === null || sep === null) return null;
      if (typeof s !== 'string') throw badArg('split', s!);
      if (typeof sep !== 'string') throw badArg('split', sep!);
      const parts = sep === '' ? [...s] : s.split(sep);
      ctx.guard.charge(listBytes(parts.length) + stringBytes(s.length), 'split()');
      return parts;
    },
  },
  substring: {
    minArgs: 2,
    maxArgs: 3,
    call: ([s, start, length]) => {
      if (s === null || start === null || length === null) return null;
      if (typeof s !== 'string') throw badArg('substring', s!);
      const from = int('substring', start!);
      return length === undefined ? s.slice(from) : s.slice(from, from + int('substring', length));
    },
  },
  replace: {
    minArgs: 3,
    maxArgs: 3,
    call: ([s, search, by], ctx) => {
      if (s === null || search === null || by === null) return null;
      for (const v of [s!, search!, by!]) if (typeof v !== 'string') throw badArg('replace', v);
      const out = (s as string).split(search as string).join(by as string);
      ctx.guard.charge(stringBytes(out.length), 'replace()');
      return out;
    },
  },
  left: {
    minArgs: 2,
    maxArgs: 2,
    call: ([s, n]) => {
      if (s === null) return null;
      if (typeof s !== 'string') throw badArg('left', s!);
      if (n === null) throw runtimeError('ArgumentError', 'NumberOutOfRange', 'left() needs a length, got null');
      return s.slice(0, int('left', n!));
    },
  },
  right: {
    minArgs: 2,
    maxArgs: 2,
    call: ([s, n]) => {
      if (s === null) return null;
      if (typeof s !== 'string') throw badArg('right', s!);
      if (n === null) throw runtimeError('ArgumentError', 'NumberOutOfRange', 'right() needs a length, got null');
      const k = int('right', n!);
      return k === 0 ? '' : s.slice(-k);
    },
  },
  round: {
    minArgs: 1,
    maxArgs: 2,
    call: ([x, precision]) => {
      if (x === null || precision === null) return null;
      if (!isNumber(x)) throw badArg('round', x!);
      const v = numberOf(x);
      if (precision === undefined) return float(Math.round(v));
      const p = int('round', precision);
      // Half away from zero at the digit asked for, as Neo4j's round(x, p) (HALF_UP).
      const factor = 10 ** p;
      return float((Math.sign(v) * Math.round(Math.abs(v) * factor)) / factor);
    },
  },
};
