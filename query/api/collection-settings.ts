import type * as z from 'zod';
import type { CollectionSettings } from '../../storage/events/types.js';
import type { metadata as metadataSchema, optimizersConfig, strictModeConfig, walConfig } from './schemas/collection-settings.js';

/**
 * Qdrant's collection settings as a collection keeps them: one settings group each, merged key by
 * key by PATCH (apply-event's collection_settings), so one log entry sets them, and snapshots and
 * export files keep them with the quantization and on-disk groups.
 *
 * - `params`: shard_number, sharding_method, replication_factor, write_consistency_factor, on_disk_payload, read_fan_out_*
 * - `optimizer_config`, `wal_config`, `strict_mode_config`: Qdrant's configs, as given
 * - `hnsw_config`: the collection's HNSW fields beside m and ef_construct (full_scan_threshold...);
 *   its own m and ef_construct too where the unnamed vector was given others
 * - `vector_params`: per dense vector ("" the unnamed one), {hnsw_config?, datatype?} as given, reported back in its params
 * - `metadata`: {value: the collection's metadata}; a PATCH writes the whole merged object
 */
export const PARAMS_GROUP = 'params';
export const VECTOR_PARAMS_GROUP = 'vector_params';
export const METADATA_GROUP = 'metadata';

type Given = Record<string, unknown>;

/** The fields of `given` that have a value (null reads as absent). */
export const defined = (given: Given): Given => Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined && v !== null));

const HNSW_SHAPE = new Set(['m', 'ef_construct', 'm0', 'ml']);

/** The HNSW fields kept as settings: every given one but those the graph is built with (they are the collection's config). */
export function hnswExtras(given: Given | null | undefined): Given {
  return defined(Object.fromEntries(Object.entries(given ?? {}).filter(([key]) => !HNSW_SHAPE.has(key))));
}

export interface SettingsGiven {
  shard_number?: number | null;
  sharding_method?: 'auto' | null;
  replication_factor?: number | null;
  write_consistency_factor?: number | null;
  on_disk_payload?: boolean | null;
  read_fan_out_factor?: number | null;
  read_fan_out_delay_ms?: number | null;
  wal_config?: z.output<typeof walConfig> | null;
  optimizers_config?: z.output<typeof optimizersConfig> | null;
  strict_mode_config?: z.output<typeof strictModeConfig> | null;
}

/** The settings groups a Create Collection or PATCH body sets (those it gives values for). */
export function settingsOf(given: SettingsGiven): CollectionSettings {
  const out: CollectionSettings = {};
  const params = defined({
    shard_number: given.shard_number,
    sharding_method: given.sharding_method,
    replication_factor: given.replication_factor,
    write_consistency_factor: given.write_consistency_factor,
    on_disk_payload: given.on_disk_payload,
    read_fan_out_factor: given.read_fan_out_factor,
    read_fan_out_delay_ms: given.read_fan_out_delay_ms,
  });
  if (Object.keys(params).length > 0) out[PARAMS_GROUP] = params;
  for (const [group, value] of [['wal_config', given.wal_config], ['optimizer_config', given.optimizers_config], ['strict_mode_config', given.strict_mode_config]] as const) {
    const fields = defined(value ?? {});
    if (Object.keys(fields).length > 0) out[group] = fields;
  }
  return out;
}

/** The metadata group after `given` is merged into `current` (Qdrant's PATCH: an empty object clears it). */
export function metadataSettings(current: CollectionSettings, given: z.output<typeof metadataSchema>): CollectionSettings {
  const before = (current[METADATA_GROUP]?.value ?? {}) as Given;
  return { [METADATA_GROUP]: { value: Object.keys(given).length === 0 ? {} : { ...before, ...given } } };
}

/** The collection's metadata, or undefined when none was ever set. */
export function metadataOf(settings: CollectionSettings): Given | undefined {
  return settings[METADATA_GROUP]?.value as Given | undefined;
}
