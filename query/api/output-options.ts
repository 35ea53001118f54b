import { badRequest } from '../../storage/errors.js';
import { parseJsonPath, type JsonPath } from '../../storage/json-path.js';

/** Which parts of a payload a response carries: all, none, only some, or all but some (Qdrant's with_payload, by JSON paths). */
export type PayloadSelector = boolean | { include: JsonPath[] } | { exclude: JsonPath[] };

export interface OutputOptions {
  withPayload: PayloadSelector;
  /** All of a point's vectors, none, or those of the names listed ("" is the unnamed vector). */
  withVector: boolean | string[];
}

/** A payload key given as Qdrant's JSON path (a.b, a[0].b, a[].b), refused when it is not one. */
export function payloadPath(key: string, where: string): JsonPath {
  const path = parseJsonPath(key);
  if (path === null) throw badRequest(`${where} "${key}" is not a JSON path: write a.b, a[0].b or a[].b, and quote a key with other characters than letters, digits, _ and - ("my key".b)`);
  return path;
}

const paths = (keys: string[], where: string): JsonPath[] => keys.map((key, i) => payloadPath(key, `${where}[${i}]`));

/** with_payload as the body schemas check it (schemas/fields.ts withPayload). */
type WithPayloadField = boolean | string[] | { include: string[] } | { exclude: string[] };

/** with_payload (default true) and with_vector (default false), already checked by a body schema. */
export function outputOptions(body: { with_payload?: WithPayloadField | null; with_vector?: boolean | string[] | null }): OutputOptions {
  const raw = body.with_payload ?? true;
  const withPayload: PayloadSelector =
    typeof raw === 'boolean' ? raw : Array.isArray(raw) ? { include: paths(raw, 'with_payload') } : 'include' in raw ? { include: paths(raw.include, 'with_payload.include') } : { exclude: paths(raw.exclude, 'with_payload.exclude') };
  return { withPayload, withVector: body.with_vector ?? false };
}
