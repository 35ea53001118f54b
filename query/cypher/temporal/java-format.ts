import { civilOf, dayOfWeek, daysInMonth, daysInYear, epochDayOf, floorDiv, NANOS_PER_SECOND, ordinalDay } from './calendar.js';
import { formatOffset } from './format.js';
import { parseDateTime, parseEpochDay, parseLocalDateTime, parseNanoOfDay, parseOffset } from './parse.js';

/**
 * Text read and written by a java.time DateTimeFormatter, given as APOC takes it: the name of
 * one of the ISO formatters (`iso_offset_date_time`) or a pattern (`yyyy-MM-dd HH:mm`). What
 * apoc.date.convertFormat needs: the fields the text holds, then the same fields written anew.
 */
export interface JavaFields {
  epochDay: number | null;
  nanoOfDay: number | null;
  /** Seconds east of UTC. */
  offset: number | null;
  zone: string | null;
}

/** Why text or a format could not be used: the caller words it as its procedure's failure. */
export class JavaFormatError extends Error {}

const ISO_NAMES = new Set(['iso_date', 'iso_local_date', 'iso_date_time', 'iso_local_date_time', 'iso_offset_date_time', 'iso_zoned_date_time', 'iso_instant', 'iso_time', 'iso_local_time', 'iso_offset_time', 'basic_iso_date']);

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const LETTERS = 'yuMLdDEeHhkKmsSnaAXxZVz';

type Part = { letter: string; count: number } | { literal: string };

const pad = (n: number, width: number): string => String(n).padStart(width, '0');
const isoName = (format: string): string | null => (ISO_NAMES.has(format.toLowerCase()) ? format.toLowerCase() : null);

/** A pattern's letters and literals ('quoted' text and any other character stand for themselves). */
function compile(pattern: string): Part[] {
  const parts: Part[] = [];
  for (let i = 0; i < pattern.length; ) {
    const ch = pattern[i]!;
    if (ch === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end < 0) throw new JavaFormatError(`pattern "${pattern}" has an unclosed quote`);
      parts.push({ literal: end === i + 1 ? "'" : pattern.slice(i + 1, end) });
      i = end + 1;
    } else if (/[A-Za-z]/.test(ch)) {
      if (!LETTERS.includes(ch)) throw new JavaFormatError(`pattern letter '${ch}' is not one this server reads (it reads ${LETTERS.split('').join(' ')})`);
      let count = 1;
      while (pattern[i + count] === ch) count++;
      parts.push({ letter: ch, count });
      i += count;
    } else if (ch === '[' || ch === ']' || ch === '{' || ch === '}' || ch === '#') {
      throw new JavaFormatError(`pattern "${pattern}": '${ch}' (optional sections and reserved characters) is not supported`);
    } else {
      parts.push({ literal: ch });
      i++;
    }
  }
  return parts;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const OFFSET = '(Z|[+-]\\d{2}(?::?\\d{2}(?::?\\d{2})?)?)';

function partPattern(p: Part): string {
  if ('literal' in p) return escape(p.literal);
  const digits = (min: number) => `(\\d{${p.count === 1 ? min : p.count},${p.count === 1 ? 2 : p.count}})`;
  switch (p.letter) {
    case 'y':
    case 'u':
      return p.count === 2 ? '(\\d{2})' : '([+-]?\\d{4,9})';
    case 'M':
    case 'L':
      return p.count >= 3 ? `(${MONTHS.map((m) => (p.count === 3 ? m.slice(0, 3) : m)).join('|')})` : digits(1);
    case 'D':
      return '(\\d{1,3})';
    case 'E':
    case 'e':
      return `(${DAYS.map((d) => (p.count === 4 ? d : d.slice(0, 3))).join('|')})`;
    case 'S':
      return `(\\d{${p.count}})`;
    case 'n':
      return '(\\d{1,9})';
    case 'a':
      return '(AM|PM|am|pm)';
    case 'X':
    case 'x':
    case 'Z':
      return OFFSET;
    case 'V':
    case 'z':
      return '([A-Za-z_][A-Za-z0-9_+\\-/]*)';
    default:
      return digits(1);
  }
}

/** The fields of `text` read by the ISO formatter `name` (any ISO-8601 form Cypher reads). */
function readIso(text: string, name: string): JavaFields {
  if (name === 'basic_iso_date') {
    const m = /^(\d{8})(Z|[+-]\d{4})?$/.exec(text);
    if (!m) throw new JavaFormatError(`"${text}" is not a basic ISO date (yyyyMMdd)`);
    return { epochDay: parseEpochDay(m[1]!), nanoOfDay: null, offset: m[2] ? parseOffset(m[2]) : null, zone: null };
  }
  if (text.includes('T')) {
    if (/(Z|[+-]\d{2}(:?\d{2})?|\])$/.test(text)) {
      const dt = parseDateTime(text);
      return { epochDay: dt.epochDay, nanoOfDay: dt.nanoOfDay, offset: dt.offsetSeconds, zone: dt.zone };
    }
    const local = parseLocalDateTime(text);
    return { epochDay: local.epochDay, nanoOfDay: local.nanoOfDay, offset: null, zone: null };
  }
  if (name.endsWith('time') && !name.includes('date')) {
    const m = /^(.*?)(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text)!;
    return { epochDay: null, nanoOfDay: parseNanoOfDay(m[1]!), offset: m[2] ? parseOffset(m[2]) : null, zone: null };
  }
  const m = /^(.*?)(Z|[+-]\d{2}:\d{2})?$/.exec(text)!;
  return { epochDay: parseEpochDay(m[1]!), nanoOfDay: null, offset: m[2] ? parseOffset(m[2]) : null, zone: null };
}

