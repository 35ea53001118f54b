import type { Payload } from '../../storage/events/types.js';
import { propertyTypesOf, type PropertyType } from '../../storage/property-types.js';
import { runtimeError } from './errors.js';
import { float, int64, isFloat, isIntegral, isNumber, numberOf, WholeFloat, type CypherNumber } from './numbers.js';
import { formatTemporal } from './temporal/format.js';
import { parseDate, parseDateTime, parseDuration, parseLocalDateTime, parseLocalTime, parseTime } from './temporal/parse.js';
import { isTemporal } from './temporal/types.js';
import { bytesFromBase64, bytesToBase64 } from './bytes.js';
import { CypherPoint, pointFromJson, pointJson } from './spatial/point.js';
import { isMap, ownEntry, setEntry, typeName, type MapValue, type Value } from './values.js';

/**
 * Property values between Cypher and the payload. The payload is JSON, so a temporal value is
 * kept as its ISO-8601 text and a float as a JSON number; the type JSON loses (which text is a
 * date, which whole number is a float) is kept beside it (storage/property-types.ts), and a
 * read gives the value back with its type.
 */

const typeError = (message: string) => runtimeError('TypeError', 'InvalidPropertyType', message);

/** A property value as the payload keeps it, and the type to keep beside it (null: JSON says it all). */
export interface Stored {
  json: unknown;
  type: PropertyType | null;
}

const isScalar = (x: Value): boolean =>
  typeof x === 'string' || typeof x === 'boolean' || (isNumber(x) && Number.isFinite(numberOf(x))) || isTemporal(x) || x instanceof CypherPoint || x instanceof Uint8Array;

function jsonOf(x: Value): unknown {
  if (isTemporal(x)) return formatTemporal(x);
  if (x instanceof CypherPoint) return pointJson(x);
  if (x instanceof Uint8Array) return bytesToBase64(x);
  if (typeof x === 'bigint') return String(x);
  return isNumber(x) ? numberOf(x) : x;
}

/** The type a value of this kind needs kept (null: a string, boolean, integer or fractional float reads back as itself). */
function typeOf(x: Value): PropertyType | null {
  if (isTemporal(x)) return x.kind;
  if (x instanceof CypherPoint) return 'point';
  if (x instanceof Uint8Array) return 'bytes';
  if (typeof x === 'bigint') return 'integer';
  return x instanceof WholeFloat ? 'float' : null;
}

/** The type of a list's elements when they all share it (a list of floats: when any of them is whole). */
function elementType(list: Value[]): PropertyType | null {
  if (list.length === 0) return null;
  if (list.every((x) => isNumber(x) && isFloat(x))) return list.some((x) => x instanceof WholeFloat) ? 'float' : null;
  // Integers, some beyond 2^53: all kept as text, so that each reads back exactly.
  if (list.every(isIntegral)) return list.some((x) => typeof x === 'bigint') ? 'integer' : null;
  const first = typeOf(list[0]!);
  return first !== null && first !== 'float' && first !== 'integer' && list.every((x) => typeOf(x) === first) ? first : null;
}

/** The kind of element a stored list holds one of: INTEGER and FLOAT are both numbers (widened to FLOAT together). */
const elementKind = (x: Value): string => (isNumber(x) ? 'number' : x instanceof CypherPoint ? `point ${x.crs}` : (typeOf(x) ?? typeof x));

/**
 * The elements of a list Neo4j would store: one kind of value (INTEGERs mixed with FLOATs
 * become FLOATs, as Neo4j widens them), no null, no list; anything else is Neo4j's TypeError.
 */
function homogeneous(key: string, list: Value[]): Value[] {
  if (list.some((x) => x === null)) throw typeError(`Collections containing null values can not be stored in properties (property "${key}").`);
  if (list.some((x) => Array.isArray(x) || isMap(x))) throw typeError(`Collections containing collections can not be stored in properties (property "${key}").`);
  if (!list.every(isScalar)) return list;
  const kinds = new Set(list.map(elementKind));
  if (kinds.size > 1) {
    const what = [...kinds].every((k) => k.startsWith('point ')) ? 'point values with different CRS' : 'mixed types';
    throw typeError(`Collections containing ${what} can not be stored in properties (property "${key}").`);
  }
  if (kinds.has('number') && list.some(isFloat) && !list.every(isFloat)) return list.map((x) => float(numberOf(x as CypherNumber)));
  return list;
}

/** A scalar or a list of scalars of one kind (as Neo4j allows), ready for the payload; anything else is a TypeError naming the key. */
export function storable(key: string, v: Value): Stored {
  if (isScalar(v)) return { json: jsonOf(v), type: typeOf(v) };
  if (Array.isArray(v)) v = homogeneous(key, v);
  if (Array.isArray(v) && v.every(isScalar)) {
    const type = elementType(v);
    return { json: type === 'integer' ? v.map(String) : v.map(jsonOf), type };
  }
  throw typeError(`property "${key}" cannot hold a ${typeName(v)}${isNumber(v) ? ` (${numberOf(v)})` : ''}: use a string, number, boolean, temporal value, point, byte array or a list of them`);
}

function revive(json: unknown, type: PropertyType): Value {
  if (type === 'float') return typeof json === 'number' ? float(json) : (json as Value);
  if (type === 'point') return pointFromJson(json) ?? (json as Value);
  if (type === 'integer') return (typeof json === 'string' && /^-?\d+$/.test(json) ? int64(BigInt(json)) : null) ?? (json as Value);
  if (typeof json !== 'string') return json as Value;
  switch (type) {
    case 'date':
      return parseDate(json);
    case 'localtime':
      return parseLocalTime(json);
    case 'time':
      return parseTime(json);
    case 'localdatetime':
      return parseLocalDateTime(json);
    case 'datetime':
      return parseDateTime(json);
    case 'duration':
      return parseDuration(json);
    case 'bytes':
      return bytesFromBase64(json) ?? json;
  }
}

/** The Cypher value of a stored property, or undefined when the payload has no such key. */
export function storedProperty(payload: Payload, key: string): Value | undefined {
  const json = ownEntry(payload, key) as Value | undefined;
  const type = json === undefined ? undefined : propertyTypesOf(payload)?.[key];
  if (type === undefined) return json;
  return Array.isArray(json) ? json.map((x) => revive(x, type)) : revive(json, type);
}

/** All stored properties as a Cypher map, each with its type. */
export function storedProperties(payload: Payload): MapValue {
  const types = propertyTypesOf(payload);
  if (types === undefined) return { ...(payload as MapValue) };
  const out: MapValue = {};
  for (const key of Object.keys(payload)) setEntry(out, key, storedProperty(payload, key)!);
  return out;
}
