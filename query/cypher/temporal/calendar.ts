/**
 * The proleptic Gregorian calendar on day numbers (days since 1970-01-01), as ISO-8601 and
 * Cypher count: civil dates, ISO weeks (Monday first, week 1 holds January 4th), ordinal days
 * and quarters. The civil conversions are Howard Hinnant's days_from_civil / civil_from_days.
 */

export const NANOS_PER_SECOND = 1_000_000_000;
export const SECONDS_PER_DAY = 86_400;
export const NANOS_PER_DAY = SECONDS_PER_DAY * NANOS_PER_SECOND;

export const floorDiv = (a: number, b: number): number => Math.floor(a / b);
export const floorMod = (a: number, b: number): number => a - Math.floor(a / b) * b;

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeapYear(y) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

export function daysInYear(y: number): number {
  return isLeapYear(y) ? 366 : 365;
}

export function epochDayOf(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = floorDiv(yy, 400);
  const yoe = yy - era * 400;
  const doy = floorDiv(153 * (m + (m > 2 ? -3 : 9)) + 2, 5) + d - 1;
  const doe = yoe * 365 + floorDiv(yoe, 4) - floorDiv(yoe, 100) + doy;
  return era * 146097 + doe - 719468;
}

export interface Civil {
  year: number;
  month: number;
  day: number;
}

export function civilOf(epochDay: number): Civil {
  const z = epochDay + 719468;
  const era = floorDiv(z, 146097);
  const doe = z - era * 146097;
  const yoe = floorDiv(doe - floorDiv(doe, 1460) + floorDiv(doe, 36524) - floorDiv(doe, 146096), 365);
  const doy = doe - (365 * yoe + floorDiv(yoe, 4) - floorDiv(yoe, 100));
  const mp = floorDiv(5 * doy + 2, 153);
  const day = doy - floorDiv(153 * mp + 2, 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** 1 (Monday) to 7 (Sunday). 1970-01-01 was a Thursday. */
export function dayOfWeek(epochDay: number): number {
  return floorMod(epochDay + 3, 7) + 1;
}

export function ordinalDay(epochDay: number): number {
  return epochDay - epochDayOf(civilOf(epochDay).year, 1, 1) + 1;
}

export function quarterOf(month: number): number {
  return Math.ceil(month / 3);
}

export function dayOfQuarter(epochDay: number): number {
  const { year, month } = civilOf(epochDay);
  return epochDay - epochDayOf(year, (quarterOf(month) - 1) * 3 + 1, 1) + 1;
}

export function daysInQuarter(year: number, quarter: number): number {
  let n = 0;
  for (let m = (quarter - 1) * 3 + 1; m <= quarter * 3; m++) n += daysInMonth(year, m);
  return n;
}

/** The Monday of week 1 of an ISO week-based year. */
function weekOneMonday(weekYear: number): number {
  const jan4 = epochDayOf(weekYear, 1, 4);
  return jan4 - (dayOfWeek(jan4) - 1);
}

export function weeksInWeekYear(weekYear: number): number {
  return (weekOneMonday(weekYear + 1) - weekOneMonday(weekYear)) / 7;
}

export function epochDayOfWeekDate(weekYear: number, week: number, dow: number): number {
  return weekOneMonday(weekYear) + (week - 1) * 7 + (dow - 1);
}

/** The ISO week-based year and week of a day: those of its week's Thursday. */
export function isoWeekOf(epochDay: number): { weekYear: number; week: number } {
  const thursday = epochDay + (4 - dayOfWeek(epochDay));
  const weekYear = civilOf(thursday).year;
  return { weekYear, week: floorDiv(thursday - weekOneMonday(weekYear), 7) + 1 };
}
