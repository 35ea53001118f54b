import { crc32 } from '../../storage/codec/crc32.js';
import type { Collection } from '../../storage/collection.js';
import { exportCollection } from '../../storage/export/export-writer.js';

/**
 * A fingerprint of a collection's content: the CRC and length of its export file, which lists
 * config, settings, payload index declarations, points (id order, vectors, payloads, labels)
 * and edges (id order) byte for byte, followed by what an export leaves out: the aliases that
 * name the collection. The file is written without an operation_id, which is the log's, not
 * the collection's.
 */
export function digestOf(c: Collection): string {
  const aliases = JSON.stringify([...c.aliases].sort());
  const all = Buffer.concat([...exportCollection(c).chunks(), Buffer.from(aliases)]);
  return `${crc32(all).toString(16).padStart(8, '0')}/${all.length}`;
}
