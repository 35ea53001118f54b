import { runtimeError } from './errors.js';

/**
 * round(x, precision, mode) as Neo4j computes it: on the number's shortest decimal text (so 1.25
 * is a tie at one digit, though its double is not exactly 1.25), with java.math.RoundingMode's
 * modes.
 */

export const ROUNDING_MODES = new Set(['UP', 'DOWN', 'CEILING', 'FLOOR', 'HALF_UP', 'HALF_DOWN', 'HALF_EVEN', 'UNNECESSARY']);

/** Whether the dropped part `rest` (out of `unit`) takes the kept digits `kept` one further from zero. */
function roundsAway(mode: string, negative: boolean, kept: bigint, rest: bigint, unit: bigint): boolean {
  if (rest === 0n) return false;
  const half = 2n * rest - unit;
  switch (mode) {
    case 'UP':
      return true;
    case 'DOWN':
      return false;
    case 'CEILING':
      return !negative;
    case 'FLOOR':
      return negative;
    case 'HALF_UP':
      return half >= 0n;
    case 'HALF_DOWN':
      return half > 0n;
    case 'HALF_EVEN':
      return half > 0n || (half === 0n && kept % 2n === 1n);
    default:
      throw runtimeError('ArgumentError', 'InvalidArgumentValue', 'round() with mode UNNECESSARY takes a number that needs no rounding at that precision');
  }
}

/** `x` rounded to `digits` decimals (digits ≥ 0) by `mode`. */
export function roundTo(x: number, digits: number, mode: string): number {
  if (!Number.isFinite(x)) return x;
  const [, whole, fraction = '', exponent = '0'] = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(x)))!;
  const scale = fraction.length - Number(exponent);
  if (scale <= digits) return x;
  const unit = 10n ** BigInt(scale - digits);
  const value = BigInt(whole! + fraction);
  const kept = value / unit;
  const result = roundsAway(mode, x < 0, kept, value % unit, unit) ? kept + 1n : kept;
  return Number(`${x < 0 ? '-' : ''}${result}e-${digits}`) + 0;
}
