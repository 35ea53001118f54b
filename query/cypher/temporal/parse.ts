import { daysInMonth, daysInYear, epochDayOf, epochDayOfWeekDate, NANOS_PER_SECOND, SECONDS_PER_DAY, weeksInWeekYear } from './calendar.js';
import { invalid } from './errors.js';
import { durationOf } from './duration.js';
import { CypherDate, CypherDateTime, CypherDuration, CypherLocalDateTime, CypherLocalTime, CypherTime } from './types.js';
import { checkZone, offsetAt, offsetForLocal } from './zones.js';

/** ISO-8601 text in the forms Cypher reads: calendar, week and ordinal dates, basic and extended. */

const YEAR = String.raw`([+-]\d{5,9}|[+-]?\d{4})`;
const DATE = new RegExp(`^${YEAR}(?:-(\\d{2})(?:-(\\d{2}))?|(\\d{2})(\\d{2})?|-W(\\d{2})(?:-(\\d))?|W(\\d{2})(\\d)?|-(\\d{3})|(\\d{3}))?$`);
const TIME = /^(\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?|(\d{2})(?:(\d{2})(?:[.,](\d{1,9}))?)?)?$/;
const ZONE_SUFFIX = /^(.*?)(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?(?:\[([^\]]+)\])?$/;

function inRange(n: number, lo: number, hi: number, what: string, text: string): number {
  if (!(n >= lo && n <= hi)) throw invalid(`${what} ${n} is out of range (${lo} to ${hi}) in "${text}"`);
  return n;
}

export function parseEpochDay(text: string): number {
  const m = DATE.exec(text);
  if (!m) throw invalid(`"${text}" is not a date (e.g. 2015-07-21, 20150721, 2015-W30-2, 2015-202)`);
  const year = Number(m[1]);
  const [, , month1, day1, month2, day2, week1, dow1, week2, dow2, ord1, ord2] = m;
  const month = month1 ?? month2;
  const week = week1 ?? week2;
  const ordinal = ord1 ?? ord2;
  if (month !== undefined) {
    const mm = inRange(Number(month), 1, 12, 'month', text);
    const dd = inRange(Number(day1 ?? day2 ?? 1), 1, daysInMonth(year, mm), 'day', text);
    return epochDayOf(year, mm, dd);
  }
  if (week !== undefined) {
    const w = inRange(Number(week), 1, weeksInWeekYear(year), 'week', text);
    return epochDayOfWeekDate(year, w, inRange(Number(dow1 ?? dow2 ?? 1), 1, 7, 'day of week', text));
  }
  if (ordinal !== undefined) return epochDayOf(year, 1, 1) + inRange(Number(ordinal), 1, daysInYear(year), 'ordinal day', text) - 1;
  return epochDayOf(year, 1, 1);
}

export function parseNanoOfDay(text: string): number {
  const m = TIME.exec(text);
  if (!m) throw invalid(`"${text}" is not a time of day (e.g. 21:40:32.142, 214032, 21:40)`);
  const h = inRange(Number(m[1]), 0, 23, 'hour', text);
  const min = inRange(Number(m[2] ?? m[5] ?? 0), 0, 59, 'minute', text);
  const s = inRange(Number(m[3] ?? m[6] ?? 0), 0, 59, 'second', text);
  const fraction = m[4] ?? m[7] ?? '';
  return ((h * 60 + min) * 60 + s) * NANOS_PER_SECOND + Number(fraction.padEnd(9, '0'));
}

/** Seconds east of UTC from Z, ±HH, ±HHMM, ±HH:MM (and seconds after). */
export function parseOffset(text: string): number {
  if (text === 'Z') return 0;
  const m = /^([+-])(\d{2})(?::?(\d{2})(?::?(\d{2}))?)?$/.exec(text);
  if (!m) throw invalid(`"${text}" is not a time zone offset (e.g. Z, +01:00, -0530)`);
  const seconds = inRange(Number(m[2]), 0, 18, 'offset hours', text) * 3600 + inRange(Number(m[3] ?? 0), 0, 59, 'offset minutes', text) * 60 + Number(m[4] ?? 0);
  if (seconds > 18 * 3600) throw invalid(`offset "${text}" is beyond ±18:00`);
  return m[1] === '-' ? -seconds : seconds;
}

interface Zoned {
  rest: string;
  offset: number | null;
  zone: string | null;
}

function splitZone(text: string): Zoned {
  const m = ZONE_SUFFIX.exec(text)!;
  const zone = m[3] ?? null;
  if (zone !== null) checkZone(zone);
  return { rest: m[1]!, offset: m[2] !== undefined ? parseOffset(m[2]) : null, zone };
}

export function parseDate(text: string): CypherDate {
  return new CypherDate(parseEpochDay(text));
}

export function parseLocalTime(text: string): CypherLocalTime {
  return new CypherLocalTime(parseNanoOfDay(text));
}

