import { civilOf, floorDiv, NANOS_PER_SECOND, SECONDS_PER_DAY } from './calendar.js';
import { plusMonths } from './arithmetic.js';
import { epochSecondOf, hasDate, hasZone } from './fields.js';
import { dateTimeOf } from './parse.js';
import { CypherDuration, type Temporal } from './types.js';
import { localOf, offsetAt } from './zones.js';

/**
 * duration.between and duration.inMonths / inDays / inSeconds, as Neo4j computes them: a side
 * without a date takes the other side's, a side without a zone is read in the other side's
 * zone; then months and days count on local date-times (the end moved to the start's zone), and
 * the rest on instants (java.time's until).
 */

export type BetweenUnit = 'all' | 'months' | 'days' | 'seconds';

interface Point {
  epochDay: number;
  nanoOfDay: number;
  offset: number | null;
  zone: string | null;
}

interface ZoneOf {
  offset: number;
  zone: string | null;
}

const zoneOfValue = (v: Temporal): ZoneOf | null => (hasZone(v) ? { offset: v.offsetSeconds, zone: v.kind === 'datetime' ? v.zone : null } : null);

/** A side as a local date-time in a zone: its own date and zone, or those it borrows. */
function pointOf(v: Temporal, epochDay: number, zone: ZoneOf | null, own: boolean): Point {
  const nanoOfDay = v.kind === 'date' ? 0 : v.nanoOfDay;
  if (zone === null) return { epochDay, nanoOfDay, offset: null, zone: null };
  if (own || zone.zone === null) return { epochDay, nanoOfDay, offset: zone.offset, zone: zone.zone };
  const dt = dateTimeOf(epochDay, nanoOfDay, null, zone.zone);
  return { epochDay: dt.epochDay, nanoOfDay: dt.nanoOfDay, offset: dt.offsetSeconds, zone: dt.zone };
}

/** The end at the start's zone, the same instant. */
function toZoneOf(p: Point, of: Point): Point {
  const epochSecond = epochSecondOf(p.epochDay, p.nanoOfDay, p.offset!);
  const offset = of.zone !== null ? offsetAt(of.zone, epochSecond) : of.offset!;
  const { epochDay, secondOfDay } = localOf(epochSecond, offset);
  return { epochDay, nanoOfDay: secondOfDay * NANOS_PER_SECOND + (p.nanoOfDay % NANOS_PER_SECOND), offset, zone: of.zone };
}

/** The end's day, moved by one when its time of day has not reached the start's (java.time's until). */
function endDay(a: Point, b: Point): number {
  if (b.epochDay > a.epochDay && b.nanoOfDay < a.nanoOfDay) return b.epochDay - 1;
  if (b.epochDay < a.epochDay && b.nanoOfDay > a.nanoOfDay) return b.epochDay + 1;
  return b.epochDay;
}

function monthsUntil(a: Point, b: Point): number {
  const ca = civilOf(a.epochDay);
  const cb = civilOf(endDay(a, b));
  const packed = (c: { year: number; month: number; day: number }) => (c.year * 12 + c.month - 1) * 32 + c.day;
  return Math.trunc((packed(cb) - packed(ca)) / 32);
}

const daysUntil = (a: Point, b: Point): number => endDay(a, b) - a.epochDay;

function plus(p: Point, months: number, days: number): Point {
  const epochDay = plusMonths(p.epochDay, months) + days;
  if (p.zone === null) return { ...p, epochDay };
  const dt = dateTimeOf(epochDay, p.nanoOfDay, p.offset, p.zone);
  return { epochDay: dt.epochDay, nanoOfDay: dt.nanoOfDay, offset: dt.offsetSeconds, zone: dt.zone };
}

/**
 * (seconds, nanoseconds) from a to b: on instants when both have an offset, else on local values.
 * The seconds are exact: between the extreme dates they pass 2^53.
 */
function timeUntil(a: Point, b: Point): [bigint, number] {
  const secondsOf = (p: Point) => BigInt(p.epochDay) * BigInt(SECONDS_PER_DAY) + BigInt(floorDiv(p.nanoOfDay, NANOS_PER_SECOND) - (a.offset !== null && b.offset !== null ? p.offset! : 0));
  return [secondsOf(b) - secondsOf(a), (b.nanoOfDay % NANOS_PER_SECOND) - (a.nanoOfDay % NANOS_PER_SECOND)];
}

export function durationBetween(from: Temporal, to: Temporal, unit: BetweenUnit): CypherDuration {
  const datedFrom = hasDate(from);
  const datedTo = hasDate(to);
  if (!datedFrom && !datedTo && (unit === 'months' || unit === 'days')) return new CypherDuration(0, 0, 0, 0);
  const dayFrom = datedFrom ? from.epochDay : datedTo ? to.epochDay : 0;
  const dayTo = datedTo ? to.epochDay : dayFrom;
  const zoneFrom = zoneOfValue(from);
  const zoneTo = zoneOfValue(to);
  const a = pointOf(from, dayFrom, zoneFrom ?? zoneTo, zoneFrom !== null);
  let b = pointOf(to, dayTo, zoneTo ?? zoneFrom, zoneTo !== null);
  if (a.offset !== null) b = toZoneOf(b, a);
  if (unit === 'months') return new CypherDuration(monthsUntil(a, b), 0, 0, 0);
  if (unit === 'days') return new CypherDuration(0, daysUntil(a, b), 0, 0);
  if (unit === 'seconds') {
    const [s, n] = timeUntil(a, b);
    return new CypherDuration(0, 0, s, n);
  }
  const months = monthsUntil(a, b);
  const days = daysUntil(plus(a, months, 0), b);
  const [s, n] = timeUntil(plus(a, months, days), b);
  return new CypherDuration(months, days, s, n);
}
