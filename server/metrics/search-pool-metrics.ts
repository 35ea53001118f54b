import { Gauge, type Registry } from 'prom-client';
import type { SearchPool } from '../../workers/search-pool.js';
import { followTotal } from './follow-total.js';

/** The search workers, read on scrape: how many, the graph walks they answered, the vectors they linked, and how many were replaced after stopping. */
export function searchPoolMetrics(registry: Registry, pool: SearchPool | null): void {
  new Gauge({ name: 'vgdb_search_workers', help: 'Search worker threads (SERVICE_WORKERS; 0: searches run on the request thread)', registers: [registry] }).set(pool?.size ?? 0);
  if (!pool) return;
  followTotal(registry, 'vgdb_search_worker_walks_total', 'HNSW graph walks answered by the search workers', () => pool.walks);
  followTotal(registry, 'vgdb_search_walks_in_place_total', 'HNSW graph walks done on the request thread because their request was the only one in flight (SERVICE_WORKERS_IDLE_IN_PLACE)', () => pool.walksInPlace);
  followTotal(registry, 'vgdb_search_worker_linked_total', 'Vectors linked into HNSW graphs by the search workers (background indexing)', () => pool.linked);
  followTotal(registry, 'vgdb_search_worker_restarts_total', 'Search workers replaced after stopping (their walks answered 500)', () => pool.replaced);
}
