import { crc32 } from '../../storage/codec/crc32.js';
import type { Collection } from '../../storage/collection.js';
import { exportCollection } from '../../storage/export/export-writer.js';

/**
 * A fingerprint of a collection's content: the CRC and length of its export file, which lists
 * config, points (id order, vectors, payloads, labels) and edges (id order) byte for byte.
 */
export function digestOf(c: Collection): string {
  const all = Buffer.concat([...exportCollection(c).chunks()]);
  return `${crc32(all).toString(16).padStart(8, '0')}/${all.length}`;
}