/** java.time's refusal of a field out of its range. */
function check(field: string, value: number, lo: number, hi: number): void {
  if (value < lo || value > hi) throw new JavaFormatError(`Invalid value for ${field} (valid values ${lo} - ${hi}): ${value}`);
}

function readPattern(text: string, pattern: string): JavaFields {
  const parts = compile(pattern);
  const m = new RegExp(`^${parts.map(partPattern).join('')}$`).exec(text);
  if (!m) throw new JavaFormatError(`"${text}" does not read as "${pattern}"`);
  let year: number | null = null;
  let month = 1;
  let day = 1;
  let dayOfYear: number | null = null;
  let hour: number | null = null;
  let pm: boolean | null = null;
  let minute = 0;
  let second = 0;
  let nanos = 0;
  let offset: number | null = null;
  let zone: string | null = null;
  let group = 1;
  for (const p of parts) {
    if ('literal' in p) continue;
    const v = m[group++]!;
    const n = Number(v);
    switch (p.letter) {
      case 'y':
      case 'u':
        year = p.count === 2 ? 2000 + n : n;
        break;
      case 'M':
      case 'L':
        month = p.count >= 3 ? MONTHS.findIndex((name) => name.startsWith(v)) + 1 : n;
        break;
      case 'd':
        day = n;
        break;
      case 'D':
        dayOfYear = n;
        break;
      case 'H':
        check('HourOfDay', n, 0, 23);
        hour = n;
        break;
      case 'k':
        check('ClockHourOfDay', n, 1, 24);
        hour = n % 24;
        break;
      case 'h':
        check('ClockHourOfAmPm', n, 1, 12);
        hour = n % 12;
        break;
      case 'K':
        check('HourOfAmPm', n, 0, 11);
        hour = n;
        break;
      case 'a':
        pm = v.toUpperCase() === 'PM';
        break;
      case 'm':
        minute = n;
        break;
      case 's':
        second = n;
        break;
      case 'S':
      case 'n':
        nanos = Number(v.padEnd(9, '0').slice(0, 9));
        break;
      case 'X':
      case 'x':
      case 'Z':
        offset = parseOffset(v);
        break;
      case 'V':
      case 'z':
        zone = v;
        break;
    }
  }
  if (pm !== null && hour !== null) hour = (hour % 12) + (pm ? 12 : 0);
  check('MonthOfYear', month, 1, 12);
  if (year !== null) check('DayOfMonth', day, 1, daysInMonth(year, month));
  if (year !== null && dayOfYear !== null) check('DayOfYear', dayOfYear, 1, daysInYear(year));
  check('MinuteOfHour', minute, 0, 59);
  check('SecondOfMinute', second, 0, 59);
  const epochDay = year === null ? null : dayOfYear !== null ? epochDayOf(year, 1, 1) + dayOfYear - 1 : epochDayOf(year, month, day);
  const nanoOfDay = hour === null ? null : ((hour * 60 + minute) * 60 + second) * NANOS_PER_SECOND + nanos;
  if (zone !== null) {
    const dt = parseDateTime(`${epochDay === null ? '1970-01-01' : isoDate(epochDay)}T${isoTime(nanoOfDay ?? 0)}[${zone}]`);
    return { epochDay, nanoOfDay, offset: dt.offsetSeconds, zone };
  }
  return { epochDay, nanoOfDay, offset, zone: null };
}

/** The fields `text` holds, read by the ISO formatter or pattern `format`. */
export function readJavaFormat(text: string, format: string): JavaFields {
  const name = isoName(format);
  return name ? readIso(text, name) : readPattern(text, format);
}

