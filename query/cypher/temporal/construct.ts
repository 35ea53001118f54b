import { daysInMonth, daysInQuarter, daysInYear, epochDayOf, epochDayOfWeekDate, floorDiv, floorMod, NANOS_PER_SECOND, weeksInWeekYear } from './calendar.js';
import { invalid } from './errors.js';
import { dateFields, epochSecondOf, hasDate, hasTime, hasZone, timeFields } from './fields.js';
import { dateTimeOf, parseOffset } from './parse.js';
import { CypherDate, CypherDateTime, CypherLocalDateTime, CypherLocalTime, CypherTime, type Temporal } from './types.js';
import { checkZone, localOf, offsetAt } from './zones.js';

/**
 * Temporal values from a map of components, optionally starting from other temporal values
 * (`date`, `time`, `datetime`) whose fields the map's own keys override — Cypher's "select"
 * construction. A zone given (`timezone`) moves a value that has one to the same instant there,
 * and is attached to one that has none.
 */

export type TemporalMap = Readonly<Record<string, unknown>>;
export type TargetKind = Temporal['kind'];

const DATE_KEYS = ['year', 'month', 'day', 'week', 'dayOfWeek', 'quarter', 'dayOfQuarter', 'ordinalDay'] as const;
const TIME_KEYS = ['hour', 'minute', 'second', 'millisecond', 'microsecond', 'nanosecond'] as const;
const ALLOWED: Record<TargetKind, ReadonlySet<string>> = {
  date: new Set([...DATE_KEYS, 'date', 'datetime']),
  localtime: new Set([...TIME_KEYS, 'time', 'datetime']),
  time: new Set([...TIME_KEYS, 'time', 'datetime', 'timezone']),
  localdatetime: new Set([...DATE_KEYS, ...TIME_KEYS, 'date', 'time', 'datetime']),
  datetime: new Set([...DATE_KEYS, ...TIME_KEYS, 'date', 'time', 'datetime', 'timezone', 'epochSeconds', 'epochMillis']),
};

