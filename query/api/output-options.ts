import { badRequest } from '../../storage/errors.js';
import { isObject, optionalBool, type JsonObject } from './fields.js';

/** Which payload keys a response carries: all, none, only some, or all but some (Qdrant's with_payload). */
export type PayloadSelector = boolean | { include: string[] } | { exclude: string[] };

export interface OutputOptions {
  withPayload: PayloadSelector;
  withVector: boolean;
}

function stringList(raw: unknown, where: string): string[] {
  if (!Array.isArray(raw) || !raw.every((k) => typeof k === 'string')) throw badRequest(`${where} must be an array of payload keys`);
  return raw as string[];
}

export function outputOptions(obj: JsonObject): OutputOptions {
  const raw = obj.with_payload;
  let payload: PayloadSelector = true;
  if (typeof raw === 'boolean') payload = raw;
  else if (Array.isArray(raw)) payload = { include: stringList(raw, 'with_payload') };
  else if (isObject(raw) && 'include' in raw) payload = { include: stringList(raw.include, 'with_payload.include') };
  else if (isObject(raw) && 'exclude' in raw) payload = { exclude: stringList(raw.exclude, 'with_payload.exclude') };
  else if (raw !== undefined && raw !== null) throw badRequest('with_payload must be a boolean, a list of keys, or {"include"|"exclude": [keys]}');
  return { withPayload: payload, withVector: optionalBool(obj, 'with_vector', false) };
}
