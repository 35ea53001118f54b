import { badRequest } from '../../storage/errors.js';

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The request body as an object; an absent body reads as {}. */
export function bodyObject(body: unknown): JsonObject {
  if (body === undefined) return {};
  if (!isObject(body)) throw badRequest('request body must be a JSON object');
  return body;
}
