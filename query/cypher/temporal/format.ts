import { civilOf, floorDiv, NANOS_PER_SECOND } from './calendar.js';
import type { CypherDuration, TemporalOrDuration } from './types.js';

/** ISO-8601 text as Neo4j writes it (java.time's toString forms). */

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

export function formatYear(y: number): string {
  if (y > 9999) return `+${y}`;
  if (y < 0) return `-${pad(-y, 4)}`;
  return pad(y, 4);
}

export function formatDate(epochDay: number): string {
  const { year, month, day } = civilOf(epochDay);
  return `${formatYear(year)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** HH:MM, then :SS when seconds or a fraction, the fraction in groups of three digits. */
export function formatTimeOfDay(nanoOfDay: number): string {
  const totalSeconds = floorDiv(nanoOfDay, NANOS_PER_SECOND);
  const nanos = nanoOfDay - totalSeconds * NANOS_PER_SECOND;
  const h = floorDiv(totalSeconds, 3600);
  const m = floorDiv(totalSeconds % 3600, 60);
  const s = totalSeconds % 60;
  let out = `${pad(h, 2)}:${pad(m, 2)}`;
  if (s === 0 && nanos === 0) return out;
  out += `:${pad(s, 2)}`;
  if (nanos === 0) return out;
  if (nanos % 1_000_000 === 0) return `${out}.${pad(nanos / 1_000_000, 3)}`;
  if (nanos % 1000 === 0) return `${out}.${pad(nanos / 1000, 6)}`;
  return `${out}.${pad(nanos, 9)}`;
}

/** Z, or ±HH:MM, with :SS when the offset has seconds (old local mean times). */
export function formatOffset(offsetSeconds: number): string {
  if (offsetSeconds === 0) return 'Z';
  const sign = offsetSeconds < 0 ? '-' : '+';
  const a = Math.abs(offsetSeconds);
  const out = `${sign}${pad(floorDiv(a, 3600), 2)}:${pad(floorDiv(a % 3600, 60), 2)}`;
  return a % 60 === 0 ? out : `${out}:${pad(a % 60, 2)}`;
}

/** Nine digits without trailing zeros, after the point. */
function fraction(nanos: number): string {
  return `.${pad(nanos, 9).replace(/0+$/, '')}`;
}

/** Neo4j's duration text: P, years, months, days, then T, hours, minutes and signed seconds. */
export function formatDuration(d: CypherDuration): string {
  let out = 'P';
  const part = (n: number, unit: string): void => {
    if (n !== 0) out += `${n}${unit}`;
  };
  part(Math.trunc(d.months / 12), 'Y');
  part(d.months % 12, 'M');
  part(d.days, 'D');
  if (d.exactSeconds !== 0n || d.nanos !== 0) {
    let s = d.exactSeconds;
    let n = d.nanos;
    if (s < 0n && n !== 0) {
      s += 1n;
      n -= NANOS_PER_SECOND;
    }
    out += 'T';
    const whole = (x: bigint, unit: string): void => {
      if (x !== 0n) out += `${x}${unit}`;
    };
    whole(s / 3600n, 'H');
    s %= 3600n;
    whole(s / 60n, 'M');
    s %= 60n;
    if (s !== 0n) out += `${s}${n !== 0 ? fraction(Math.abs(n)) : ''}S`;
    else if (n !== 0) out += `${n < 0 ? '-' : ''}0${fraction(Math.abs(n))}S`;
  }
  return out === 'P' ? 'PT0S' : out;
}

export function formatTemporal(v: TemporalOrDuration): string {
  switch (v.kind) {
    case 'date':
      return formatDate(v.epochDay);
    case 'localtime':
      return formatTimeOfDay(v.nanoOfDay);
    case 'time':
      return formatTimeOfDay(v.nanoOfDay) + formatOffset(v.offsetSeconds);
    case 'localdatetime':
      return `${formatDate(v.epochDay)}T${formatTimeOfDay(v.nanoOfDay)}`;
    case 'datetime':
      return `${formatDate(v.epochDay)}T${formatTimeOfDay(v.nanoOfDay)}${formatOffset(v.offsetSeconds)}${v.zone ? `[${v.zone}]` : ''}`;
    case 'duration':
      return formatDuration(v);
  }
}
