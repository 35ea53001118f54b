import { badRequest } from '../errors.js';
import type { CollectionSettings } from '../events/types.js';

/**
 * Qdrant's quantization_config as a collection keeps it: the settings group `quantization_config`
 * with the one method chosen and the others null ({scalar: {type: "int8", quantile?, always_ram?},
 * binary: null, product: null}, or {binary: {always_ram?}, scalar: null, ...}), so a settings
 * merge (PATCH) switches methods, and all null (Qdrant's "Disabled") turns it off. It lives with
 * the collection's other settings: one log entry changes it, and snapshots and exports keep it.
 * The codes are a view derived from the float vectors (scalar-quantized.ts, binary-quantized.ts),
 * so they are rebuilt on load rather than stored.
 */
export const QUANTIZATION_GROUP = 'quantization_config';

/** The quantization a collection's settings ask for. */
export type Quantization =
  /** `quantile`: the share of values the int8 range covers, centred (0.5 to 1); null: from the smallest to the largest. */
  | { method: 'scalar'; quantile: number | null; alwaysRam: boolean | null }
  | { method: 'binary'; alwaysRam: boolean | null };

/** The most dimensions int8 codes serve: a squared distance of more could overflow the kernels' i32 sums. */
export const MAX_QUANTIZED_DIMENSION = 32_768;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const WHERE = 'quantization_config';

function checkKeys(given: Record<string, unknown>, allowed: readonly string[], where: string, what: string): void {
  for (const key of Object.keys(given)) if (!allowed.includes(key)) throw badRequest(`${where}.${key} is not a ${what} setting (${allowed.join(', ')})`);
}

function alwaysRamOf(given: Record<string, unknown>, where: string): boolean | null {
  const value = given.always_ram;
  if (value !== undefined && value !== null && typeof value !== 'boolean') throw badRequest(`${where}.always_ram must be true or false`);
  return value ?? null;
}

/** The quantization a collection's settings ask for, or null; a 400 naming the field for anything else. */
export function quantizationOf(settings: CollectionSettings): Quantization | null {
  const group = settings[QUANTIZATION_GROUP];
  if (group === undefined) return null;
  for (const key of Object.keys(group)) {
    if (key !== 'scalar' && key !== 'binary' && key !== 'product') throw badRequest(`${WHERE}.${key} is not a quantization method: use scalar or binary`);
  }
  if (group.product !== undefined && group.product !== null) throw badRequest(`${WHERE}.product quantization is not supported: use {"scalar": {"type": "int8"}} or {"binary": {}}`);
  const chosen = (['scalar', 'binary'] as const).filter((m) => group[m] !== undefined && group[m] !== null);
  if (chosen.length > 1) throw badRequest(`${WHERE} names both scalar and binary: choose one`);
  if (chosen.length === 0) return null;
  const method = chosen[0]!;
  const given = group[method];
  const where = `${WHERE}.${method}`;
  if (method === 'binary') {
    if (!isObject(given)) throw badRequest(`${where} must be an object {always_ram?}`);
    checkKeys(given, ['always_ram'], where, 'binary quantization');
    return { method, alwaysRam: alwaysRamOf(given, where) };
  }
  if (!isObject(given)) throw badRequest(`${where} must be an object {type: "int8", quantile?, always_ram?}`);
  checkKeys(given, ['type', 'quantile', 'always_ram'], where, 'scalar quantization');
  if (given.type !== 'int8') throw badRequest(`${where}.type must be "int8", got ${JSON.stringify(given.type)}`);
  const { quantile } = given;
  if (quantile !== undefined && quantile !== null && (typeof quantile !== 'number' || !(quantile >= 0.5 && quantile <= 1))) {
    throw badRequest(`${where}.quantile must be a number from 0.5 to 1, got ${JSON.stringify(quantile)}`);
  }
  return { method, quantile: typeof quantile === 'number' ? quantile : null, alwaysRam: alwaysRamOf(given, where) };
}

/** The settings `patch` merges into `settings` (apply-event's collection_settings merge). */
export function mergedSettings(settings: CollectionSettings, patch: CollectionSettings): CollectionSettings {
  const next = { ...settings };
  for (const [group, values] of Object.entries(patch)) next[group] = { ...(next[group] ?? {}), ...values };
  return next;
}
