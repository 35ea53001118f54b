import { runtimeError } from './errors.js';
import type { FunctionDef } from './functions.js';
import { float, int64, isIntegral, isNumber, numberOf, numberText } from './numbers.js';
import { listBytes } from './sizes.js';
import { pointText } from './spatial/functions.js';
import { CypherPoint } from './spatial/point.js';
import { formatTemporal } from './temporal/format.js';
import { isTemporal } from './temporal/types.js';
import { typeName, type Value } from './values.js';

/**
 * toInteger, toFloat, toString, toBoolean; their OrNull forms (null where the plain form would
 * refuse the type) and their List forms (each element as the OrNull form converts it).
 * A converter answers undefined for a type it does not take.
 */

type Converter = (v: Exclude<Value, null>) => Value | undefined;

const toInteger: Converter = (v) => {
  if (typeof v === 'bigint') return v;
  if (isNumber(v)) return Number.isFinite(numberOf(v)) ? Math.trunc(numberOf(v)) + 0 : null;
  if (typeof v === 'string') {
    // Integer text is read exactly (64 bits); other number text through its double.
    if (/^\s*[+-]?\d+\s*$/.test(v)) return int64(BigInt(v.trim()));
    const n = Number(v);
    return v.trim() === '' || !Number.isFinite(n) ? null : Math.trunc(n) + 0;
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
};

const toFloat: Converter = (v) => {
  if (isNumber(v)) return float(numberOf(v));
  if (typeof v === 'string') {
    const n = Number(v);
    return v.trim() === '' || Number.isNaN(n) ? null : float(n);
  }
  return undefined;
};

const toText: Converter = (v) => {
  if (typeof v === 'string') return v;
  if (isNumber(v)) return numberText(v);
  if (typeof v === 'boolean') return String(v);
  if (isTemporal(v)) return formatTemporal(v);
  if (v instanceof CypherPoint) return pointText(v);
  return undefined;
};

/** Neo4j 5 also takes an INTEGER: 0 is false, any other true. */
const toBoolean: Converter = (v) => {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    return s === 'true' ? true : s === 'false' ? false : null;
  }
  if (isIntegral(v)) return v !== 0 && v !== 0n;
  return undefined;
};

function strict(fn: string, convert: Converter): FunctionDef {
  return {
    minArgs: 1,
    maxArgs: 1,
    call: ([v]) => {
      if (v === null || v === undefined) return null;
      const out = convert(v);
      if (out === undefined) throw runtimeError('TypeError', 'InvalidArgumentValue', `${fn}() cannot take a ${typeName(v)}; ${fn}OrNull() answers null for it`);
      return out;
    },
  };
}

const orNull = (convert: Converter): FunctionDef => ({
  minArgs: 1,
  maxArgs: 1,
  call: ([v]) => (v === null || v === undefined ? null : (convert(v) ?? null)),
});

function listOf(fn: string, convert: Converter): FunctionDef {
  return {
    minArgs: 1,
    maxArgs: 1,
    call: ([list], ctx) => {
      if (list === null || list === undefined) return null;
      if (!Array.isArray(list)) throw runtimeError('TypeError', 'InvalidArgumentType', `${fn}() takes a list, got a ${typeName(list)}`);
      ctx.guard.charge(listBytes(list.length), `${fn}()`);
      return list.map((v) => (v === null ? null : (convert(v) ?? null)));
    },
  };
}

export const CONVERSION_FUNCTIONS: Record<string, FunctionDef> = {
  tointeger: strict('toInteger', toInteger),
  tofloat: strict('toFloat', toFloat),
  tostring: strict('toString', toText),
  toboolean: strict('toBoolean', toBoolean),
  tointegerornull: orNull(toInteger),
  tofloatornull: orNull(toFloat),
  tostringornull: orNull(toText),
  tobooleanornull: orNull(toBoolean),
  tointegerlist: listOf('toIntegerList', toInteger),
  tofloatlist: listOf('toFloatList', toFloat),
  tostringlist: listOf('toStringList', toText),
  tobooleanlist: listOf('toBooleanList', toBoolean),
};
