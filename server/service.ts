import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ApplyFailedError } from '../storage/engine/apply-failure.js';
import { DataDirFloatFiles } from '../storage/floats/data-dir-float-files.js';
import { Engine } from '../storage/engine/engine.js';
import { DamagedEntryError } from '../storage/errors.js';
import { LogLossError } from '../storage/log/log-audit.js';
import { SnapshotFiles } from '../storage/snapshot/snapshot-files.js';
import { startBoltServer, type BoltServer } from '../bolt/server.js';
import type { QdrantGrpcServer } from '../qdrant-grpc/server.js';
import { createApp, serviceRateLimiter } from './app.js';
import type { ServiceConfig } from './config.js';
import { createServiceServer } from './listener.js';
import { createServiceMetrics, type ServiceMetricsOptions } from './metrics/service-metrics.js';
import { lossAdvice, openLog } from './open-log.js';
import type { LmdbLog } from '../storage/log/lmdb-log.js';
import { Readiness } from './readiness.js';
import { collectGarbage } from '../storage/floats/collect-garbage.js';
import { Replication } from '../replication/replication.js';
import { acquireSearchPool, releaseSearchPool } from '../workers/process-pool.js';
import { requestsInFlight, severalConnections } from './middleware/in-flight.js';
import { CypherReplicas } from '../workers/cypher-replicas.js';
import { JsonParsers, parserThreadsFor } from '../workers/json-parsers.js';
import { availableParallelism } from 'node:os';

const SHUTDOWN_GRACE_MS = 10_000;
/** How far the high-water mark may trail the writes: a log that loses its tail later loses at most this much unnoticed. */
const MARK_EVERY_MS = 1000;

export interface ServiceOptions extends ServiceMetricsOptions {
  /** The clock the rate limiter reads, in seconds; tests pass a fake one to control time. */
  now?: () => number;
}

