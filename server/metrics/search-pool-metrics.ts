import { Counter, Gauge, type Registry } from 'prom-client';
import type { SearchPool } from '../../workers/search-pool.js';

/** The search workers, read on scrape: how many, the graph walks they answered, the vectors they linked, and how many were replaced after stopping. */
export function searchPoolMetrics(registry: Registry, pool: SearchPool | null): void {
  new Gauge({ name: 'vgdb_search_workers', help: 'Search worker threads (SERVICE_WORKERS; 0: searches run on the request thread)', registers: [registry] }).set(pool?.size ?? 0);
  if (!pool) return;
  const counted = { walks: 0, linked: 0, replaced: 0 };
  new Counter({
    name: 'vgdb_search_worker_walks_total',
    help: 'HNSW graph walks answered by the search workers',
    registers: [registry],
    collect() {
      this.inc(pool.walks - counted.walks);
      counted.walks = pool.walks;
    },
  });
  new Counter({
    name: 'vgdb_search_worker_linked_total',
    help: 'Vectors linked into HNSW graphs by the search workers (background indexing)',
    registers: [registry],
    collect() {
      this.inc(pool.linked - counted.linked);
      counted.linked = pool.linked;
    },
  });
  new Counter({
    name: 'vgdb_search_worker_restarts_total',
    help: 'Search workers replaced after stopping (their walks answered 500)',
    registers: [registry],
    collect() {
      this.inc(pool.replaced - counted.replaced);
      counted.replaced = pool.replaced;
    },
  });
}
