import { CorruptDataError } from '../errors.js';
import type { Payload } from '../events/types.js';
import { isPropertyType, propertyTypesOf, setPropertyTypes, type PropertyType } from '../property-types.js';

/**
 * A payload as stored text: its JSON, then, when its properties carry Cypher types
 * (property-types.ts), a NUL and the JSON map of key -> type. JSON text never holds a bare NUL
 * (JSON.stringify escapes it), so text without one is a plain payload, as every older entry,
 * snapshot and export file has it.
 */
const TYPES_SEPARATOR = '\u0000';

export function payloadText(p: Payload): string {
  const json = JSON.stringify(p);
  const types = propertyTypesOf(p);
  return types === undefined ? json : json + TYPES_SEPARATOR + JSON.stringify(types);
}

/** The payload of payloadText's text; `what` names it in the error when the text is damaged. */
export function parsePayloadText(text: string, what: string): Payload {
  const cut = text.indexOf(TYPES_SEPARATOR);
  try {
    const payload = JSON.parse(cut < 0 ? text : text.slice(0, cut)) as Payload;
    if (cut < 0) return payload;
    const types = JSON.parse(text.slice(cut + 1)) as Record<string, unknown>;
    const checked: Record<string, PropertyType> = {};
    for (const [key, type] of Object.entries(types)) {
      if (!isPropertyType(type)) throw new CorruptDataError(`${what} names an unknown property type ${JSON.stringify(type)} for "${key}"`);
      if (!Object.hasOwn(payload, key)) throw new CorruptDataError(`${what} types a property it does not hold ("${key}")`);
      checked[key] = type;
    }
    return setPropertyTypes(payload, checked);
  } catch (err) {
    if (err instanceof CorruptDataError) throw err;
    throw new CorruptDataError(`${what} is not valid JSON`);
  }
}
