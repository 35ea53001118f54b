import type { FunctionDef } from '../functions.js';
import { floorDiv, floorMod, SECONDS_PER_DAY } from '../temporal/calendar.js';
import { JavaFormatError, readJavaFormat, writeJavaFormat, type JavaFields } from '../temporal/java-format.js';
import { parseDateTime, parseOffset } from '../temporal/parse.js';
import { checkZone, localOf, offsetAt, offsetForLocal } from '../temporal/zones.js';
import type { Value } from '../values.js';
import { apocFunction, given, integerArg, stringArg } from './args.js';

/** apoc.date's epoch functions, as APOC 5 computes them: times are whole numbers of a unit since 1970-01-01T00:00Z; the zone is UTC unless one is named. */

const MS_PER_UNIT: Record<string, number> = {
  ms: 1, milli: 1, millis: 1, milliseconds: 1,
  s: 1000, second: 1000, seconds: 1000,
  m: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hour: 3_600_000, hours: 3_600_000,
  d: 86_400_000, day: 86_400_000, days: 86_400_000,
};

const DEFAULT_FORMAT = 'yyyy-MM-dd HH:mm:ss';

function unitMs(unit: Value | undefined, fail: (m: string) => Error): number {
  const name = given(unit) ? stringArg(unit, fail) : 'ms';
  const ms = Object.hasOwn(MS_PER_UNIT, name.toLowerCase()) ? MS_PER_UNIT[name.toLowerCase()] : undefined;
  if (ms === undefined) throw fail(`The unit: ${name} is not correct: use ms, s, m, h or d`);
  return ms;
}

/** A zone name or an offset such as +02:00; '' and null are UTC. */
function zoneOf(timezone: Value | undefined, fail: (m: string) => Error): { offsetAt: (epochSecond: number) => number; forLocal: (localSecond: number) => number; name: string | null } {
  const zone = given(timezone) ? stringArg(timezone, fail) : '';
  if (zone === '' || zone === 'UTC' || zone === 'Z') return { offsetAt: () => 0, forLocal: () => 0, name: zone === '' ? null : zone };
  if (/^[+-]\d/.test(zone)) {
    const offset = parseOffset(zone);
    return { offsetAt: () => offset, forLocal: () => offset, name: null };
  }
  checkZone(zone);
  return { offsetAt: (s) => offsetAt(zone, s), forLocal: (s) => offsetForLocal(zone, s), name: zone };
}

/** The instant `ms` as the fields of a local date and time in the zone. */
function fieldsAt(ms: number, timezone: Value | undefined, fail: (m: string) => Error): JavaFields {
  const zone = zoneOf(timezone, fail);
  const second = floorDiv(ms, 1000);
  const offset = zone.offsetAt(second);
  const { epochDay, secondOfDay } = localOf(second, offset);
  return { epochDay, nanoOfDay: secondOfDay * 1e9 + floorMod(ms, 1000) * 1e6, offset, zone: zone.name };
}

function javaFormat<T>(fail: (m: string) => Error, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof JavaFormatError) throw fail(e.message);
    throw e;
  }
}

function format([time, unit, pattern, timezone]: Value[], fail: (m: string) => Error): Value {
  if (!given(time)) return null;
  const ms = integerArg(time, fail) * unitMs(unit, fail);
  return javaFormat(fail, () => writeJavaFormat(fieldsAt(ms, timezone, fail), given(pattern) ? stringArg(pattern, fail) : DEFAULT_FORMAT));
}

function parse([text, unit, pattern, timezone]: Value[], fail: (m: string) => Error): Value {
  if (!given(text) || text === '') return null;
  const fields = javaFormat(fail, () => readJavaFormat(stringArg(text, fail), given(pattern) ? stringArg(pattern, fail) : DEFAULT_FORMAT));
  const local = (fields.epochDay ?? 0) * SECONDS_PER_DAY + Math.floor((fields.nanoOfDay ?? 0) / 1e9);
  const offset = fields.offset ?? zoneOf(timezone, fail).forLocal(local);
  const ms = (local - offset) * 1000 + Math.floor(((fields.nanoOfDay ?? 0) % 1e9) / 1e6);
  return Math.trunc(ms / unitMs(unit, fail));
}

export const APOC_DATE_FUNCTIONS: Record<string, FunctionDef> = Object.fromEntries([
  apocFunction('apoc.date.format', 1, 4, format),
  apocFunction('apoc.date.parse', 1, 4, parse),
  apocFunction('apoc.date.currentTimestamp', 0, 0, () => Date.now()),
  apocFunction('apoc.date.toISO8601', 1, 2, ([time, unit], fail) => format([time ?? null, unit ?? null, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"], fail)),
  apocFunction('apoc.date.fromISO8601', 1, 1, ([text], fail) => {
    if (!given(text)) return null;
    const dt = parseDateTime(stringArg(text, fail));
    return (dt.epochDay * SECONDS_PER_DAY - dt.offsetSeconds) * 1000 + Math.floor(dt.nanoOfDay / 1e6);
  }),
]);
