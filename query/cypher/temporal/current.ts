import { floorDiv, NANOS_PER_SECOND } from './calendar.js';
import { invalid } from './errors.js';
import { dateTimeFromEpochMillis, type TargetKind } from './construct.js';
import { parseOffset } from './parse.js';
import { CypherDate, CypherDateTime, CypherLocalDateTime, CypherLocalTime, CypherTime, type Temporal } from './types.js';
import { checkZone, localOf, offsetAt } from './zones.js';

/**
 * date(), time(), datetime()... with no components: the statement's clock (`nowMs`, one value
 * for the whole statement), in UTC or in the zone named.
 */
export function currentTemporal(kind: TargetKind, nowMs: number, timezone: string | null = null): Temporal {
  const epochSecond = floorDiv(nowMs, 1000);
  let offset = 0;
  let zone: string | null = null;
  if (timezone !== null) {
    if (/^(Z|[+-]\d{2}(:?\d{2}){0,2})$/.test(timezone)) offset = parseOffset(timezone);
    else {
      checkZone(timezone);
      zone = timezone;
      offset = offsetAt(zone, epochSecond);
    }
  }
  const { epochDay, secondOfDay } = localOf(epochSecond, offset);
  const nanoOfDay = secondOfDay * NANOS_PER_SECOND + (nowMs - epochSecond * 1000) * 1_000_000;
  switch (kind) {
    case 'date':
      return new CypherDate(epochDay);
    case 'localtime':
      return new CypherLocalTime(nanoOfDay);
    case 'time':
      return new CypherTime(nanoOfDay, offset);
    case 'localdatetime':
      return new CypherLocalDateTime(epochDay, nanoOfDay);
    case 'datetime':
      return timezone === null ? dateTimeFromEpochMillis(nowMs) : new CypherDateTime(epochDay, nanoOfDay, offset, zone);
    default:
      throw invalid(`no current value of kind ${String(kind)}`);
  }
}
