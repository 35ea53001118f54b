import type { Payload } from '../events/types.js';
import { dropPropertyTypes } from '../property-types.js';

/**
 * Payload edits for Qdrant's set and delete of payload keys, on copies: stored payloads are
 * replaced, never changed in place (an export in progress holds the old object). A top-level
 * key they change loses the Cypher type its old value had (storage/property-types.ts).
 */

const isObject = (v: unknown): v is Payload => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `payload` with `values` merged into it, or into the object at `key` (dotted; made, or replacing a non-object there). */
export function setPayloadAt(payload: Payload, values: Payload, key: string | null): Payload {
  if (key === null) return dropPropertyTypes({ ...payload, ...values }, Object.keys(values));
  const [head, ...rest] = key.split('.');
  const inner = Object.hasOwn(payload, head!) && isObject(payload[head!]) ? (payload[head!] as Payload) : {};
  return dropPropertyTypes({ ...payload, [head!]: rest.length === 0 ? { ...inner, ...values } : setPayloadAt(inner, values, rest.join('.')) }, [head!]);
}

/** `payload` without the key at a dotted path (unchanged when it is not there). */
export function deletePayloadAt(payload: Payload, key: string): Payload {
  if (Object.hasOwn(payload, key)) {
    const { [key]: _gone, ...rest } = payload;
    return dropPropertyTypes(rest, [key]);
  }
  const dot = key.indexOf('.');
  if (dot < 0) return payload;
  const head = key.slice(0, dot);
  if (!Object.hasOwn(payload, head) || !isObject(payload[head])) return payload;
  return dropPropertyTypes({ ...payload, [head]: deletePayloadAt(payload[head] as Payload, key.slice(dot + 1)) }, [head]);
}
