import { epochDayOf, floorDiv, floorMod, SECONDS_PER_DAY } from './calendar.js';
import { TemporalError } from './errors.js';

/** Time zones by name (the IANA database, through Intl): offsets at an instant and for a local time. */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', era: 'short', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    } catch {
      throw new TemporalError('UnknownTimeZone', `unknown time zone "${zone}"`);
    }
    formatters.set(zone, f);
  }
  return f;
}

/** Throws UnknownTimeZone unless the name is a zone the IANA database knows. */
export function checkZone(zone: string): void {
  formatterOf(zone);
}

/** Intl handles dates within ±8.64e15 ms of 1970; beyond, the offset at the nearest edge is used. */
const MAX_SECONDS = 8.64e12 - SECONDS_PER_DAY * 2;

/** The zone's offset from UTC, in seconds, at an instant (seconds since 1970-01-01T00:00Z). */
export function offsetAt(zone: string, epochSecond: number): number {
  const at = Math.max(-MAX_SECONDS, Math.min(MAX_SECONDS, epochSecond));
  const parts = formatterOf(zone).formatToParts(new Date(at * 1000));
  const get = (type: string): number => Number(parts.find((p) => p.type === type)!.value);
  const era = parts.find((p) => p.type === 'era')!.value;
  const year = era === 'BC' || era === 'B' ? 1 - get('year') : get('year');
  const local = epochDayOf(year, get('month'), get('day')) * SECONDS_PER_DAY + get('hour') * 3600 + get('minute') * 60 + get('second');
  return local - at;
}

/**
 * The offset a local date and time gets in a zone, as java.time resolves it: in an overlap the
 * earlier offset; in a gap the offset before it (the local time then moves later by the gap).
 */
export function offsetForLocal(zone: string, localEpochSecond: number): number {
  const before = offsetAt(zone, localEpochSecond - SECONDS_PER_DAY);
  const after = offsetAt(zone, localEpochSecond + SECONDS_PER_DAY);
  if (offsetAt(zone, localEpochSecond - before) === before) return before;
  if (offsetAt(zone, localEpochSecond - after) === after) return after;
  return before;
}

/** A local date and time (day number, second of day) from an instant at an offset. */
export function localOf(epochSecond: number, offsetSeconds: number): { epochDay: number; secondOfDay: number } {
  const local = epochSecond + offsetSeconds;
  return { epochDay: floorDiv(local, SECONDS_PER_DAY), secondOfDay: floorMod(local, SECONDS_PER_DAY) };
}
