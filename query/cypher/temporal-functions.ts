import { runtimeError } from './errors.js';
import { isNumber, numberOf } from './numbers.js';
import type { EvalContext } from './evaluate.js';
import type { FunctionDef } from './functions.js';
import { durationBetween, type BetweenUnit } from './temporal/between.js';
import { convertTemporal, dateTimeFromEpoch, dateTimeFromEpochMillis, temporalFromMap, type TargetKind } from './temporal/construct.js';
import { currentTemporal } from './temporal/current.js';
import { durationOf, type DurationParts } from './temporal/duration.js';
import { TemporalError } from './temporal/errors.js';
import { parseDate, parseDateTime, parseDuration, parseLocalDateTime, parseLocalTime, parseTime } from './temporal/parse.js';
import { truncateTemporal } from './temporal/truncate.js';
import { CypherDuration, isTemporal, type Temporal } from './temporal/types.js';
import { isMap, typeName, type MapValue, type Value } from './values.js';

/**
 * Cypher's temporal functions: date(), localtime(), time(), localdatetime(), datetime() and
 * duration() from nothing (the statement's clock), a string, a map or another value; their
 * truncate, statement/transaction/realtime forms; duration.between and friends; epoch forms.
 */

/** The library's errors as the TCK names them. */
function guarded<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof TemporalError) throw runtimeError(err.kind === 'UnknownTimeZone' ? 'ArgumentError' : 'ArgumentError', err.kind === 'UnknownTimeZone' ? 'InvalidArgumentValue' : err.kind, err.message);
    throw err;
  }
}

const badArg = (fn: string, v: Value) => runtimeError('TypeError', 'InvalidArgumentType', `${fn}() cannot take a ${typeName(v)}`);

/** One clock reading per statement: every call in a query sees the same instant. */
function statementTime(ctx: EvalContext): number {
  const c = ctx as EvalContext & { statementTime?: number };
  return (c.statementTime ??= Date.now());
}

const PARSE: Record<TargetKind, (s: string) => Temporal> = {
  date: parseDate,
  localtime: parseLocalTime,
  time: (s) => parseTime(s),
  localdatetime: parseLocalDateTime,
  datetime: (s) => parseDateTime(s),
};

function temporalMaker(kind: TargetKind): FunctionDef {
  return {
    minArgs: 0,
    maxArgs: 1,
    call: ([arg], ctx) => {
      if (arg === undefined) return currentTemporal(kind, statementTime(ctx));
      if (arg === null) return null;
      return guarded(() => {
        if (typeof arg === 'string') return PARSE[kind](arg);
        if (isTemporal(arg) && !(arg instanceof CypherDuration)) return convertTemporal(kind, arg);
        if (isMap(arg)) {
          const map = arg as MapValue;
          const keys = Object.keys(map);
          if (keys.length === 1 && keys[0] === 'timezone' && typeof map.timezone === 'string') return currentTemporal(kind, statementTime(ctx), map.timezone);
          return temporalFromMap(kind, map as Record<string, unknown>, statementTime(ctx));
        }
        throw badArg(kind, arg);
      });
    },
  };
}

function clockForm(kind: TargetKind): FunctionDef {
  return {
    minArgs: 0,
    maxArgs: 1,
    call: (args, ctx) => {
      if (args.length === 0) return currentTemporal(kind, statementTime(ctx));
      const [tz] = args;
      if (tz === null) return null;
      const zone = isMap(tz!) ? (tz as MapValue).timezone : tz;
      if (typeof zone !== 'string') throw badArg(`${kind}.statement`, tz!);
      return guarded(() => currentTemporal(kind, statementTime(ctx), zone));
    },
  };
}

function truncator(kind: TargetKind): FunctionDef {
  return {
    minArgs: 2,
    maxArgs: 3,
    call: ([unit, value, map]) => {
      if (unit === null || value === null) return null;
      if (typeof unit !== 'string') throw badArg(`${kind}.truncate`, unit!);
      if (!isTemporal(value) || value instanceof CypherDuration) throw badArg(`${kind}.truncate`, value!);
      if (map !== undefined && map !== null && !isMap(map)) throw badArg(`${kind}.truncate`, map);
      return guarded(() => truncateTemporal(kind, unit, value, (map ?? {}) as Record<string, unknown>));
    },
  };
}

function between(unit: BetweenUnit, name: string): FunctionDef {
  return {
    minArgs: 2,
    maxArgs: 2,
    call: ([a, b]) => {
      if (a === null || b === null) return null;
      for (const v of [a!, b!]) if (!isTemporal(v) || v instanceof CypherDuration) throw badArg(name, v);
      return guarded(() => durationBetween(a as Temporal, b as Temporal, unit));
    },
  };
}

const DURATION_KEYS = new Set(['years', 'quarters', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds', 'milliseconds', 'microseconds', 'nanoseconds']);

const duration: FunctionDef = {
  minArgs: 1,
  maxArgs: 1,
  call: ([arg]) => {
    if (arg === null) return null;
    if (typeof arg === 'string') return guarded(() => parseDuration(arg));
    if (arg instanceof CypherDuration) return arg;
    if (!isMap(arg)) throw badArg('duration', arg!);
    const parts: DurationParts = {};
    for (const [k, v] of Object.entries(arg as MapValue)) {
      if (!DURATION_KEYS.has(k)) throw runtimeError('ArgumentError', 'InvalidArgumentValue', `${k} is not a duration component`);
      if (v === null) continue;
      if (!isNumber(v)) throw badArg('duration', v);
      parts[k as keyof DurationParts] = numberOf(v);
    }
    return durationOf(parts);
  },
};

const number = (fn: string, v: Value | undefined): number => {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badArg(fn, v ?? null);
  return v;
};

export const TEMPORAL_FUNCTIONS: Record<string, FunctionDef> = {
  duration,
  'duration.between': between('all', 'duration.between'),
  'duration.inmonths': between('months', 'duration.inMonths'),
  'duration.indays': between('days', 'duration.inDays'),
  'duration.inseconds': between('seconds', 'duration.inSeconds'),
  'datetime.fromepoch': {
    minArgs: 2,
    maxArgs: 2,
    call: ([s, n]) => (s === null || n === null ? null : guarded(() => dateTimeFromEpoch(number('datetime.fromepoch', s), number('datetime.fromepoch', n)))),
  },
  'datetime.fromepochmillis': {
    minArgs: 1,
    maxArgs: 1,
    call: ([ms]) => (ms === null ? null : guarded(() => dateTimeFromEpochMillis(number('datetime.fromepochmillis', ms)))),
  },
  // Milliseconds since 1970 by the statement's clock: datetime().epochMillis.
  timestamp: { minArgs: 0, maxArgs: 0, call: (_args, ctx) => statementTime(ctx) },
};

for (const kind of ['date', 'localtime', 'time', 'localdatetime', 'datetime'] as const) {
  TEMPORAL_FUNCTIONS[kind] = temporalMaker(kind);
  TEMPORAL_FUNCTIONS[`${kind}.truncate`] = truncator(kind);
  for (const clock of ['statement', 'transaction', 'realtime']) TEMPORAL_FUNCTIONS[`${kind}.${clock}`] = clockForm(kind);
}
