import { NANOS_PER_SECOND, SECONDS_PER_DAY } from './calendar.js';
import { CypherDuration } from './types.js';

/** The average Gregorian month (146,097 days / 4,800 months), for fractions of a month. */
export const AVG_DAYS_PER_MONTH = 30.436875;

export interface DurationParts {
  years?: number;
  quarters?: number;
  months?: number;
  weeks?: number;
  days?: number;
  hours?: number;
  minutes?: number;
  seconds?: number;
  milliseconds?: number;
  microseconds?: number;
  nanoseconds?: number;
  /** Whole nanoseconds added as they are (no fraction handling). */
  nanos?: number;
}

/**
 * A duration from parts that may have fractions: a fraction of a month goes to days at the
 * average month length, of a day to seconds, of a second to nanoseconds — Neo4j's arithmetic, in
 * the same floating-point steps, so the results match it to the nanosecond.
 */
export function durationOf(p: DurationParts): CypherDuration {
  const months = (p.years ?? 0) * 12 + (p.quarters ?? 0) * 3 + (p.months ?? 0);
  let days = (p.weeks ?? 0) * 7 + (p.days ?? 0);
  let seconds = (p.hours ?? 0) * 3600 + (p.minutes ?? 0) * 60 + (p.seconds ?? 0);
  let nanos = (p.milliseconds ?? 0) * 1_000_000 + (p.microseconds ?? 0) * 1000 + (p.nanoseconds ?? 0);
  const m = Math.trunc(months);
  days += (months - m) * AVG_DAYS_PER_MONTH;
  const d = Math.trunc(days);
  seconds += (days - d) * SECONDS_PER_DAY;
  const s = Math.trunc(seconds);
  nanos += (seconds - s) * NANOS_PER_SECOND;
  const n = Math.trunc(nanos) + (p.nanos ?? 0);
  return new CypherDuration(m + 0, d + 0, Number.isSafeInteger(s) || d !== days ? s + 0 : exactSeconds(p) ?? s, n + 0);
}

/** Whole hours, minutes and seconds summed as a 64-bit integer (past 2^53 a double loses the last digits); null when any has a fraction. */
function exactSeconds(p: DurationParts): bigint | null {
  const parts = [p.hours ?? 0, p.minutes ?? 0, p.seconds ?? 0];
  if (!parts.every(Number.isInteger)) return null;
  const [h, m, s] = parts.map(BigInt) as [bigint, bigint, bigint];
  return h * 3600n + m * 60n + s;
}
