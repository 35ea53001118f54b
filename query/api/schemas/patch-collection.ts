import * as z from 'zod';
import { intIn } from './fields.js';
import { quantizationConfig } from './quantization.js';

/**
 * Qdrant's PATCH /collections/{name}: the optimizer settings apps send before a bulk load are
 * taken and reported (indexing here always runs in the background, so they change nothing);
 * HNSW and parameter fields only as they already are (a different m or ef_construct would need
 * a rebuild of the index, which this server does not do in place). A dense vector's on_disk
 * may change (the floats move between RAM and a file).
 */
const optimizers = z
  .strictObject({
    deleted_threshold: z.number().min(0).max(1).nullish(),
    vacuum_min_vector_number: intIn(0, 2 ** 31).nullish(),
    default_segment_number: intIn(0, 1024).nullish(),
    max_segment_size: intIn(0, 2 ** 31).nullish(),
    memmap_threshold: intIn(0, 2 ** 31).nullish(),
    indexing_threshold: intIn(0, 2 ** 31).nullish(),
    flush_interval_sec: intIn(0, 2 ** 31).nullish(),
    max_optimization_threads: intIn(0, 1024).nullish(),
  })
  .meta({ description: "Qdrant's optimizer settings, kept and reported" });

export const patchCollectionBody = z
  .strictObject({
    vectors: z
      .record(z.string(), z.strictObject({ on_disk: z.boolean().nullish() }))
      .nullish()
      .meta({ description: 'an object from dense vector names ("" the unnamed one) to {on_disk}: moves the float vectors into a file or back into RAM' }),
    optimizers_config: optimizers.nullish(),
    hnsw_config: z
      .strictObject({ m: intIn(2, 128).nullish(), ef_construct: intIn(4, 4096).nullish(), full_scan_threshold: intIn(0, 2 ** 31).nullish(), max_indexing_threads: intIn(0, 1024).nullish(), on_disk: z.literal(false).nullish() })
      .nullish(),
    quantization_config: quantizationConfig.nullish(),
    params: z.strictObject({ replication_factor: z.literal(1).nullish(), write_consistency_factor: z.literal(1).nullish(), on_disk_payload: z.literal(false).nullish() }).nullish(),
  })
  .meta({ id: 'PatchCollectionBody' });