function int(map: TemporalMap, key: string): number | undefined {
  const v = map[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalid(`${key} must be an integer, got ${String(v)}`);
  return v;
}

function checkRange(value: number, lo: number, hi: number, key: string): number {
  if (value < lo || value > hi) throw invalid(`${key} ${value} is out of range (${lo} to ${hi})`);
  return value;
}

function temporalAt(map: TemporalMap, key: string): Temporal | undefined {
  const v = map[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || !('kind' in v) || (v as { kind: string }).kind === 'duration') throw invalid(`${key} must be a temporal value, got ${String(v)}`);
  return v as Temporal;
}

/** The day a map names, from its date keys over the base day's fields. */
function epochDayFrom(map: TemporalMap, base: number | null): number | null {
  const given = DATE_KEYS.filter((k) => map[k] !== undefined && map[k] !== null);
  if (given.length === 0) return base;
  const b = base === null ? null : dateFields(base);
  const year = int(map, 'year') ?? (map.week !== undefined || map.dayOfWeek !== undefined ? b?.weekYear : b?.year);
  if (year === undefined) throw invalid(`year is required to build a date from ${given.join(', ')}`);
  if (map.week !== undefined || map.dayOfWeek !== undefined) {
    const week = checkRange(int(map, 'week') ?? b?.week ?? 1, 1, weeksInWeekYear(year), 'week');
    const dow = checkRange(int(map, 'dayOfWeek') ?? b?.dayOfWeek ?? 1, 1, 7, 'dayOfWeek');
    return epochDayOfWeekDate(year, week, dow);
  }
  if (map.ordinalDay !== undefined) return epochDayOf(year, 1, 1) + checkRange(int(map, 'ordinalDay')!, 1, daysInYear(year), 'ordinalDay') - 1;
  if (map.quarter !== undefined || map.dayOfQuarter !== undefined) {
    const quarter = checkRange(int(map, 'quarter') ?? b?.quarter ?? 1, 1, 4, 'quarter');
    const dayOfQuarter = checkRange(int(map, 'dayOfQuarter') ?? b?.dayOfQuarter ?? 1, 1, daysInQuarter(year, quarter), 'dayOfQuarter');
    return epochDayOf(year, (quarter - 1) * 3 + 1, 1) + dayOfQuarter - 1;
  }
  if (map.day !== undefined && map.month === undefined && b === null) throw invalid('month is required beside day');
  const month = checkRange(int(map, 'month') ?? b?.month ?? 1, 1, 12, 'month');
  const day = checkRange(int(map, 'day') ?? b?.day ?? 1, 1, daysInMonth(year, month), 'day');
  return epochDayOf(year, month, day);
}

/** The time of day a map names, from its time keys over the base time's fields. */
function nanoOfDayFrom(map: TemporalMap, base: number | null): number | null {
  const given = TIME_KEYS.filter((k) => map[k] !== undefined && map[k] !== null);
  if (given.length === 0) return base;
  const b = base === null ? null : timeFields(base);
  const hour = checkRange(int(map, 'hour') ?? b?.hour ?? 0, 0, 23, 'hour');
  const minute = checkRange(int(map, 'minute') ?? b?.minute ?? 0, 0, 59, 'minute');
  const second = checkRange(int(map, 'second') ?? b?.second ?? 0, 0, 59, 'second');
  const ms = int(map, 'millisecond');
  const us = int(map, 'microsecond');
  const ns = int(map, 'nanosecond');
  let fraction = b?.nanosecond ?? 0;
  if (b !== null && ms === undefined && (us === undefined ? ns !== undefined && ns < 1000 : us < 1000 && (ns === undefined || ns < 1000))) {
    // Over a base, a small microsecond or nanosecond sets the digits below the next unit up (Neo4j's select).
    const keepMillis = Math.floor(fraction / 1_000_000) * 1_000_000;
    if (us !== undefined) return ((hour * 60 + minute) * 60 + second) * NANOS_PER_SECOND + keepMillis + us * 1000 + (ns ?? 0);
    return ((hour * 60 + minute) * 60 + second) * NANOS_PER_SECOND + Math.floor(fraction / 1000) * 1000 + ns!;
  }
  if (ms !== undefined || us !== undefined || ns !== undefined) {
    if (ms !== undefined) checkRange(ms, 0, 999, 'millisecond');
    if (us !== undefined) checkRange(us, 0, ms !== undefined ? 999 : 999_999, 'microsecond');
    if (ns !== undefined) checkRange(ns, 0, ms !== undefined || us !== undefined ? 999 : 999_999_999, 'nanosecond');
    fraction = (ms ?? 0) * 1_000_000 + (us ?? 0) * 1000 + (ns ?? 0);
  }
  return ((hour * 60 + minute) * 60 + second) * NANOS_PER_SECOND + fraction;
}

interface Zone {
  offset: number;
  zone: string | null;
}

/** A `timezone` value: an offset (+01:00, Z) or a zone name. */
function zoneOf(map: TemporalMap): { offset: number | null; zone: string | null } | null {
  const tz = map.timezone;
  if (tz === undefined || tz === null) return null;
  if (typeof tz !== 'string') throw invalid(`timezone must be a string, got ${String(tz)}`);
  if (/^(Z|[+-]\d{2}(:?\d{2}){0,2})$/.test(tz)) return { offset: parseOffset(tz), zone: null };
  checkZone(tz);
  return { offset: null, zone: tz };
}

/** The zone a value has: its offset, and its zone name for a DateTime made in one. */
function zoneOfValue(v: Temporal | undefined): Zone | null {
  if (!v || !hasZone(v)) return null;
  return { offset: v.offsetSeconds, zone: v.kind === 'datetime' ? v.zone : null };
}

/** A date-time moved to the same instant in another zone. */
function sameInstant(epochDay: number, nanoOfDay: number, from: Zone, to: { offset: number | null; zone: string | null }): CypherDateTime {
  const fromDt = dateTimeOf(epochDay, nanoOfDay, from.offset, from.zone);
  const epochSecond = epochSecondOf(fromDt.epochDay, fromDt.nanoOfDay, fromDt.offsetSeconds);
  const offset = to.zone !== null ? offsetAt(to.zone, epochSecond) : to.offset!;
  const { epochDay: d, secondOfDay } = localOf(epochSecond, offset);
  return new CypherDateTime(d, secondOfDay * NANOS_PER_SECOND + (fromDt.nanoOfDay % NANOS_PER_SECOND), offset, to.zone);
}

/** The current offset of a zone name, for a Time made in a named zone (a time of day has no date). */
function currentOffset(zone: string, nowMs: number): number {
  return offsetAt(zone, Math.floor(nowMs / 1000));
}

export function temporalFromMap(kind: TargetKind, map: TemporalMap, nowMs = Date.now()): Temporal {
  for (const key of Object.keys(map)) if (!ALLOWED[kind].has(key)) throw invalid(`${key} is not a component of a ${kind}`);
  const dt = temporalAt(map, 'datetime');
  const dateBase = temporalAt(map, 'date') ?? dt;
  const timeBase = temporalAt(map, 'time') ?? dt;
  if (dateBase && !hasDate(dateBase)) throw invalid(`date must hold a date, got a ${dateBase.kind}`);
  if (timeBase && !hasTime(timeBase)) throw invalid(`time must hold a time, got a ${timeBase.kind}`);
  if (kind === 'datetime' && (map.epochSeconds !== undefined || map.epochMillis !== undefined)) return fromEpoch(map);

  const epochDay = epochDayFrom(map, dateBase && hasDate(dateBase) ? dateBase.epochDay : null);
  const nanoOfDay = nanoOfDayFrom(map, timeBase && hasTime(timeBase) ? timeBase.nanoOfDay : null);
  const baseZone = zoneOfValue(timeBase);
  const wanted = zoneOf(map);

  switch (kind) {
    case 'date':
      if (epochDay === null) throw invalid('a date needs year (or a date to start from)');
      return new CypherDate(epochDay);
    case 'localtime':
      if (nanoOfDay === null) throw invalid('a local time needs hour (or a time to start from)');
      return new CypherLocalTime(nanoOfDay);
    case 'localdatetime':
      if (epochDay === null) throw invalid('a local date time needs year (or a date to start from)');
      return new CypherLocalDateTime(epochDay, nanoOfDay ?? 0);
    case 'time': {
      if (nanoOfDay === null) throw invalid('a time needs hour (or a time to start from)');
      if (baseZone && wanted) {
        const target = wanted.zone !== null ? { offset: currentOffset(wanted.zone, nowMs), zone: null } : wanted;
        const moved = sameInstant(0, nanoOfDay, baseZone, target);
        return new CypherTime(moved.nanoOfDay, moved.offsetSeconds);
      }
      const z = wanted ?? baseZone;
      const offset = z === null ? 0 : z.offset ?? currentOffset(z.zone!, nowMs);
      return new CypherTime(nanoOfDay, offset);
    }
    case 'datetime': {
      if (epochDay === null) throw invalid('a date time needs year (or a date to start from)');
      const nod = nanoOfDay ?? 0;
      if (baseZone && wanted) return sameInstant(epochDay, nod, baseZone, wanted);
      const z = wanted ?? baseZone;
      // A base with a zone name keeps it; its offset is then the zone's at the new local time.
      if (z && z.zone !== null) return dateTimeOf(epochDay, nod, null, z.zone);
      return new CypherDateTime(epochDay, nod, z?.offset ?? 0, null);
    }
  }
}

function fromEpoch(map: TemporalMap): CypherDateTime {
  const seconds = int(map, 'epochSeconds');
  const millis = int(map, 'epochMillis');
  const nanos = int(map, 'nanosecond') ?? 0;
  const totalNanos = seconds !== undefined ? nanos : floorMod(millis!, 1000) * 1_000_000 + nanos;
  const epochSecond = (seconds ?? floorDiv(millis!, 1000)) + floorDiv(totalNanos, NANOS_PER_SECOND);
  const z = zoneOf(map);
  const offset = z === null ? 0 : z.zone !== null ? offsetAt(z.zone, epochSecond) : z.offset!;
  const { epochDay, secondOfDay } = localOf(epochSecond, offset);
  return new CypherDateTime(epochDay, secondOfDay * NANOS_PER_SECOND + floorMod(totalNanos, NANOS_PER_SECOND), offset, z?.zone ?? null);
}

/** datetime.fromepoch(seconds, nanos) and datetime.fromepochmillis(millis), in UTC. */
export function dateTimeFromEpoch(seconds: number, nanos: number): CypherDateTime {
  return fromEpoch({ epochSeconds: seconds, nanosecond: nanos });
}

export function dateTimeFromEpochMillis(millis: number): CypherDateTime {
  return fromEpoch({ epochMillis: millis });
}

/** A temporal value converted to another kind: date(datetime), localtime(time), datetime(date)... */
export function convertTemporal(kind: TargetKind, v: Temporal): Temporal {
  if (kind === 'date' || kind === 'localdatetime' || kind === 'datetime') {
    if (!hasDate(v)) throw invalid(`a ${v.kind} holds no date to make a ${kind} of`);
  } else if (!hasTime(v)) throw invalid(`a ${v.kind} holds no time to make a ${kind} of`);
  if (v.kind === kind) return v;
  const map: Record<string, Temporal> = {};
  if (kind !== 'localtime' && kind !== 'time') map.date = v;
  if (kind !== 'date' && hasTime(v)) map.time = v;
  return temporalFromMap(kind, map);
}
