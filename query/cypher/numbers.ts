import { runtimeError } from './errors.js';

/**
 * Cypher's two number types over JS numbers. An INTEGER is a JS number with no fraction, or,
 * beyond ±(2^53-1) where a double is no longer exact, a bigint (up to 64 bits, as in Neo4j). A
 * FLOAT is a JS number with a fraction (or NaN, ±Infinity), or, when its value is whole (1.0,
 * -0.0, 1e20), a WholeFloat: the box keeps `3.0 / 2` a float division and `1.0` a float in
 * results, while the common cases (small integers, fractional floats) stay unboxed numbers.
 */
export class WholeFloat {
  constructor(readonly value: number) {}
}

export type CypherNumber = number | WholeFloat | bigint;

export const isNumber = (v: unknown): v is CypherNumber => typeof v === 'number' || v instanceof WholeFloat || typeof v === 'bigint';

/** An INTEGER within ±(2^53-1), held as a JS number (a bigint is an INTEGER beyond). */
export const isInteger = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** Any INTEGER: a safe one as a number, a larger one as a bigint. */
export const isIntegral = (v: unknown): v is number | bigint => isInteger(v) || typeof v === 'bigint';

export const isFloat = (v: unknown): boolean => v instanceof WholeFloat || (typeof v === 'number' && !Number.isInteger(v));

/** The JS number a Cypher number holds (the nearest double, for an INTEGER beyond 2^53). */
export const numberOf = (v: CypherNumber): number => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : v.value);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * An exact integer as the engine holds it: a number when it is safe, a bigint beyond; null past
 * 64 bits, where Neo4j overflows.
 */
export function int64(b: bigint): number | bigint | null {
  if (b < INT64_MIN || b > INT64_MAX) return null;
  return b >= -BigInt(Number.MAX_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
}

/** An exact INTEGER result (number or bigint), or an IntegerOverflow naming the operation when it needs more than 64 bits. */
export function integerResult(b: bigint, op: string): number | bigint {
  const v = int64(b);
  if (v === null) throw runtimeError('ArithmeticError', 'IntegerOverflow', `the integer result of ${op} is outside the 64-bit range`);
  return v;
}

/** The order of two numbers, exact between INTEGERs of any size; NaN when either is NaN. */
export function compareNumbers(a: CypherNumber, b: CypherNumber): number {
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    if (isIntegral(a) && isIntegral(b)) {
      const x = BigInt(a);
      const y = BigInt(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
  }
  const x = numberOf(a);
  const y = numberOf(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A JS number as a Cypher FLOAT. */
export const float = (x: number): CypherNumber => (Number.isInteger(x) ? new WholeFloat(x) : x);

/**
 * Cypher's text of a FLOAT, as Java writes a double: plain from 10^-3 up to 10^7, in
 * scientific notation outside, always with a '.' (1.0, 1.0E7, 1.5E-4, -0.0, NaN, Infinity).
 */
export function floatText(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Object.is(x, -0)) return '-0.0';
  const abs = Math.abs(x);
  if (abs === 0 || (abs >= 1e-3 && abs < 1e7)) {
    const s = String(x);
    return s.includes('.') ? s : s + '.0';
  }
  const [mantissa, exponent] = x.toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : mantissa + '.0'}E${Number(exponent)}`;
}

/** Cypher's text of a number (toString, string concatenation). */
export const numberText = (v: CypherNumber): string => (isFloat(v) ? floatText(numberOf(v)) : String(v));
