import { Gauge, type Registry } from 'prom-client';
import type { Collection } from '../../storage/collection.js';
import type { Engine } from '../../storage/engine/engine.js';

/** Per-collection sizes, read from the views when Prometheus scrapes. */
export function collectionMetrics(registry: Registry, engine: Engine): void {
  const perCollection = (name: string, help: string, value: (c: Collection) => number): void => {
    new Gauge({
      name,
      help,
      labelNames: ['collection'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const c of engine.collections.values()) this.set({ collection: c.name }, value(c));
      },
    });
  };
  perCollection('vgdb_collection_points', 'Points in the collection', (c) => c.store.liveCount);
  perCollection('vgdb_collection_vectors', 'Points in the collection that have a vector', (c) => c.store.liveVectors);
  perCollection('vgdb_collection_index_backlog', 'Points waiting for the background indexer to link them into the HNSW graph', (c) => c.pendingCount);
}
