import { crc32 } from '../../storage/codec/crc32.js';
import type { Collection } from '../../storage/collection.js';
import { exportCollection } from '../../storage/export/export-writer.js';

/**
 * A fingerprint of a collection's content: the CRC and length of its export file, which lists
 * config, payload index declarations, points (id order, vectors, payloads, labels) and edges
 * (id order) byte for byte, followed by what an export leaves out: the aliases that name the
 * collection and its settings.
 */
export function digestOf(c: Collection): string {
  const rest = JSON.stringify({ aliases: [...c.aliases].sort(), settings: c.settings });
  const all = Buffer.concat([...exportCollection(c).chunks(), Buffer.from(rest)]);
  return `${crc32(all).toString(16).padStart(8, '0')}/${all.length}`;
}
