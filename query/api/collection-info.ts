import type { Collection } from '../../storage/collection.js';

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
    config: { vectors, hnsw_config: hnsw, params: { vectors } },
  };
}
