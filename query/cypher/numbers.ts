/**
 * Cypher's two number types over JS numbers. An INTEGER is a JS number with no fraction; a
 * FLOAT is a JS number with one (or NaN, ±Infinity), or, when its value is whole (1.0, -0.0,
 * 1e20), a WholeFloat: the box keeps `3.0 / 2` a float division and `1.0` a float in results,
 * while the common case (integers, fractional floats) stays an unboxed number.
 */
export class WholeFloat {
  constructor(readonly value: number) {}
}

export type CypherNumber = number | WholeFloat;

export const isNumber = (v: unknown): v is CypherNumber => typeof v === 'number' || v instanceof WholeFloat;

export const isInteger = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export const isFloat = (v: unknown): boolean => v instanceof WholeFloat || (typeof v === 'number' && !Number.isInteger(v));

/** The JS number a Cypher number holds. */
export const numberOf = (v: CypherNumber): number => (typeof v === 'number' ? v : v.value);

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
