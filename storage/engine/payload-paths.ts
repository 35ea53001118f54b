import type { Payload } from '../events/types.js';
import { dropPropertyTypes } from '../property-types.js';
import { removeAtPath, setAtPath, storedPath } from '../json-path.js';

/**
 * Payload edits for Qdrant's set and delete of payload keys, on copies: stored payloads are
 * replaced, never changed in place (an export in progress holds the old object). Keys are
 * Qdrant's JSON paths (storage/json-path.ts). A top-level key they change loses the Cypher type
 * its old value had (storage/property-types.ts).
 */

/** `payload` with `values` merged into it, or into the object at the path `key`. */
export function setPayloadAt(payload: Payload, values: Payload, key: string | null): Payload {
  if (key === null) return dropPropertyTypes({ ...payload, ...values }, Object.keys(values));
  const path = storedPath(key);
  return dropPropertyTypes(setAtPath(payload, path, values), [(path[0] as { key: string }).key]);
}

/** `payload` without what the path `key` names (unchanged when nothing is there). */
export function deletePayloadAt(payload: Payload, key: string): Payload {
  const path = storedPath(key);
  const head = (path[0] as { key: string }).key;
  if (!Object.hasOwn(payload, head)) return payload;
  return dropPropertyTypes(removeAtPath(payload, path), [head]);
}

const isObject = (v: unknown): v is Payload => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The same edits as log entries written before keys were Qdrant's JSON paths read them (update
 * codes 3 and 5, storage/events/codec.ts): a key split on dots, each part a plain key; a delete
 * removes a top-level key named exactly `key` first. Replaying those entries this way gives the
 * state they were acknowledged with.
 */
export function setPayloadAtDotted(payload: Payload, values: Payload, key: string | null): Payload {
  if (key === null) return setPayloadAt(payload, values, null);
  const [head, ...rest] = key.split('.');
  const inner = Object.hasOwn(payload, head!) && isObject(payload[head!]) ? (payload[head!] as Payload) : {};
  return dropPropertyTypes({ ...payload, [head!]: rest.length === 0 ? { ...inner, ...values } : setPayloadAtDotted(inner, values, rest.join('.')) }, [head!]);
}

export function deletePayloadAtDotted(payload: Payload, key: string): Payload {
  if (Object.hasOwn(payload, key)) {
    const { [key]: _gone, ...rest } = payload;
    return dropPropertyTypes(rest, [key]);
  }
  const dot = key.indexOf('.');
  if (dot < 0) return payload;
  const head = key.slice(0, dot);
  if (!Object.hasOwn(payload, head) || !isObject(payload[head])) return payload;
  return dropPropertyTypes({ ...payload, [head]: deletePayloadAtDotted(payload[head] as Payload, key.slice(dot + 1)) }, [head]);
}