/** A time with its offset; without one, `defaultOffset` (UTC unless a default zone says otherwise). */
export function parseTime(text: string, defaultOffset = 0): CypherTime {
  const { rest, offset, zone } = splitZone(text);
  const nanoOfDay = parseNanoOfDay(rest);
  if (zone !== null) throw invalid(`a time carries an offset, not a named zone: "${text}"`);
  return new CypherTime(nanoOfDay, offset ?? defaultOffset);
}

function splitDateTime(text: string): [string, string] {
  const at = text.indexOf('T');
  if (at < 0) return [text, '00'];
  return [text.slice(0, at), text.slice(at + 1)];
}

export function parseLocalDateTime(text: string): CypherLocalDateTime {
  const [date, time] = splitDateTime(text);
  return new CypherLocalDateTime(parseEpochDay(date), parseNanoOfDay(time));
}

/** A date-time at an offset or in a named zone (an offset it gives must be one the zone has then). */
export function parseDateTime(text: string, defaultZone: string | null = null): CypherDateTime {
  const [date, timeAndZone] = splitDateTime(text);
  const { rest, offset, zone } = splitZone(timeAndZone);
  const epochDay = parseEpochDay(date);
  const nanoOfDay = parseNanoOfDay(rest);
  return dateTimeOf(epochDay, nanoOfDay, offset, zone ?? (offset === null ? defaultZone : null));
}

/**
 * A DateTime from a local date and time and an offset or a zone: in a zone, the given offset
 * when the zone has it at that time, else the zone's offset for that local time (java.time's
 * resolution); with neither, UTC.
 */
export function dateTimeOf(epochDay: number, nanoOfDay: number, offset: number | null, zone: string | null): CypherDateTime {
  if (zone === null) return new CypherDateTime(epochDay, nanoOfDay, offset ?? 0, null);
  const localSecond = epochDay * SECONDS_PER_DAY + Math.floor(nanoOfDay / NANOS_PER_SECOND);
  if (offset !== null && offsetAt(zone, localSecond - offset) === offset) return new CypherDateTime(epochDay, nanoOfDay, offset, zone);
  const chosen = offsetForLocal(zone, localSecond);
  const instant = localSecond - chosen;
  const actual = offsetAt(zone, instant);
  if (actual === chosen) return new CypherDateTime(epochDay, nanoOfDay, chosen, zone);
  // In a gap: the same instant, shown at the offset after the gap.
  const shifted = nanoOfDay + (actual - chosen) * NANOS_PER_SECOND;
  const dayShift = Math.floor(shifted / (SECONDS_PER_DAY * NANOS_PER_SECOND));
  return new CypherDateTime(epochDay + dayShift, shifted - dayShift * SECONDS_PER_DAY * NANOS_PER_SECOND, actual, zone);
}

const NUMBER = String.raw`([+-]?\d+(?:[.,]\d+)?)`;
const DURATION = new RegExp(`^([+-])?P(?:${NUMBER}Y)?(?:${NUMBER}M)?(?:${NUMBER}W)?(?:${NUMBER}D)?(?:T(?:${NUMBER}H)?(?:${NUMBER}M)?(?:${NUMBER}S)?)?$`, 'i');
const DURATION_AS_DATE = /^([+-])?P(\d{4})-?(\d{2})-?(\d{2})T(\d{2}):?(\d{2}):?(\d{2})(?:[.,](\d{1,9}))?$/i;

/** P[nY][nM][nW][nD][T[nH][nM][nS]] (any part may have a fraction), or PYYYY-MM-DDTHH:MM:SS. */
export function parseDuration(text: string): CypherDuration {
  const alt = DURATION_AS_DATE.exec(text);
  if (alt) {
    const sign = alt[1] === '-' ? -1 : 1;
    const [y, mo, d, h, mi, s] = alt.slice(2, 8).map(Number) as [number, number, number, number, number, number];
    return durationOf({ months: sign * (y * 12 + mo), days: sign * d, seconds: sign * (h * 3600 + mi * 60 + s), nanos: sign * Number((alt[8] ?? '').padEnd(9, '0')) });
  }
  const m = DURATION.exec(text);
  if (!m || text.endsWith('T') || /^[+-]?P$/i.test(text)) throw invalid(`"${text}" is not a duration (e.g. P14DT16H12M, PT0.75M, P2012-02-02T14:37:21.545)`);
  const sign = m[1] === '-' ? -1 : 1;
  const n = (i: number): number => (m[i] === undefined ? 0 : sign * Number(m[i]!.replace(',', '.')));
  // Seconds keep their fraction exactly, digit by digit (a float would lose nanoseconds).
  const [whole = '0', digits = ''] = (m[8] ?? '0').replace(',', '.').split('.');
  const secondsSign = sign * (whole.startsWith('-') ? -1 : 1);
  const seconds = sign * Number(whole);
  const nanos = secondsSign * Number(digits.padEnd(9, '0').slice(0, 9));
  return durationOf({ years: n(2), months: n(3), weeks: n(4), days: n(5), hours: n(6), minutes: n(7), seconds, nanoseconds: nanos });
}
