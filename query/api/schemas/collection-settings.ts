import * as z from 'zod';
import { intIn } from './fields.js';

/**
 * Qdrant's collection settings that change nothing in how this single-node server stores or
 * answers (shards, replicas, WAL, optimizer, strict mode limits while it is off, payload storage,
 * index build threads): taken on create and on PATCH with Qdrant's validation, kept in the
 * collection's settings and reported in collection info. What each means here is in the README
 * ("Collection settings").
 */

const UINT32 = 2 ** 32 - 1;
const count = (min: number) => intIn(min, 2 ** 53 - 1);

/** HNSW fields beside m and ef_construct (those shape the graph: schemas/collection.ts). */
export const hnswExtraFields = {
  full_scan_threshold: count(10).nullish(),
  max_indexing_threads: count(0).nullish(),
  payload_m: count(0).nullish(),
  on_disk: z.literal(false).nullish().meta({ description: 'false: HNSW graphs live in RAM here (on_disk true is not supported)' }),
  inline_storage: z.literal(false).nullish().meta({ description: 'false: vectors are not copied into the HNSW graph here (inline_storage true is not supported)' }),
};

/** Qdrant's OptimizersConfigDiff. */
export const optimizersConfig = z
  .strictObject({
    deleted_threshold: z.number().min(0).max(1).nullish().meta({ description: 'a number from 0 to 1' }),
    vacuum_min_vector_number: count(100).nullish(),
    default_segment_number: count(0).nullish(),
    max_segment_size: count(1).nullish(),
    memmap_threshold: count(0).nullish(),
    indexing_threshold: count(0).nullish(),
    flush_interval_sec: count(0).nullish(),
    max_optimization_threads: z.union([z.literal('auto'), count(0)]).nullish().meta({ description: '"auto" or a non-negative integer' }),
    prevent_unoptimized: z.boolean().nullish(),
  })
  .meta({ description: "Qdrant's optimizer settings, kept and reported" });

/** Qdrant's WalConfigDiff. */
export const walConfig = z
  .strictObject({ wal_capacity_mb: count(1).nullish(), wal_segments_ahead: count(0).nullish(), wal_retain_closed: count(1).nullish() })
  .meta({ description: 'an object with any of wal_capacity_mb, wal_segments_ahead, wal_retain_closed' });

const limit = count(0).nullish();

/** Qdrant's StrictModeConfig: its limits are kept while strict mode is off, which is what Qdrant enforces them under too. */
export const strictModeConfig = z
  .strictObject({
    enabled: z.literal(false).nullish().meta({ description: 'false: this server does not enforce strict mode limits (enabled true is not supported)' }),
    max_query_limit: limit,
    max_timeout: limit,
    unindexed_filtering_retrieve: z.boolean().nullish(),
    unindexed_filtering_update: z.boolean().nullish(),
    search_max_hnsw_ef: limit,
    search_allow_exact: z.boolean().nullish(),
    search_max_oversampling: z.number().min(0).nullish().meta({ description: 'a non-negative number' }),
    upsert_max_batchsize: limit,
    search_max_batchsize: limit,
    max_collection_vector_size_bytes: limit,
    read_rate_limit: limit,
    write_rate_limit: limit,
    max_collection_payload_size_bytes: limit,
    max_points_count: limit,
    filter_max_conditions: limit,
    condition_max_size: limit,
    multivector_config: z.record(z.string(), z.strictObject({ max_vectors: limit })).nullish(),
    sparse_config: z.record(z.string(), z.strictObject({ max_length: limit })).nullish(),
    max_payload_index_count: limit,
    max_resident_memory_percent: intIn(1, 100).nullish(),
  })
  .meta({ description: "Qdrant's strict mode settings (kept while enabled is false)" });

export const metadata = z.record(z.string(), z.unknown()).meta({ description: 'a JSON object' });

/** Create Collection's fields beside its vectors, HNSW and quantization settings. */
export const createSettingsFields = {
  shard_number: intIn(1, UINT32).nullish(),
  sharding_method: z.literal('auto').nullish().meta({ description: '"auto" ("custom" needs shard keys, which a single-node server without them does not have)' }),
  replication_factor: intIn(1, UINT32).nullish(),
  write_consistency_factor: intIn(1, UINT32).nullish(),
  on_disk_payload: z.boolean().nullish(),
  wal_config: walConfig.nullish(),
  optimizers_config: optimizersConfig.nullish(),
  strict_mode_config: strictModeConfig.nullish(),
  metadata: metadata.nullish(),
};
