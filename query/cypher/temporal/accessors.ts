import { floorDiv, NANOS_PER_SECOND } from './calendar.js';
import { dateFields, epochSecondOf, hasDate, hasTime, hasZone, timeFields } from './fields.js';
import { formatOffset } from './format.js';
import { integerResult } from '../numbers.js';
import type { CypherDuration, TemporalOrDuration } from './types.js';

/**
 * `value.component` for temporal values and durations; undefined when the value has no such
 * component (the caller decides whether that is null or an error).
 */
export function temporalComponent(v: TemporalOrDuration, key: string): number | bigint | string | undefined {
  if (v.kind === 'duration') return durationComponent(v, key);
  if (hasDate(v)) {
    const d = dateFields(v.epochDay);
    switch (key) {
      case 'year':
      case 'quarter':
      case 'month':
      case 'week':
      case 'weekYear':
      case 'day':
      case 'ordinalDay':
      case 'dayOfQuarter':
        return d[key];
      case 'weekDay':
      case 'dayOfWeek':
        return d.dayOfWeek;
    }
  }
  if (hasTime(v)) {
    const t = timeFields(v.nanoOfDay);
    switch (key) {
      case 'hour':
      case 'minute':
      case 'second':
        return t[key];
      case 'millisecond':
        return floorDiv(t.nanosecond, 1_000_000);
      case 'microsecond':
        return floorDiv(t.nanosecond, 1000);
      case 'nanosecond':
        return t.nanosecond;
    }
  }
  if (hasZone(v)) {
    switch (key) {
      case 'timezone':
        return v.kind === 'datetime' && v.zone !== null ? v.zone : formatOffset(v.offsetSeconds);
      case 'offset':
        return formatOffset(v.offsetSeconds);
      case 'offsetMinutes':
        return floorDiv(v.offsetSeconds, 60);
      case 'offsetSeconds':
        return v.offsetSeconds;
    }
  }
  if (v.kind === 'datetime') {
    const epochSecond = epochSecondOf(v.epochDay, v.nanoOfDay, v.offsetSeconds);
    if (key === 'epochSeconds') return epochSecond;
    if (key === 'epochMillis') return epochSecond * 1000 + floorDiv(v.nanoOfDay % NANOS_PER_SECOND, 1_000_000);
  }
  return undefined;
}

function durationComponent(d: CypherDuration, key: string): number | bigint | undefined {
  const t = Math.trunc;
  // As Neo4j reads them: the seconds field as stored (nanoseconds normalised to 0..1e9 beside it),
  // larger units by division toward zero. The seconds are 64-bit, so units from them are exact.
  const secs = d.exactSeconds;
  const subNanos = d.nanos;
  const exact = (b: bigint): number | bigint => integerResult(b, `a duration's ${key}`);
  switch (key) {
    case 'years':
      return t(d.months / 12);
    case 'quarters':
      return t(d.months / 3);
    case 'months':
      return d.months;
    case 'weeks':
      return t(d.days / 7);
    case 'days':
      return d.days;
    case 'hours':
      return exact(secs / 3600n);
    case 'minutes':
      return exact(secs / 60n);
    case 'seconds':
      return exact(secs);
    case 'milliseconds':
      return exact(secs * 1000n + BigInt(t(subNanos / 1_000_000)));
    case 'microseconds':
      return exact(secs * 1_000_000n + BigInt(t(subNanos / 1000)));
    case 'nanoseconds':
      return exact(secs * BigInt(NANOS_PER_SECOND) + BigInt(subNanos));
    case 'quartersOfYear':
      return t((d.months % 12) / 3);
    case 'monthsOfQuarter':
      return d.months % 3;
    case 'monthsOfYear':
      return d.months % 12;
    case 'daysOfWeek':
      return d.days % 7;
    case 'minutesOfHour':
      return exact((secs / 60n) % 60n);
    case 'secondsOfMinute':
      return exact(secs % 60n);
    case 'millisecondsOfSecond':
      return t(subNanos / 1_000_000);
    case 'microsecondsOfSecond':
      return t(subNanos / 1000);
    case 'nanosecondsOfSecond':
      return subNanos;
    default:
      return undefined;
  }
}
