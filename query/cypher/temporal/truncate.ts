import { dayOfWeek, epochDayOf, epochDayOfWeekDate, floorDiv, NANOS_PER_SECOND } from './calendar.js';
import { invalid } from './errors.js';
import { dateFields, hasDate, hasTime, hasZone } from './fields.js';
import { dateTimeOf, parseOffset } from './parse.js';
import { temporalFromMap, type TargetKind, type TemporalMap } from './construct.js';
import { CypherDate, CypherDateTime, CypherLocalDateTime, CypherLocalTime, CypherTime, type Temporal } from './types.js';
import { checkZone, offsetAt } from './zones.js';

/** X.truncate(unit, value, map?): the value cut down to the unit, then the map's fields set over it. */

const DATE_UNITS = ['millennium', 'century', 'decade', 'year', 'weekYear', 'quarter', 'month', 'week', 'day'] as const;
const TIME_UNITS = ['hour', 'minute', 'second', 'millisecond', 'microsecond'] as const;
const TIME_UNIT_NANOS: Record<(typeof TIME_UNITS)[number], number> = { hour: 3600 * NANOS_PER_SECOND, minute: 60 * NANOS_PER_SECOND, second: NANOS_PER_SECOND, millisecond: 1_000_000, microsecond: 1000 };

function truncateDay(epochDay: number, unit: string): number {
  const f = dateFields(epochDay);
  switch (unit) {
    case 'millennium':
      return epochDayOf(floorDiv(f.year, 1000) * 1000, 1, 1);
    case 'century':
      return epochDayOf(floorDiv(f.year, 100) * 100, 1, 1);
    case 'decade':
      return epochDayOf(floorDiv(f.year, 10) * 10, 1, 1);
    case 'year':
      return epochDayOf(f.year, 1, 1);
    case 'weekYear':
      return epochDayOfWeekDate(f.weekYear, 1, 1);
    case 'quarter':
      return epochDayOf(f.year, (f.quarter - 1) * 3 + 1, 1);
    case 'month':
      return epochDayOf(f.year, f.month, 1);
    case 'week':
      return epochDay - (dayOfWeek(epochDay) - 1);
    default:
      return epochDay;
  }
}

function truncateTime(nanoOfDay: number, unit: string): number {
  if ((DATE_UNITS as readonly string[]).includes(unit)) return 0;
  const step = TIME_UNIT_NANOS[unit as (typeof TIME_UNITS)[number]];
  return nanoOfDay - (nanoOfDay % step);
}

export function truncateTemporal(kind: TargetKind, unit: string, v: Temporal, map: TemporalMap = {}): Temporal {
  const datedKind = kind === 'date' || kind === 'localdatetime' || kind === 'datetime';
  if (!(DATE_UNITS as readonly string[]).includes(unit) && !(TIME_UNITS as readonly string[]).includes(unit)) throw invalid(`"${unit}" is not a unit to truncate to`);
  if (kind === 'date' && (TIME_UNITS as readonly string[]).includes(unit)) throw invalid(`a date cannot be truncated to ${unit}`);
  if (!datedKind && (DATE_UNITS as readonly string[]).includes(unit) && unit !== 'day') throw invalid(`a ${kind} cannot be truncated to ${unit}`);
  if (datedKind && !hasDate(v)) throw invalid(`a ${v.kind} holds no date to truncate into a ${kind}`);
  const epochDay = hasDate(v) ? truncateDay(v.epochDay, unit) : 0;
  const nanoOfDay = hasTime(v) ? truncateTime(v.nanoOfDay, unit) : 0;
  const { timezone, ...fields } = map;
  const localKind: TargetKind = kind === 'datetime' ? 'localdatetime' : kind === 'time' ? 'localtime' : kind;
  const base = localKind === 'date' ? new CypherDate(epochDay) : localKind === 'localtime' ? new CypherLocalTime(nanoOfDay) : new CypherLocalDateTime(epochDay, nanoOfDay);
  const local = Object.keys(fields).length === 0 ? base : temporalFromMap(localKind, { ...(localKind !== 'localtime' ? { date: base } : {}), ...(localKind !== 'date' ? { time: base } : {}), ...fields });
  if (kind !== 'datetime' && kind !== 'time') return local;
  const { offset, zone } = zoneFor(timezone, v);
  const l = local as CypherLocalDateTime | CypherLocalTime;
  if (kind === 'time') return new CypherTime(l.nanoOfDay, offset ?? (zone !== null ? offsetAt(zone, Math.floor(Date.now() / 1000)) : 0));
  const ldt = l as CypherLocalDateTime;
  return zone !== null ? dateTimeOf(ldt.epochDay, ldt.nanoOfDay, null, zone) : new CypherDateTime(ldt.epochDay, ldt.nanoOfDay, offset ?? 0, null);
}

/** The zone a truncated value gets: the map's `timezone`, else the value's own, else UTC. */
function zoneFor(timezone: unknown, v: Temporal): { offset: number | null; zone: string | null } {
  if (timezone !== undefined && timezone !== null) {
    if (typeof timezone !== 'string') throw invalid(`timezone must be a string, got ${String(timezone)}`);
    if (/^(Z|[+-]\d{2}(:?\d{2}){0,2})$/.test(timezone)) return { offset: parseOffset(timezone), zone: null };
    checkZone(timezone);
    return { offset: null, zone: timezone };
  }
  if (hasZone(v)) return v.kind === 'datetime' && v.zone !== null ? { offset: null, zone: v.zone } : { offset: v.offsetSeconds, zone: null };
  return { offset: null, zone: null };
}
