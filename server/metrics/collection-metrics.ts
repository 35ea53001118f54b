import { Gauge, type Registry } from 'prom-client';
import type { Collection } from '../../storage/collection.js';
import type { Engine } from '../../storage/engine/engine.js';
import { LIVE } from '../../storage/views/point-store.js';

function vectorCount(c: Collection): number {
  const { state, hasVector, slotCount } = c.store;
  let n = 0;
  for (let slot = 0; slot < slotCount; slot++) if (state[slot] === LIVE && hasVector[slot] === 1) n++;
  return n;
}

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
  perCollection('vgdb_collection_vectors', 'Points in the collection that have a vector', vectorCount);
  perCollection('vgdb_collection_index_backlog', 'Points waiting for the background indexer to link them into the HNSW graph', (c) => c.pendingCount);
}
