import type * as z from 'zod';
import type { CollectionSettings } from '../../storage/events/types.js';
import { QUANTIZATION_GROUP } from '../../storage/views/quantization-config.js';
import type { quantizationConfig } from './schemas/quantization.js';

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

/**
 * The settings a quantization_config body sets: the method given and every other one null, so
 * merged over the collection's settings it replaces what was there (quantization-config.ts).
 */
export function quantizationSettings(given: z.output<typeof quantizationConfig>): CollectionSettings {
  if (given === 'Disabled') return { [QUANTIZATION_GROUP]: { scalar: null, binary: null, product: null } };
  const group: Record<string, unknown> = { scalar: given.scalar ? defined(given.scalar) : null, binary: given.binary ? defined(given.binary) : null, product: null };
  if (given.product !== undefined) group.product = given.product;
  return { [QUANTIZATION_GROUP]: group };
}

/** Collection info's quantization_config: the method in use with its options, or null. */
export function reportedQuantization(settings: CollectionSettings): Record<string, unknown> | null {
  const group = settings[QUANTIZATION_GROUP];
  if (!group) return null;
  const inUse = defined(group);
  return Object.keys(inUse).length > 0 ? inUse : null;
}
