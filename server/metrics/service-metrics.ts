import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Middleware } from 'koa';
import type { Engine, EngineObserver } from '../../storage/engine/engine.js';
import type { RouteOf } from '../route-pattern.js';
import { boltMetrics, type BoltMetrics } from './bolt-metrics.js';
import { collectionMetrics } from './collection-metrics.js';
import { httpMetrics } from './http-metrics.js';
import { replayMetrics, type ReplayMetrics } from './replay-metrics.js';
import { snapshotMetrics, type SnapshotMetrics } from './snapshot-metrics.js';
import { writeMetrics } from './write-metrics.js';
import { searchPoolMetrics } from './search-pool-metrics.js';
import type { SearchPool } from '../../workers/search-pool.js';
import { cypherReplicaMetrics } from './cypher-replica-metrics.js';
import { followTotal } from './follow-total.js';
import { filterBitsFailures } from '../../query/filter/filter-bitsets.js';
import type { CypherReplicas } from '../../workers/cypher-replicas.js';
import { jsonParserMetrics } from './json-parser-metrics.js';
import type { JsonParsers } from '../../workers/json-parsers.js';

/** Everything one service instance reports, in its own registry (tests run several in one process). */
export interface ServiceMetrics {
  readonly registry: Registry;
  /** Pass to the engine before it takes writes. */
  readonly engineObserver: EngineObserver;
  readonly snapshots: SnapshotMetrics;
  readonly replay: ReplayMetrics;
  /** Reads the engine's collections on scrape; call once the engine exists. */
  watch(engine: Engine): void;
  /** Counts requests by route and status and times them. */
  requests(routeOf: RouteOf): Middleware;
  /** Counts and times Bolt messages, and reads the open Bolt connections. */
  readonly bolt: BoltMetrics;
  /** Reads the search workers on scrape (null: none run). */
  watchSearchPool(pool: SearchPool | null): void;
  /** Reads the JSON parser threads on scrape. */
  watchJsonParsers(parsers: JsonParsers | null): void;
  /** Reads the Cypher replicas on scrape. */
  watchCypherReplicas(replicas: CypherReplicas): void;
  /** Reads the disk the float files of on-disk vectors take (unlinked, so `du` misses them). */
  watchFloatFiles(files: { diskBytes(): number }): void;
}

export interface ServiceMetricsOptions {
  /** Log lines dropped because stdout could not take them (server/log-output.ts). */
  droppedLogLines?: () => number;
}

export function createServiceMetrics({ droppedLogLines = () => 0 }: ServiceMetricsOptions = {}): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let seen = 0;
  new Counter({
    name: 'vgdb_log_lines_dropped_total',
    help: 'Log lines dropped because stdout could not take them (full disk, nobody reading the pipe)',
    registers: [registry],
    collect() {
      const now = droppedLogLines();
      this.inc(now - seen);
      seen = now;
    },
  });
  followTotal(registry, 'vgdb_filter_bits_failures_total', 'Filters whose kept matches (the bits a filtered walk on a search worker reads) could not be made: their searches walk on the request thread', filterBitsFailures);
  return {
    registry,
    engineObserver: writeMetrics(registry),
    snapshots: snapshotMetrics(registry),
    replay: replayMetrics(registry),
    watch: (engine) => collectionMetrics(registry, engine),
    requests: httpMetrics(registry),
    bolt: boltMetrics(registry),
    watchSearchPool: (pool) => searchPoolMetrics(registry, pool),
    watchCypherReplicas: (replicas) => cypherReplicaMetrics(registry, replicas),
    watchJsonParsers: (parsers) => jsonParserMetrics(registry, parsers),
    watchFloatFiles: (files) =>
      void new Gauge({
        name: 'vgdb_float_files_disk_bytes',
        help: 'Disk taken by the float files of vectors stored on_disk, in <data dir>/floats; they are unlinked while open, so du of the data dir does not count them (df does)',
        registers: [registry],
        collect() {
          this.set(files.diskBytes());
        },
      }),
  };
}
