import { badRequest } from '../errors.js';
import type { CollectionConfig, CollectionSettings } from '../events/types.js';

/**
 * Qdrant's on_disk of a dense vector, as a collection keeps it: the settings group `vectors`
 * maps a vector's name ("" for the unnamed one) to {on_disk: boolean}. It is set on create (the
 * unnamed vector's; a named vector's create-time on_disk is its config's) and by PATCH
 * {"vectors": {name: {on_disk}}}, so one collection_settings entry moves floats in or out of RAM,
 * and snapshots and exports keep it with the other settings.
 */
export const VECTORS_GROUP = 'vectors';

/** Whether the dense vector `name` keeps its floats on disk: its setting, else its config's on_disk (false for the unnamed one). */
export function onDiskOf(config: CollectionConfig, settings: CollectionSettings, name: string): boolean {
  const given = settings[VECTORS_GROUP]?.[name] as { on_disk?: unknown } | null | undefined;
  if (typeof given?.on_disk === 'boolean') return given.on_disk;
  return name === '' ? false : (config.named?.[name]?.onDisk ?? false);
}

/** A 400 naming the field for a vectors group that names no dense vector of `config` or holds anything but {on_disk: boolean}. */
export function checkOnDiskSettings(config: CollectionConfig, settings: CollectionSettings): void {
  const group = settings[VECTORS_GROUP];
  if (group === undefined) return;
  for (const [name, given] of Object.entries(group)) {
    const where = `vectors${name === '' ? '[""]' : `.${name}`}`;
    if (config.multi?.[name]) throw badRequest(`${where}: "${name}" is a multivector, whose matrices live in RAM here: on_disk cannot be set on it`);
    if (!(name === '' ? config.size > 0 : config.named?.[name] !== undefined)) throw badRequest(`${where}: the collection has no dense vector named "${name}"`);
    if (typeof given !== 'object' || given === null || Array.isArray(given)) throw badRequest(`${where} must be an object {on_disk}`);
    for (const key of Object.keys(given)) if (key !== 'on_disk') throw badRequest(`${where}.${key} cannot be changed here: only on_disk can`);
    if (typeof (given as { on_disk?: unknown }).on_disk !== 'boolean') throw badRequest(`${where}.on_disk must be true or false`);
  }
}
