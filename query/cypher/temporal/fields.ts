import { civilOf, dayOfQuarter, dayOfWeek, floorDiv, isoWeekOf, NANOS_PER_SECOND, ordinalDay, quarterOf, SECONDS_PER_DAY } from './calendar.js';
import type { Temporal } from './types.js';

/** The parts of a temporal value that construction from a map starts from and projects. */

export const hasDate = (v: Temporal): v is Extract<Temporal, { epochDay: number }> => v.kind === 'date' || v.kind === 'localdatetime' || v.kind === 'datetime';
export const hasTime = (v: Temporal): v is Exclude<Temporal, { kind: 'date' }> => v.kind !== 'date';
export const hasZone = (v: Temporal): v is Extract<Temporal, { offsetSeconds: number }> => v.kind === 'time' || v.kind === 'datetime';

export function dateFields(epochDay: number) {
  const { year, month, day } = civilOf(epochDay);
  const { weekYear, week } = isoWeekOf(epochDay);
  return { year, month, day, quarter: quarterOf(month), dayOfQuarter: dayOfQuarter(epochDay), ordinalDay: ordinalDay(epochDay), week, weekYear, dayOfWeek: dayOfWeek(epochDay) };
}

export function timeFields(nanoOfDay: number) {
  const second = floorDiv(nanoOfDay, NANOS_PER_SECOND);
  const nanosecond = nanoOfDay - second * NANOS_PER_SECOND;
  return { hour: floorDiv(second, 3600), minute: floorDiv(second % 3600, 60), second: second % 60, nanosecond };
}

/** Seconds since 1970-01-01T00:00Z of a date-time at an offset (whole seconds). */
export function epochSecondOf(epochDay: number, nanoOfDay: number, offsetSeconds: number): number {
  return epochDay * SECONDS_PER_DAY + floorDiv(nanoOfDay, NANOS_PER_SECOND) - offsetSeconds;
}
