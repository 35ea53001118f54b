import { NANOS_PER_SECOND } from './calendar.js';
import { epochSecondOf } from './fields.js';
import type { TemporalOrDuration } from './types.js';

/**
 * Order and equality of temporal values, as Neo4j (java.time's compareTo and equals): values of
 * different kinds are not comparable; a Time or DateTime orders by its instant, then its local
 * value (then zone name), and equals another only with the same local value and offset (and
 * zone). Durations are equal part for part and have no order.
 */
export function compareTemporal(a: TemporalOrDuration, b: TemporalOrDuration): number | null {
  if (a.kind !== b.kind || a.kind === 'duration' || b.kind === 'duration') return null;
  switch (a.kind) {
    case 'date':
      return a.epochDay - (b as typeof a).epochDay;
    case 'localtime':
      return a.nanoOfDay - (b as typeof a).nanoOfDay;
    case 'localdatetime': {
      const o = b as typeof a;
      return a.epochDay - o.epochDay || a.nanoOfDay - o.nanoOfDay;
    }
    case 'time': {
      const o = b as typeof a;
      const utc = (t: typeof a) => t.nanoOfDay - t.offsetSeconds * NANOS_PER_SECOND;
      return utc(a) - utc(o) || a.nanoOfDay - o.nanoOfDay;
    }
    case 'datetime': {
      const o = b as typeof a;
      const instant = epochSecondOf(a.epochDay, a.nanoOfDay, a.offsetSeconds) - epochSecondOf(o.epochDay, o.nanoOfDay, o.offsetSeconds);
      const byInstant = instant || (a.nanoOfDay % NANOS_PER_SECOND) - (o.nanoOfDay % NANOS_PER_SECOND);
      if (byInstant) return byInstant;
      const byLocal = a.epochDay - o.epochDay || a.nanoOfDay - o.nanoOfDay;
      if (byLocal) return byLocal;
      const za = a.zone ?? '';
      const zb = o.zone ?? '';
      return za < zb ? -1 : za > zb ? 1 : 0;
    }
  }
}

export function temporalEquals(a: TemporalOrDuration, b: TemporalOrDuration): boolean {
  if (a.kind === 'duration' || b.kind === 'duration') {
    if (a.kind !== 'duration' || b.kind !== 'duration') return false;
    return a.months === b.months && a.days === b.days && a.exactSeconds === b.exactSeconds && a.nanos === b.nanos;
  }
  return compareTemporal(a, b) === 0;
}

/** The rank of each kind in ORDER BY across kinds (openCypher: DateTime, LocalDateTime, Date, Time, LocalTime, Duration). */
export const KIND_ORDER: Record<TemporalOrDuration['kind'], number> = { datetime: 0, localdatetime: 1, date: 2, time: 3, localtime: 4, duration: 5 };

/** A total order for ORDER BY: by kind, then as compareTemporal; durations by their parts. */
export function orderTemporal(a: TemporalOrDuration, b: TemporalOrDuration): number {
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  if (a.kind === 'duration') {
    const o = b as typeof a;
    return a.months - o.months || a.days - o.days || Number(a.exactSeconds - o.exactSeconds) || a.nanos - o.nanos;
  }
  return compareTemporal(a, b)!;
}
