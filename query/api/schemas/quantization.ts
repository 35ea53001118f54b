import * as z from 'zod';
import { QUANTIZATION_GROUP, quantizationOf } from '../../../storage/views/quantization-config.js';
import { explainedBy } from './explainers.js';

/** The most candidates per result a search may ask the quantized walk for. */
export const MAX_OVERSAMPLING = 100;

/** Qdrant's per-search params.quantization. */
export const quantizationParams = z
  .strictObject({
    ignore: z.boolean().nullish(),
    rescore: z.boolean().nullish(),
    oversampling: z.number().min(1).max(MAX_OVERSAMPLING).nullish().meta({ description: `a number from 1 to ${MAX_OVERSAMPLING}` }),
  })
  .meta({ description: 'an object {ignore, rescore, oversampling}' });

const scalar = z
  .strictObject({
    type: z.literal('int8').meta({ description: '"int8"' }),
    quantile: z.number().min(0.5).max(1).nullish().meta({ description: 'a number from 0.5 to 1' }),
    always_ram: z.boolean().nullish(),
  })
  .meta({ description: '{"type": "int8", "quantile"?, "always_ram"?}' });

const binary = z.strictObject({ always_ram: z.boolean().nullish() }).meta({ description: '{"always_ram"?}' });

/**
 * Qdrant's quantization_config on create and PATCH: {scalar: {...}} or {binary: {...}}, or
 * "Disabled" (PATCH) to turn it off. product is taken here so the settings check refuses it by name.
 */
export const quantizationConfig = explainedBy(
  z
    .union([z.literal('Disabled'), z.strictObject({ scalar: scalar.nullish(), binary: binary.nullish(), product: z.unknown().optional() })])
    .meta({ description: '{"scalar": {"type": "int8", "quantile"?, "always_ram"?}}, {"binary": {"always_ram"?}} or "Disabled"' }),
  // The settings check names the field at fault (it throws its 400); a union alone would not say which.
  (_where, value) => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) quantizationOf({ [QUANTIZATION_GROUP]: value as Record<string, unknown> });
    return undefined;
  },
);