function isoDate(epochDay: number): string {
  const { year, month, day } = civilOf(epochDay);
  return `${year > 9999 ? '+' : ''}${year < 0 ? '-' + pad(-year, 4) : pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** java.time's ISO_LOCAL_TIME: HH:mm:ss, then the fraction's digits without trailing zeros. */
function isoTime(nanoOfDay: number): string {
  const seconds = floorDiv(nanoOfDay, NANOS_PER_SECOND);
  const nanos = nanoOfDay - seconds * NANOS_PER_SECOND;
  const text = `${pad(floorDiv(seconds, 3600), 2)}:${pad(floorDiv(seconds % 3600, 60), 2)}:${pad(seconds % 60, 2)}`;
  return nanos === 0 ? text : `${text}.${pad(nanos, 9).replace(/0+$/, '')}`;
}

function need<T>(v: T | null, field: string, format: string): T {
  if (v === null) throw new JavaFormatError(`Unsupported field: ${field} (the text holds no ${field} for "${format}")`);
  return v;
}

function writeIso(f: JavaFields, name: string): string {
  const date = () => isoDate(need(f.epochDay, 'Year', name));
  const time = () => isoTime(need(f.nanoOfDay, 'HourOfDay', name));
  const offset = () => formatOffset(need(f.offset, 'OffsetSeconds', name));
  switch (name) {
    case 'iso_local_date':
      return date();
    case 'iso_date':
      return date() + (f.offset === null ? '' : offset());
    case 'basic_iso_date':
      return date().replace(/-/g, '') + (f.offset === null ? '' : offset().replace(':', ''));
    case 'iso_local_time':
      return time();
    case 'iso_time':
      return time() + (f.offset === null ? '' : offset());
    case 'iso_offset_time':
      return time() + offset();
    case 'iso_local_date_time':
      return `${date()}T${time()}`;
    case 'iso_offset_date_time':
      return `${date()}T${time()}${offset()}`;
    case 'iso_zoned_date_time':
      return `${date()}T${time()}${offset()}${f.zone ? `[${f.zone}]` : ''}`;
    case 'iso_date_time':
      return `${date()}T${time()}${f.offset === null ? '' : offset()}${f.zone ? `[${f.zone}]` : ''}`;
    default: {
      // iso_instant: the same instant in UTC.
      const total = need(f.epochDay, 'Year', name) * 86_400 * NANOS_PER_SECOND + need(f.nanoOfDay, 'HourOfDay', name) - need(f.offset, 'OffsetSeconds', name) * NANOS_PER_SECOND;
      const day = floorDiv(total, 86_400 * NANOS_PER_SECOND);
      return `${isoDate(day)}T${isoTime(total - day * 86_400 * NANOS_PER_SECOND)}Z`;
    }
  }
}

function writePart(p: Part, f: JavaFields, format: string): string {
  if ('literal' in p) return p.literal;
  const civil = () => civilOf(need(f.epochDay, 'Year', format));
  const seconds = () => floorDiv(need(f.nanoOfDay, 'HourOfDay', format), NANOS_PER_SECOND);
  const num = (n: number) => pad(n, p.count);
  switch (p.letter) {
    case 'y':
    case 'u':
      return p.count === 2 ? pad(((civil().year % 100) + 100) % 100, 2) : num(civil().year);
    case 'M':
    case 'L': {
      const month = civil().month;
      return p.count === 3 ? MONTHS[month - 1]!.slice(0, 3) : p.count >= 4 ? MONTHS[month - 1]! : num(month);
    }
    case 'd':
      return num(civil().day);
    case 'D':
      return num(ordinalDay(need(f.epochDay, 'Year', format)));
    case 'E':
    case 'e': {
      const name = DAYS[dayOfWeek(need(f.epochDay, 'Year', format)) - 1]!;
      return p.count >= 4 ? name : name.slice(0, 3);
    }
    case 'H':
      return num(floorDiv(seconds(), 3600));
    case 'k':
      return num(floorDiv(seconds(), 3600) || 24);
    case 'h':
      return num(floorDiv(seconds(), 3600) % 12 || 12);
    case 'K':
      return num(floorDiv(seconds(), 3600) % 12);
    case 'a':
    case 'A':
      return floorDiv(seconds(), 3600) < 12 ? 'AM' : 'PM';
    case 'm':
      return num(floorDiv(seconds() % 3600, 60));
    case 's':
      return num(seconds() % 60);
    case 'S':
      return pad(need(f.nanoOfDay, 'HourOfDay', format) % NANOS_PER_SECOND, 9).slice(0, p.count).padEnd(p.count, '0');
    case 'n':
      return String(need(f.nanoOfDay, 'HourOfDay', format) % NANOS_PER_SECOND);
    case 'X':
    case 'x':
    case 'Z': {
      const offset = need(f.offset, 'OffsetSeconds', format);
      if (offset === 0 && (p.letter === 'X' || (p.letter === 'Z' && p.count === 5))) return 'Z';
      const sign = offset < 0 ? '-' : '+';
      const hh = pad(floorDiv(Math.abs(offset), 3600), 2);
      const mm = pad(floorDiv(Math.abs(offset) % 3600, 60), 2);
      if (p.count === 1 && p.letter !== 'Z') return mm === '00' ? `${sign}${hh}` : `${sign}${hh}${mm}`;
      return p.count === 3 || p.count === 5 ? `${sign}${hh}:${mm}` : `${sign}${hh}${mm}`;
    }
    default:
      return f.zone ?? formatOffset(need(f.offset, 'OffsetSeconds', format));
  }
}

/** `fields` written by the ISO formatter or pattern `format`. */
export function writeJavaFormat(fields: JavaFields, format: string): string {
  const name = isoName(format);
  if (name) return writeIso(fields, name);
  return compile(format)
    .map((p) => writePart(p, fields, format))
    .join('');
}
