import type { Payload } from './events/types.js';

/**
 * Cypher property values that JSON cannot tell apart from others: temporal values (kept as
 * their ISO-8601 text), whole floats (kept as JSON numbers, which read back as integers),
 * integers beyond 2^53 (kept as their decimal text, which a JSON number would round),
 * points (kept as {lon, lat} or {x, y} objects) and byte arrays (kept as base64 text).
 * Their types ride on the payload under a symbol key: JSON.stringify, Object.keys/entries and
 * the payload index never see it, so REST and Qdrant readers get the plain JSON payload, and
 * a copy made with spread keeps it. The codecs write it after the payload's JSON
 * (codec/payload-text.ts); Qdrant's payload edits drop the types of the keys they change.
 */
export const PROPERTY_TYPES = Symbol('property types');

export const PROPERTY_TYPE_NAMES = ['float', 'integer', 'date', 'localtime', 'time', 'localdatetime', 'datetime', 'duration', 'point', 'bytes'] as const;
/** The type of a property's value, or of every element of a list value. */
export type PropertyType = (typeof PROPERTY_TYPE_NAMES)[number];
export type PropertyTypes = Readonly<Record<string, PropertyType>>;

type Typed = Payload & { [PROPERTY_TYPES]?: PropertyTypes };

export const isPropertyType = (v: unknown): v is PropertyType => typeof v === 'string' && (PROPERTY_TYPE_NAMES as readonly string[]).includes(v);

/** The types a payload's properties carry (undefined: plain JSON values only). */
export function propertyTypesOf(p: Payload): PropertyTypes | undefined {
  return (p as Typed)[PROPERTY_TYPES];
}

/** Sets (an empty map: removes) the types of a payload the caller has just made. */
export function setPropertyTypes(p: Payload, types: PropertyTypes): Payload {
  if (Object.keys(types).length === 0) delete (p as Typed)[PROPERTY_TYPES];
  else Object.defineProperty(p, PROPERTY_TYPES, { value: types, enumerable: true, writable: true, configurable: true });
  return p;
}

/** `p` (a fresh copy the caller owns) without the types of `keys`, whose values changed. */
export function dropPropertyTypes(p: Payload, keys: Iterable<string>): Payload {
  const types = propertyTypesOf(p);
  if (types === undefined) return p;
  const kept: Record<string, PropertyType> = { ...types };
  for (const k of keys) delete kept[k];
  return setPropertyTypes(p, kept);
}
