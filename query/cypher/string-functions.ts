import { codePointLength, codePointSlice } from './code-points.js';
import { runtimeError } from './errors.js';
import type { FunctionDef } from './functions.js';
import { float, isNumber, numberOf } from './numbers.js';
import { roundTo, ROUNDING_MODES } from './rounding.js';
import { listBytes, stringBytes } from './sizes.js';
import { typeName, type Value } from './values.js';

/**
 * Cypher's string functions (and round()). Lengths and positions count Unicode code points, as
 * Neo4j's do: left('😀bc', 1) is '😀'.
 */

const badArg = (fn: string, v: Value) => runtimeError('TypeError', 'InvalidArgumentType', `${fn}() cannot take a ${typeName(v)}`);

function int(fn: string, v: Value): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badArg(fn, v);
  if (v < 0) throw runtimeError('ArgumentError', 'NegativeIntegerArgument', `${fn}() takes a non-negative length or start, got ${v}`);
  return v;
}

/** A function of one string (null gives null), charged for a result about its size. */
function ofString(fn: string, f: (s: string) => Value): FunctionDef {
  return {
    minArgs: 1,
    maxArgs: 1,
    call: ([s], ctx) => {
      if (s === null) return null;
      if (typeof s !== 'string') throw badArg(fn, s!);
      ctx.guard.charge(stringBytes(s.length), `${fn}()`);
      return f(s);
    },
  };
}

type Trim = 'both' | 'leading' | 'trailing';

/** Whitespace, or each code point of `chars`, taken from one or both ends. */
function trimmed(s: string, where: Trim, chars?: string): string {
  if (chars === undefined) return where === 'both' ? s.trim() : where === 'leading' ? s.trimStart() : s.trimEnd();
  const set = new Set(chars);
  const points = [...s];
  let from = 0;
  let to = points.length;
  if (where !== 'trailing') while (from < to && set.has(points[from]!)) from++;
  if (where !== 'leading') while (to > from && set.has(points[to - 1]!)) to--;
  return points.slice(from, to).join('');
}

/** trim / btrim, ltrim, rtrim (input[, trimCharacterString]): whitespace, or the characters given. */
function trimFunction(fn: string, where: Trim, takesChars: boolean): FunctionDef {
  return {
    minArgs: 1,
    maxArgs: takesChars ? 2 : 1,
    call: ([s, chars], ctx) => {
      if (s === null || chars === null) return null;
      if (typeof s !== 'string') throw badArg(fn, s!);
      if (chars !== undefined && typeof chars !== 'string') throw badArg(fn, chars);
      ctx.guard.charge(stringBytes(s.length), `${fn}()`);
      return trimmed(s, where, chars);
    },
  };
}

/** s split at each occurrence of any of the delimiters (the first listed wins where several start). */
function splitAtAny(s: string, delimiters: string[]): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; ) {
    const d = delimiters.find((x) => x !== '' && s.startsWith(x, i));
    if (d === undefined) i++;
    else {
      parts.push(s.slice(start, i));
      i += d.length;
      start = i;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

const NORMAL_FORMS = new Set(['NFC', 'NFD', 'NFKC', 'NFKD']);
const toLower = ofString('toLower', (s) => s.toLowerCase());
const toUpper = ofString('toUpper', (s) => s.toUpperCase());
const charLength = ofString('char_length', codePointLength);

export const STRING_FUNCTIONS: Record<string, FunctionDef> = {
  tolower: toLower,
  lower: toLower,
  toupper: toUpper,
  upper: toUpper,
  char_length: charLength,
  character_length: charLength,
  trim: trimFunction('trim', 'both', false),
  btrim: trimFunction('btrim', 'both', true),
  ltrim: trimFunction('lTrim', 'leading', true),
  rtrim: trimFunction('rTrim', 'trailing', true),
  normalize: {
    minArgs: 1,
    maxArgs: 2,
    call: ([s, form = 'NFC'], ctx) => {
      if (s === null || form === null) return null;
      if (typeof s !== 'string') throw badArg('normalize', s!);
      if (typeof form !== 'string' || !NORMAL_FORMS.has(form)) throw runtimeError('ArgumentError', 'InvalidArgumentValue', 'normalize() takes a normal form of NFC, NFD, NFKC or NFKD, e.g. normalize(s, NFKC)');
      ctx.guard.charge(stringBytes(4 * s.length), 'normalize()');
      return s.normalize(form);
    },
  },
  split: {
    minArgs: 2,
    maxArgs: 2,
    call: ([s, sep], ctx) => {
      if (s === null || sep === null) return null;
      if (typeof s !== 'string') throw badArg('split', s!);
      if (Array.isArray(sep)) {
        if (sep.includes(null)) return null;
        for (const d of sep) if (typeof d !== 'string') throw badArg('split', d);
      } else if (typeof sep !== 'string') throw badArg('split', sep!);
      if (s === '') return [''];
      ctx.guard.charge(listBytes(s.length + 1) + stringBytes(s.length), 'split()');
      if (Array.isArray(sep)) return splitAtAny(s, sep as string[]);
      return sep === '' ? [...s] : s.split(sep);
    },
  },
  substring: {
    minArgs: 2,
    maxArgs: 3,
    call: ([s, start, length]) => {
      if (s === null || start === null || length === null) return null;
      if (typeof s !== 'string') throw badArg('substring', s!);
      const from = int('substring', start!);
      return length === undefined ? codePointSlice(s, from) : codePointSlice(s, from, from + int('substring', length));
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
      return codePointSlice(s, 0, int('left', n!));
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
      return codePointSlice(s, Math.max(0, codePointLength(s) - k));
    },
  },
  round: {
    minArgs: 1,
    maxArgs: 3,
    call: ([x, precision, mode]) => {
      if (x === null || precision === null || mode === null) return null;
      if (!isNumber(x)) throw badArg('round', x!);
      const v = numberOf(x);
      // Without a mode, precision 0 rounds as round(x): ties toward positive infinity (Java's Math.round).
      if (precision === undefined || (numberOf(isNumber(precision) ? precision : 1) === 0 && mode === undefined)) return float(Math.round(v) + 0);
      if (!isNumber(precision)) throw badArg('round', precision);
      const p = Math.trunc(numberOf(precision));
      if (p < 0) throw runtimeError('ArgumentError', 'NumberOutOfRange', `round() takes a precision of 0 or more, got ${p}`);
      if (mode !== undefined && (typeof mode !== 'string' || !ROUNDING_MODES.has(mode))) {
        throw runtimeError('ArgumentError', 'InvalidArgumentValue', `round() takes a rounding mode of ${[...ROUNDING_MODES].join(', ')}, got ${typeof mode === 'string' ? `'${mode}'` : `a ${typeName(mode)}`}`);
      }
      return float(roundTo(v, p, (mode as string | undefined) ?? 'HALF_UP'));
    },
  },
};
