import { badRequest } from '../errors.js';
import type { CollectionSettings } from '../events/types.js';

/**
 * Qdrant's quantization_config as a collection keeps it: the settings group `quantization_config`
 * with the one method chosen and the others null ({scalar: {type: "int8", quantile?, always_ram?},
 * binary: null}), so a settings merge (PATCH) switches methods, and {scalar: null, binary: null}
 * (Qdrant's "Disabled") turns it off. It lives with the collection's other settings: one log
 * entry changes it, and snapshots and exports keep it. The codes are a view derived from the float
 * vectors (scalar-quantized.ts), so they are rebuilt on load rather than stored.
 */
export const QUANTIZATION_GROUP = 'quantization_config';

export interface ScalarQuantization {
  /** The share of values the int8 range covers, centred (0.5 to 1); null: from the smallest to the largest. */
  quantile: number | null;
  alwaysRam: boolean | null;
}

/** The most dimensions int8 codes serve: a squared distance of more could overflow the kernels' i32 sums. */
export const MAX_QUANTIZED_DIMENSION = 32_768;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The scalar quantization a collection's settings ask for, or null; a 400 naming the field for anything else. */
export function scalarQuantizationOf(settings: CollectionSettings): ScalarQuantization | null {
  const group = settings[QUANTIZATION_GROUP];
  if (group === undefined) return null;
  const where = 'quantization_config';
  for (const key of Object.keys(group)) {
    if (key !== 'scalar' && key !== 'binary' && key !== 'product') throw badRequest(`${where}.${key} is not a quantization method: use scalar`);
  }
  for (const key of ['binary', 'product']) {
    if (group[key] !== undefined && group[key] !== null) throw badRequest(`${where}.${key} quantization is not supported: use {"scalar": {"type": "int8"}}`);
  }
  const scalar = group.scalar;
  if (scalar === undefined || scalar === null) return null;
  if (!isObject(scalar)) throw badRequest(`${where}.scalar must be an object {type: "int8", quantile?, always_ram?}`);
  for (const key of Object.keys(scalar)) {
    if (key !== 'type' && key !== 'quantile' && key !== 'always_ram') throw badRequest(`${where}.scalar.${key} is not a scalar quantization setting (type, quantile, always_ram)`);
  }
  if (scalar.type !== 'int8') throw badRequest(`${where}.scalar.type must be "int8", got ${JSON.stringify(scalar.type)}`);
  const { quantile } = scalar;
  if (quantile !== undefined && quantile !== null && (typeof quantile !== 'number' || !(quantile >= 0.5 && quantile <= 1))) {
    throw badRequest(`${where}.scalar.quantile must be a number from 0.5 to 1, got ${JSON.stringify(quantile)}`);
  }
  const alwaysRam = scalar.always_ram;
  if (alwaysRam !== undefined && alwaysRam !== null && typeof alwaysRam !== 'boolean') throw badRequest(`${where}.scalar.always_ram must be true or false`);
  return { quantile: typeof quantile === 'number' ? quantile : null, alwaysRam: alwaysRam ?? null };
}

/** The settings `patch` merges into `settings` (apply-event's collection_settings merge). */
export function mergedSettings(settings: CollectionSettings, patch: CollectionSettings): CollectionSettings {
  const next = { ...settings };
  for (const [group, values] of Object.entries(patch)) next[group] = { ...(next[group] ?? {}), ...values };
  return next;
}