export interface RunningService {
  server: Server;
  /** The listener answering in Qdrant's REST dialect; null when SERVICE_QDRANT_PORT=off. */
  qdrantServer: Server | null;
  engine: Engine;
  /** Read replicas over NATS JetStream; null when SERVICE_NATS_URL is unset. */
  replication: Replication | null;
  url: string;
  /** The Qdrant-dialect listener's URL; null when it is off. */
  qdrantUrl: string | null;
  /** The Qdrant gRPC listener's URL (http:// or https://, as Qdrant's gRPC clients take it); null when SERVICE_QDRANT_GRPC_PORT=off. */
  qdrantGrpcUrl: string | null;
  /** The Bolt listener's bolt:// (or bolt+s://) URL and port; null when SERVICE_BOLT_PORT=off. */
  boltUrl: string | null;
  boltPort: number | null;
  /** The Cypher read replicas (SERVICE_CYPHER_WORKERS; started by the first read query). */
  cypher: CypherReplicas;
  /** The threads parsing large bodies of the vector routes (SERVICE_JSON_OFF_THREAD_BYTES); null when off. */
  jsonParsers: JsonParsers | null;
  /** Stops taking connections, lets requests in flight finish, then closes the log. */
  close(): Promise<void>;
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Opens the log, listens, replays the log into the views, then reports ready. */
export async function startService(config: ServiceConfig, logger: Logger, options: ServiceOptions = {}): Promise<RunningService> {
  const metrics = createServiceMetrics(options);
  const snapshotDir = join(config.dataDir, 'snapshots');
  const snapshots = new SnapshotFiles(snapshotDir, (file, reason) => logger.warn({ file, reason }, 'skipping a damaged snapshot'));
  const log = openLog(config, snapshots, logger);
  const replication = config.replication ? new Replication({ ...config.replication, dataDir: config.dataDir }, logger) : null;
  const floatFiles = new DataDirFloatFiles(config.dataDir);
  metrics.watchFloatFiles(floatFiles);
  const engine = new Engine(log, {
    floatFiles,
    ...(replication ? { gate: replication } : {}),
    snapshots,
    snapshotEvery: config.snapshotEvery,
    snapshotEveryBytes: config.snapshotEveryBytes,
    logRetention: config.logRetention,
    logRetentionBytes: config.logRetentionBytes || undefined,
    observe: metrics.engineObserver,
    markEveryMs: MARK_EVERY_MS,
    onMarkFailed: (err) => logger.warn({ err }, 'the high-water mark could not be written'),
    acceptLoss: config.acceptLoss,
    onLoss: ({ from, to, message }) => logger.error({ from, to }, `accepting loss: ${message}`),
    limits: config.writeLimits,
    onApplyFailure: (f) => logger.fatal({ err: f.cause, opId: f.opId, kind: f.kind, collection: f.collection }, `log entry ${f.opId} (${f.kind}) could not be applied: writes are stopped`),
    onSkipped: (opId, note) => logger.warn({ opId, ...note }, `log entry ${opId} (${note.kind}) skipped: set aside by repair --skip`),
    onReplayProgress: (applied, total) => metrics.replay.progress(applied, total),
    onSnapshot: ({ opId, ms, bytes, error }) => {
      metrics.snapshots.record({ ms, bytes, error });
      if (error) logger.error({ err: error, opId }, 'snapshot failed');
      else logger.info({ opId, ms: Math.round(ms), bytes }, 'snapshot written');
    },
  });
  metrics.watch(engine);
  const readiness = new Readiness(engine, replication);
  const rateLimiter = serviceRateLimiter(config, options.now);
  const cypher = new CypherReplicas(engine, config.cypherWorkers, (err) => logger.error({ err }, 'the views could not be sent to a Cypher replica: Cypher runs on the request thread from now on'), config.dataDir);
  metrics.watchCypherReplicas(cypher);
  const jsonParsers = config.jsonOffThreadBytes > 0 ? new JsonParsers(parserThreadsFor(availableParallelism())) : null;
  metrics.watchJsonParsers(jsonParsers);
  const deps = { engine, config, logger, readiness, version: packageVersion(), metrics, rateLimiter, replication, cypher, jsonParsers };
  const listeners: Server[] = [];
  const listen = async (port: number, dialect: 'spec' | 'qdrant'): Promise<Server> => {
    const s = createServiceServer(config, createApp({ ...deps, dialect }).callback());
    listeners.push(s);
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, config.host, () => resolve());
    });
    return s;
  };
  let server: Server;
  let qdrantServer: Server | null = null;
  let bolt: BoltServer | null = null;
  let grpc: QdrantGrpcServer | null = null;
  try {
    server = await listen(config.port, 'spec');
    if (config.qdrantPort !== null) qdrantServer = await listen(config.qdrantPort, 'qdrant');
    // Each gRPC call runs through a Qdrant-dialect app of its own, as a request on the Qdrant port would.
    if (config.qdrantGrpcPort !== null) {
      // Loaded only when served: Qdrant's message descriptors take about 6.5 MB of heap.
      const { startQdrantGrpcServer } = await import('../qdrant-grpc/server.js');
      grpc = await startQdrantGrpcServer(config, createApp({ ...deps, dialect: 'qdrant' }), logger, config.qdrantGrpcPort);
    }
  } catch (err) {
    for (const s of listeners) s.close();
    await grpc?.close(0);
    await log.close();
    throw err;
  }
  const scheme = config.tlsCert ? 'https' : 'http';
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `${scheme}://${host}:${(server.address() as AddressInfo).port}`;
  if (replication) {
    try {
      await prepareReplication(replication, config, url, log, snapshots, logger);
    } catch (err) {
      for (const s of listeners) s.close();
      await grpc?.close(0);
      await replication.close().catch(() => undefined);
      await log.close();
      throw err;
    }
  }
  const started = performance.now();
  let entries: number;
  try {
    entries = await engine.start();
    await replication?.started(engine);
  } catch (err) {
    for (const s of listeners) s.close();
    await grpc?.close(0);
    await replication?.close().catch(() => undefined);
    await log.close();
    if (err instanceof LogLossError) throw new Error(`the log is missing operations that were durable: ${err.message}. ${lossAdvice(config.dataDir)}`);
    if (err instanceof DamagedEntryError) {
      throw new Error(`${err.message}. Operations before ${err.opId} are intact; to drop entry ${err.opId} and everything after it, stop here and run: npm run replay -- repair --data-dir ${config.dataDir} --yes`);
    }
    if (err instanceof ApplyFailedError) {
      throw new Error(`${err.message}. To start without that one entry (every other stays), run: npm run replay -- repair --skip ${err.opId} --data-dir ${config.dataDir} --yes`);
    }
    throw err;
  }
  // What start-up read and let go of (the snapshot's frames, the replayed entries) goes back to
  // the OS before the first request, not at a major collection a quiet server may not reach for long.
  collectGarbage();
  readiness.markReplayed();
  // Bolt has no readiness gate: it listens once the views hold the whole log.
  if (config.boltPort !== null) {
    try {
      bolt = await startBoltServer(engine, config, logger, config.boltPort, options.now, metrics.bolt, cypher);
    } catch (err) {
      for (const s of listeners) s.close();
      await grpc?.close(0);
      await engine.close();
      throw err;
    }
  }
  metrics.replay.finished(entries, performance.now() - started);
  if (engine.lastSnapshotOperationId > 0) metrics.snapshots.loadedFrom(snapshotDir);
  const { port } = server.address() as AddressInfo;
  const qdrantPort = qdrantServer ? (qdrantServer.address() as AddressInfo).port : null;
  logger.info({ entries, ms: Math.round(performance.now() - started), snapshot: engine.lastSnapshotOperationId, lastOperationId: log.lastOperationId }, 'log replayed');
  logger.info({ host: config.host, port, scheme, dataDir: config.dataDir, auth: config.apiKeys.length + config.bearerTokens.length > 0, rateLimit: config.rateLimit }, 'listening');
  if (qdrantPort !== null) logger.info({ host: config.host, port: qdrantPort, scheme, dialect: 'qdrant' }, 'listening (Qdrant REST dialect)');
  if (grpc) logger.info({ host: config.host, port: grpc.port, url: grpc.url }, 'listening (Qdrant gRPC)');
  if (bolt) logger.info({ host: config.host, port: bolt.port, url: bolt.url }, 'listening (Bolt)');

  const searchPool = acquireSearchPool(config.workers);
  if (searchPool) {
    searchPool.inPlaceWhen = config.workersIdleInPlace ? () => requestsInFlight() <= 1 : null;
    searchPool.probeWhen = () => severalConnections();
  }
  metrics.watchSearchPool(searchPool);
  logger.info({ workers: config.workers }, searchPool ? 'search workers started' : 'searches run on the request thread (SERVICE_WORKERS=0)');
  logger.info({ cypherWorkers: config.cypherWorkers }, config.cypherWorkers > 0 ? 'read-only Cypher runs on replicas, started by the first query' : 'Cypher runs on the request thread (SERVICE_CYPHER_WORKERS=0)');
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      const done = Promise.all([...listeners.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))), bolt?.close(), grpc?.close(SHUTDOWN_GRACE_MS)]);
      for (const s of listeners) s.closeIdleConnections();
      const force = setTimeout(() => {
        for (const s of listeners) s.closeAllConnections();
      }, SHUTDOWN_GRACE_MS);
      await done;
      clearTimeout(force);
      await replication?.close().catch((err: unknown) => logger.warn({ err }, 'closing the NATS connection failed'));
      await cypher.close();
      await jsonParsers?.close();
      // The engine first: its last snapshot waits for batches the workers are linking.
      await engine.close();
      await releaseSearchPool(searchPool);
    })());
  return { server, qdrantServer, engine, replication, url, qdrantUrl: qdrantPort === null ? null : `${scheme}://${host}:${qdrantPort}`, qdrantGrpcUrl: grpc?.url ?? null, boltUrl: bolt?.url ?? null, boltPort: bolt?.port ?? null, cypher, jsonParsers, close };
}

/** Before the log is replayed: connect to NATS; a primary publishes what the stream lacks (or finds itself fenced), a new replica bootstraps. */
async function prepareReplication(replication: Replication, config: ServiceConfig, url: string, log: LmdbLog, snapshots: SnapshotFiles, logger: Logger): Promise<void> {
  const r = config.replication!;
  logger.info({ nats: r.natsServers, stream: r.stream, role: r.role, mode: r.mode }, 'connecting to NATS');
  await replication.connect(r.publicUrl ?? url);
  if (replication.isReplica) await replication.prepareReplica(log, snapshots);
  else await replication.preparePrimary(log);
}
