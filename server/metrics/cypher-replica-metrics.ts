import { Gauge, type Registry } from 'prom-client';
import type { CypherReplicas } from '../../workers/cypher-replicas.js';
import { followTotal } from './follow-total.js';

/** The Cypher read replicas, read on scrape: how many, the read queries running where, the Bolt cursors they hold, the exports they encode, those they answered, and how many were replaced after stopping. */
export function cypherReplicaMetrics(registry: Registry, replicas: CypherReplicas): void {
  new Gauge({ name: 'vgdb_cypher_workers', help: 'Cypher read replica threads (SERVICE_CYPHER_WORKERS; 0: Cypher runs on the request thread)', registers: [registry] }).set(replicas.size);
  new Gauge({
    name: 'vgdb_cypher_queries_running',
    help: 'Read-only Cypher queries running now, by thread: on the replicas (sent, not yet answered) or on the request thread',
    labelNames: ['thread'],
    registers: [registry],
    collect() {
      this.set({ thread: 'replica' }, replicas.inFlight);
      this.set({ thread: 'request' }, replicas.inPlace);
    },
  });
  new Gauge({
    name: 'vgdb_cypher_worker_cursors_open',
    help: "Bolt reads held open on the Cypher replicas between two PULLs (let go when done, on DISCARD, RESET or a closed connection, or at the query's deadline)",
    registers: [registry],
    collect() {
      this.set(replicas.cursorsOpen);
    },
  });
  new Gauge({
    name: 'vgdb_cypher_worker_exports_open',
    help: 'Exports and collection snapshots being encoded on the Cypher replicas now',
    registers: [registry],
    collect() {
      this.set(replicas.exportsOpen);
    },
  });
  followTotal(registry, 'vgdb_cypher_worker_exports_total', 'Exports and collection snapshots encoded on the Cypher replicas (the rest on the request thread)', () => replicas.exported);
  followTotal(registry, 'vgdb_cypher_worker_queries_total', 'Read-only Cypher queries answered by the Cypher replicas', () => replicas.answered);
  followTotal(registry, 'vgdb_cypher_worker_restarts_total', 'Cypher replicas replaced after stopping (their queries answered 500)', () => replicas.replaced);
}
