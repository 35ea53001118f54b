import { checkPointId } from '../../storage/engine/validate-event.js';
import { badRequest } from '../../storage/errors.js';

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The request body as an object; an absent body reads as {}. */
export function bodyObject(body: unknown): JsonObject {
  if (body === undefined) return {};
  if (!isObject(body)) throw badRequest('request body must be a JSON object');
  return body;
}

export function optionalInt(obj: JsonObject, key: string, fallback: number, min: number, max: number, where = key): number {
  const v = obj[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw badRequest(`${where} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  return v;
}

export function optionalBool(obj: JsonObject, key: string, fallback: boolean): boolean {
  const v = obj[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw badRequest(`${key} must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

export function optionalNumber(obj: JsonObject, key: string): number | null {
  const v = obj[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw badRequest(`${key} must be a finite number, got ${JSON.stringify(v)}`);
  return v;
}

/** A JSON array of numbers (or, from the browser library, a Float32Array) as float32; range and dimension are checked by the engine. */
export function vectorField(raw: unknown, where: string): Float32Array {
  if (raw instanceof Float32Array || raw instanceof Float64Array) {
    if (raw.length === 0) throw badRequest(`${where} must be a non-empty array of numbers`);
    return Float32Array.from(raw);
  }
  if (!Array.isArray(raw) || raw.length === 0) throw badRequest(`${where} must be a non-empty array of numbers`);
  const out = new Float32Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i];
    if (typeof v !== 'number') throw badRequest(`${where}[${i}] must be a number, got ${JSON.stringify(v)}`);
    out[i] = v;
  }
  return out;
}

/** A point id field; the 400 names the field. */
export function pointIdField(raw: unknown, where: string): number {
  try {
    checkPointId(raw);
  } catch (err) {
    throw badRequest(`${where}: ${(err as Error).message}`);
  }
  return raw;
}
