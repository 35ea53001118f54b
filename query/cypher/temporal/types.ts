import { floorDiv, floorMod, NANOS_PER_SECOND } from './calendar.js';

/**
 * Cypher's temporal values. Dates are day numbers (days since 1970-01-01), times of day are
 * nanoseconds since midnight (below 2^53), offsets are seconds east of UTC. A DateTime keeps
 * its local date and time at its offset, and the zone name it was made in (null: a fixed offset).
 */
export class CypherDate {
  readonly kind = 'date';
  constructor(readonly epochDay: number) {}
}

export class CypherLocalTime {
  readonly kind = 'localtime';
  constructor(readonly nanoOfDay: number) {}
}

export class CypherTime {
  readonly kind = 'time';
  constructor(
    readonly nanoOfDay: number,
    readonly offsetSeconds: number,
  ) {}
}

export class CypherLocalDateTime {
  readonly kind = 'localdatetime';
  constructor(
    readonly epochDay: number,
    readonly nanoOfDay: number,
  ) {}
}

export class CypherDateTime {
  readonly kind = 'datetime';
  constructor(
    readonly epochDay: number,
    readonly nanoOfDay: number,
    readonly offsetSeconds: number,
    readonly zone: string | null,
  ) {}
}

/**
 * A duration as Cypher keeps it: months, days, seconds and nanoseconds apart (a month or a day
 * has no fixed length), nanoseconds normalised into [0, 1e9) with the seconds carrying the sign.
 * The seconds are a 64-bit integer, as in Neo4j: `exactSeconds` holds them exactly (a duration
 * between the TCK's extreme dates passes 2^53 seconds); `seconds` is the same as a double, for
 * the arithmetic that works in doubles anyway (fractions, dates, which stay far below 2^53).
 */
export class CypherDuration {
  readonly kind = 'duration';
  readonly exactSeconds: bigint;
  readonly seconds: number;
  readonly nanos: number;
  constructor(
    readonly months: number,
    readonly days: number,
    seconds: number | bigint,
    nanos: number,
  ) {
    this.exactSeconds = BigInt(seconds) + BigInt(floorDiv(nanos, NANOS_PER_SECOND));
    this.seconds = Number(this.exactSeconds);
    this.nanos = floorMod(nanos, NANOS_PER_SECOND);
  }
}

export type Temporal = CypherDate | CypherLocalTime | CypherTime | CypherLocalDateTime | CypherDateTime;
export type TemporalOrDuration = Temporal | CypherDuration;

export function isTemporal(v: unknown): v is TemporalOrDuration {
  return v instanceof CypherDate || v instanceof CypherLocalTime || v instanceof CypherTime || v instanceof CypherLocalDateTime || v instanceof CypherDateTime || v instanceof CypherDuration;
}

/** The Cypher type name, as typeName() and errors say it. */
export function temporalTypeName(v: TemporalOrDuration): string {
  switch (v.kind) {
    case 'date':
      return 'Date';
    case 'localtime':
      return 'LocalTime';
    case 'time':
      return 'Time';
    case 'localdatetime':
      return 'LocalDateTime';
    case 'datetime':
      return 'DateTime';
    case 'duration':
      return 'Duration';
  }
}
