import type { Collection } from '../../storage/collection.js';
import { LIVE } from '../../storage/views/point-store.js';
import { valuesAt } from '../../storage/views/payload-paths.js';

/** Qdrant's payload_schema: each declared index with its type, options and how many points have the field. */
function payloadSchema(c: Collection): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const { store } = c;
  for (const [field, index] of c.fieldIndexes) {
    const path = field.split('.');
    let points = 0;
    for (let slot = 0; slot < store.slotCount; slot++) if (store.state[slot] === LIVE && valuesAt(store.payloads[slot] ?? null, path).some((v) => v !== null)) points++;
    out[field] = Object.keys(index.params).length > 0 ? { data_type: index.type, params: { type: index.type, ...index.params }, points } : { data_type: index.type, points };
  }
  return out;
}

/** Collection info as the REST API answers it (Qdrant's fields). */
export function collectionInfo(c: Collection): Record<string, unknown> {
  const { config } = c;
  const vectors = { size: config.size, distance: config.distance };
  const hnsw = { m: config.m, ef_construct: config.efConstruct, m0: config.m0, ml: config.ml };
  return {
    name: c.name,
    status: c.pendingCount > 0 ? 'yellow' : 'green',
    vectors_count: c.store.liveCount,
    points_count: c.store.liveCount,
    indexed_vectors_count: c.index.nodeCount - c.index.removedCount,
    optimizer_status: 'ok',
    segments_count: 1,
    config: {
      vectors,
      hnsw_config: { ...c.settings.hnsw_config, ...hnsw },
      params: { vectors, shard_number: 1, replication_factor: 1, write_consistency_factor: 1, on_disk_payload: false },
      optimizer_config: { indexing_threshold: 0, ...c.settings.optimizer_config },
    },
    payload_schema: payloadSchema(c),
  };
}
