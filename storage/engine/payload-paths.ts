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
