import * as z from 'zod';
import { intIn } from './fields.js';
import { quantizationConfig } from './quantization.js';
import { hnswExtraFields, metadata, optimizersConfig, strictModeConfig } from './collection-settings.js';

/**
 * Qdrant's PATCH /collections/{name}: the optimizer, params, strict mode and HNSW extra settings
 * apps send (before a bulk load, say) are taken and reported (collection-settings.ts: they change
 * nothing here), metadata merged; HNSW m and ef_construct only as they already are (a different
 * one would need a rebuild of the index, which this server does not do in place). A dense vector's on_disk
 * may change (the floats move between RAM and a file).
 */
export const patchCollectionBody = z
  .strictObject({
    vectors: z
      .record(z.string(), z.strictObject({ on_disk: z.boolean().nullish() }))
      .nullish()
      .meta({ description: 'an object from dense vector names ("" the unnamed one) to {on_disk}: moves the float vectors into a file or back into RAM' }),
    optimizers_config: optimizersConfig.nullish(),
    hnsw_config: z.strictObject({ m: intIn(2, 128).nullish(), ef_construct: intIn(4, 4096).nullish(), ...hnswExtraFields }).nullish(),
    quantization_config: quantizationConfig.nullish(),
    params: z
      .strictObject({
        replication_factor: intIn(1, 2 ** 32 - 1).nullish(),
        write_consistency_factor: intIn(1, 2 ** 32 - 1).nullish(),
        read_fan_out_factor: intIn(0, 2 ** 32 - 1).nullish().meta({ description: 'an integer from 0 (one node: there are no other replicas to read from)' }),
        read_fan_out_delay_ms: intIn(0, 2 ** 53 - 1).nullish(),
        on_disk_payload: z.boolean().nullish(),
      })
      .nullish(),
    strict_mode_config: strictModeConfig.nullish(),
    metadata: metadata.nullish(),
  })
  .meta({ id: 'PatchCollectionBody' });
