import { civilOf, daysInMonth, epochDayOf, floorDiv, floorMod, NANOS_PER_DAY, NANOS_PER_SECOND } from './calendar.js';
import { durationOf } from './duration.js';
import { dateTimeOf } from './parse.js';
import { CypherDate, CypherDateTime, CypherDuration, CypherLocalDateTime, CypherLocalTime, CypherTime, type Temporal } from './types.js';
import { localOf, offsetAt as offsetAtZone } from './zones.js';

/** Temporal arithmetic as Neo4j does it (java.time's plus of months, then days, then time). */

/** A day plus months, the day of month kept or clamped to the month's last day (Jan 31 + 1 month = Feb 28). */
export function plusMonths(epochDay: number, months: number): number {
  if (months === 0) return epochDay;
  const { year, month, day } = civilOf(epochDay);
  const total = year * 12 + (month - 1) + months;
  const y = floorDiv(total, 12);
  const m = floorMod(total, 12) + 1;
  return epochDayOf(y, m, Math.min(day, daysInMonth(y, m)));
}

export function negate(d: CypherDuration): CypherDuration {
  return new CypherDuration(-d.months, -d.days, -d.exactSeconds, -d.nanos);
}

export function addDurations(a: CypherDuration, b: CypherDuration): CypherDuration {
  return new CypherDuration(a.months + b.months, a.days + b.days, a.exactSeconds + b.exactSeconds, a.nanos + b.nanos);
}

/** A duration times a number: integers multiply each part; fractions carry down as durationOf does. */
export function multiplyDuration(d: CypherDuration, factor: number, isInteger: boolean): CypherDuration {
  if (isInteger) return new CypherDuration(d.months * factor, d.days * factor, d.exactSeconds * BigInt(factor), d.nanos * factor);
  return durationOf({ months: d.months * factor, days: d.days * factor, seconds: d.seconds * factor, nanoseconds: d.nanos * factor });
}

export function divideDuration(d: CypherDuration, divisor: number): CypherDuration {
  return durationOf({ months: d.months / divisor, days: d.days / divisor, seconds: d.seconds / divisor, nanoseconds: d.nanos / divisor });
}

/** Whole days in a duration's time part, toward zero. */
const wholeDays = (d: CypherDuration): number => Math.trunc((d.seconds + d.nanos / NANOS_PER_SECOND) / 86_400);

function addToNanoOfDay(nanoOfDay: number, d: CypherDuration): number {
  return floorMod(nanoOfDay + floorMod(d.seconds, 86_400) * NANOS_PER_SECOND + d.nanos, NANOS_PER_DAY);
}

/** A local date-time plus a duration: months, then days, then the time (which may cross days). */
function addToLocal(epochDay: number, nanoOfDay: number, d: CypherDuration): { epochDay: number; nanoOfDay: number } {
  const day = plusMonths(epochDay, d.months) + d.days;
  const secondsPart = d.seconds;
  const daysFromSeconds = floorDiv(secondsPart, 86_400);
  const rest = nanoOfDay + (secondsPart - daysFromSeconds * 86_400) * NANOS_PER_SECOND + d.nanos;
  const carry = floorDiv(rest, NANOS_PER_DAY);
  return { epochDay: day + daysFromSeconds + carry, nanoOfDay: rest - carry * NANOS_PER_DAY };
}

export function addDuration(t: Temporal, d: CypherDuration): Temporal {
  switch (t.kind) {
    case 'date':
      // The time part counts only in whole days, toward zero (as Neo4j's date arithmetic).
      return new CypherDate(plusMonths(t.epochDay, d.months) + d.days + wholeDays(d));
    case 'localtime':
      return new CypherLocalTime(addToNanoOfDay(t.nanoOfDay, d));
    case 'time':
      return new CypherTime(addToNanoOfDay(t.nanoOfDay, d), t.offsetSeconds);
    case 'localdatetime': {
      const r = addToLocal(t.epochDay, t.nanoOfDay, d);
      return new CypherLocalDateTime(r.epochDay, r.nanoOfDay);
    }
    case 'datetime': {
      // Months and days move the local date-time (the zone then says the offset); the time part moves the instant.
      const day = plusMonths(t.epochDay, d.months) + d.days;
      const moved = t.zone !== null ? dateTimeOf(day, t.nanoOfDay, t.offsetSeconds, t.zone) : new CypherDateTime(day, t.nanoOfDay, t.offsetSeconds, null);
      if (d.seconds === 0 && d.nanos === 0) return moved;
      const secondOfDay = floorDiv(moved.nanoOfDay, NANOS_PER_SECOND);
      const nanos = moved.nanoOfDay - secondOfDay * NANOS_PER_SECOND + d.nanos;
      const epochSecond = moved.epochDay * 86_400 + secondOfDay - moved.offsetSeconds + d.seconds + floorDiv(nanos, NANOS_PER_SECOND);
      const offset = moved.zone !== null ? offsetAtZone(moved.zone, epochSecond) : moved.offsetSeconds;
      const local = localOf(epochSecond, offset);
      return new CypherDateTime(local.epochDay, local.secondOfDay * NANOS_PER_SECOND + floorMod(nanos, NANOS_PER_SECOND), offset, moved.zone);
    }
  }
}

export function subtractDuration(t: Temporal, d: CypherDuration): Temporal {
  return addDuration(t, negate(d));
}

