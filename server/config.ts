import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { MAX_SEARCH_WORKERS } from '../workers/search-pool.js';
import { MAX_CYPHER_WORKERS } from '../workers/cypher-replicas.js';
import { QUERY_TIMEOUT_MS } from '../query/cypher/guard.js';
import { DEFAULT_WRITE_LIMITS, MAX_COLLECTIONS_CEILING, MAX_PAYLOAD_DEPTH_CEILING, MAX_POINTS_CEILING, type WriteLimits } from '../storage/engine/write-limits.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace';
const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug', 'trace'];

export interface ServiceConfig {
  host: string;
  port: number;
  /** The port answering in Qdrant's REST dialect (SERVICE_QDRANT_PORT); null: off. */
  qdrantPort: number | null;
  /** The port answering Qdrant's gRPC API (SERVICE_QDRANT_GRPC_PORT, default 6334, Qdrant's own); null: off. */
  qdrantGrpcPort: number | null;
  /** The Bolt port (SERVICE_BOLT_PORT, default 7687; 0: any free port); null: off. */
  boltPort: number | null;
  /** The collection a Bolt client's default database stands for (SERVICE_BOLT_DEFAULT_DB). */
  boltDefaultDb: string;
  dataDir: string;
  logLevel: LogLevel;
  apiKeys: string[];
  bearerTokens: string[];
  rateLimit: boolean;
  tlsCert: string | null;
  tlsKey: string | null;
  /** Largest JSON request body accepted, in bytes. */
  jsonLimit: number;
  /** Bodies of the routes that carry many vectors from this many bytes on are parsed on a parser thread (SERVICE_JSON_OFF_THREAD_BYTES; 0: all on the request thread). */
  jsonOffThreadBytes: number;
  /** Operations between snapshots (0: only at shutdown). */
  snapshotEvery: number;
  /** Log bytes written between snapshots (0: count operations only). */
  snapshotEveryBytes: number;
  /** Log entries kept from before the newest snapshot. */
  logRetention: number;
  /** At most this many bytes of them. */
  logRetentionBytes: number;
  /** Requests taking this many milliseconds or more log at warn. */
  slowMs: number;
  /** GET /metrics answers without credentials. */
  metricsPublic: boolean;
  /** Start even when the log misses operations known durable, logging each loss (SERVICE_ACCEPT_LOSS=1). */
  acceptLoss: boolean;
  /** The memory one Cypher query may build (lists, strings, held rows, its result), in bytes. */
  queryMemoryBytes: number;
  /** How long one Cypher query may run (SERVICE_QUERY_TIMEOUT_MS), in milliseconds. */
  queryTimeoutMs: number;
  /** Search workers (SERVICE_WORKERS, default: the cores, at most MAX_SEARCH_WORKERS); 0: searches run on the request thread. */
  workers: number;
  /**
   * Whether a search that is the only request in flight, with no walk out, walks in place rather
   * than on a worker (SERVICE_WORKERS_IDLE_IN_PLACE, default on): a lone client's answer comes
   * sooner than a worker can be woken and answer.
   */
  workersIdleInPlace: boolean;
  /** Cypher read replicas (SERVICE_CYPHER_WORKERS, default 1 on a machine with more than one core); 0: Cypher runs on the request thread only. */
  cypherWorkers: number;
  /** Payload depth and size, points per collection, collections per database. */
  writeLimits: WriteLimits;
  /** Open client sockets at most; a connection past it is closed at once. */
  maxConnections: number;
  /** A client must send its whole request head within this many milliseconds (408, then closed). */
  headersTimeoutMs: number;
  /** A keep-alive socket with no request in flight is closed after this many milliseconds. */
  idleTimeoutMs: number;
  /** Read replicas over NATS JetStream (SERVICE_NATS_URL and the rest); null: off, the write path as without it. */
  replication: ReplicationConfig | null;
}

export interface ReplicationConfig {
  /** SERVICE_NATS_URL: the NATS servers, comma-separated. */
  natsServers: string[];
  /** SERVICE_NATS_STREAM (default VGDB_LOG). */
  stream: string;
  /** SERVICE_NATS_REPLICAS: NATS nodes holding each message (default 3). */
  streamReplicas: number;
  /** SERVICE_ROLE: primary (default) or replica. */
  role: 'primary' | 'replica';
  /** SERVICE_REPLICATION: sync (default) or async. */
  mode: 'sync' | 'async';
  /** SERVICE_PRIMARY_URL: where a replica bootstraps from (required for a replica). */
  primaryUrl: string | null;
  /** SERVICE_PRIMARY_API_KEY: the credential a replica sends to the primary's bootstrap endpoint. */
  primaryApiKey: string | null;
  /** SERVICE_PUBLIC_URL: the URL clients reach this server at, which replicas name as the primary (default: the listener's). */
  publicUrl: string | null;
  /** SERVICE_REPLICATION_TIMEOUT_MS: how long a sync write waits for JetStream before a 503 (default 5000). */
  ackTimeoutMs: number;
}

function oneOf<T extends string>(raw: string | undefined, name: string, values: readonly T[]): T {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '') return values[0]!;
  if (!values.includes(value as T)) throw new Error(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return value as T;
}

function httpUrl(raw: string | undefined, name: string): string | null {
  const value = (raw ?? '').trim();
  if (value === '') return null;
  if (!/^https?:\/\/[^/]/.test(value)) throw new Error(`${name} must be an http:// or https:// URL, got "${raw}"`);
  return value.replace(/\/+$/, '');
}

/** SERVICE_NATS_URL and the settings that only mean something with it. */
function replicationConfig(env: NodeJS.ProcessEnv): ReplicationConfig | null {
  const natsServers = (env.SERVICE_NATS_URL ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (natsServers.length === 0) {
    const stray = ['SERVICE_ROLE', 'SERVICE_REPLICATION', 'SERVICE_PRIMARY_URL', 'SERVICE_PRIMARY_API_KEY', 'SERVICE_NATS_STREAM', 'SERVICE_NATS_REPLICAS', 'SERVICE_REPLICATION_TIMEOUT_MS'].find((n) => (env[n] ?? '') !== '');
    if (stray) throw new Error(`${stray} needs SERVICE_NATS_URL (the NATS servers replication goes through)`);
    return null;
  }
  const role = oneOf(env.SERVICE_ROLE, 'SERVICE_ROLE', ['primary', 'replica'] as const);
  const primaryUrl = httpUrl(env.SERVICE_PRIMARY_URL, 'SERVICE_PRIMARY_URL');
  if (role === 'replica' && !primaryUrl) throw new Error('SERVICE_ROLE=replica needs SERVICE_PRIMARY_URL (where it bootstraps from and sends writers)');
  const stream = env.SERVICE_NATS_STREAM || 'VGDB_LOG';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(stream)) throw new Error(`SERVICE_NATS_STREAM must be 1 to 64 letters, digits, _ or -, got "${stream}"`);
  return {
    natsServers,
    stream,
    streamReplicas: atLeastOne(env.SERVICE_NATS_REPLICAS, 'SERVICE_NATS_REPLICAS', 3, 5),
    role,
    mode: oneOf(env.SERVICE_REPLICATION, 'SERVICE_REPLICATION', ['sync', 'async'] as const),
    primaryUrl,
    primaryApiKey: env.SERVICE_PRIMARY_API_KEY || null,
    publicUrl: httpUrl(env.SERVICE_PUBLIC_URL, 'SERVICE_PUBLIC_URL'),
    ackTimeoutMs: atLeastOne(env.SERVICE_REPLICATION_TIMEOUT_MS, 'SERVICE_REPLICATION_TIMEOUT_MS', 5_000, 600_000),
  };
}

/** Comma-separated secrets; empty entries (a trailing comma) are never accepted as a secret. */
/**
 * The singular spellings of the credential settings: set, they would leave the server open
 * without a word, so they are refused with the name that works.
 */
const SINGULAR_SECRETS = [
  ['SERVICE_API_KEY', 'SERVICE_API_KEYS'],
  ['SERVICE_BEARER_TOKEN', 'SERVICE_BEARER_TOKENS'],
] as const;

function refuseSingularSecrets(env: NodeJS.ProcessEnv): void {
  for (const [wrong, right] of SINGULAR_SECRETS) if (env[wrong] !== undefined) throw new Error(`${wrong} is not a setting: put the keys in ${right} (comma-separated); without it authentication is off`);
}

function secrets(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

function positiveInt(raw: string | undefined, name: string, fallback: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`${name} must be an integer from 0 to ${max}, got "${raw}"`);
  return n;
}

function flag(raw: string | undefined, name: string): boolean {
  const value = (raw ?? '').trim().toLowerCase();
  if (['', '0', 'false', 'no', 'off'].includes(value)) return false;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  throw new Error(`${name} must be one of 1, true, yes, on (or 0, false, no, off), got "${raw}"`);
}

function atLeastOne(raw: string | undefined, name: string, fallback: number, max: number): number {
  const n = positiveInt(raw, name, fallback, max);
  if (n === 0) throw new Error(`${name} must be at least 1, got "${raw}"`);
  return n;
}

function writeLimits(env: NodeJS.ProcessEnv): WriteLimits {
  const d = DEFAULT_WRITE_LIMITS;
  return {
    maxPayloadDepth: atLeastOne(env.SERVICE_MAX_PAYLOAD_DEPTH, 'SERVICE_MAX_PAYLOAD_DEPTH', d.maxPayloadDepth, MAX_PAYLOAD_DEPTH_CEILING),
    maxPayloadBytes: atLeastOne(env.SERVICE_MAX_PAYLOAD_BYTES, 'SERVICE_MAX_PAYLOAD_BYTES', d.maxPayloadBytes, 2 ** 31),
    maxPointsPerCollection: atLeastOne(env.SERVICE_MAX_POINTS_PER_COLLECTION, 'SERVICE_MAX_POINTS_PER_COLLECTION', d.maxPointsPerCollection, MAX_POINTS_CEILING),
    maxCollections: atLeastOne(env.SERVICE_MAX_COLLECTIONS, 'SERVICE_MAX_COLLECTIONS', d.maxCollections, MAX_COLLECTIONS_CEILING),
  };
}

/**
 * SERVICE_MAX_CONNECTIONS: 10,000 by default, half of the usual 20,000 file-descriptor limit, so
 * that LMDB, the log, snapshots and the listening socket always find a descriptor and /healthz can
 * still be answered when clients open sockets without end.
 */
function connectionLimits(env: NodeJS.ProcessEnv): Pick<ServiceConfig, 'maxConnections' | 'headersTimeoutMs' | 'idleTimeoutMs'> {
  return {
    maxConnections: atLeastOne(env.SERVICE_MAX_CONNECTIONS, 'SERVICE_MAX_CONNECTIONS', 10_000, 1_000_000),
    headersTimeoutMs: atLeastOne(env.SERVICE_HEADERS_TIMEOUT_MS, 'SERVICE_HEADERS_TIMEOUT_MS', 20_000, 300_000),
    idleTimeoutMs: atLeastOne(env.SERVICE_IDLE_TIMEOUT_MS, 'SERVICE_IDLE_TIMEOUT_MS', 5_000, 2 ** 31),
  };
}

/** Reads SERVICE_* variables; throws an Error naming the variable when one is malformed. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const logLevel = (env.SERVICE_LOG_LEVEL ?? 'info').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`SERVICE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.SERVICE_LOG_LEVEL}"`);
  refuseSingularSecrets(env);
  return {
    host: env.SERVICE_HOST || '0.0.0.0',
    port: positiveInt(env.SERVICE_PORT, 'SERVICE_PORT', 6333, 65535),
    qdrantPort: (env.SERVICE_QDRANT_PORT ?? '').trim().toLowerCase() === 'off' ? null : positiveInt(env.SERVICE_QDRANT_PORT, 'SERVICE_QDRANT_PORT (or off)', 6335, 65535),
    qdrantGrpcPort: (env.SERVICE_QDRANT_GRPC_PORT ?? '').trim().toLowerCase() === 'off' ? null : positiveInt(env.SERVICE_QDRANT_GRPC_PORT, 'SERVICE_QDRANT_GRPC_PORT (or off)', 6334, 65535),
    boltPort: (env.SERVICE_BOLT_PORT ?? '').trim().toLowerCase() === 'off' ? null : positiveInt(env.SERVICE_BOLT_PORT, 'SERVICE_BOLT_PORT (or off)', 7687, 65535),
    boltDefaultDb: env.SERVICE_BOLT_DEFAULT_DB || 'neo4j',
    dataDir: resolve(env.SERVICE_DATA_DIR || './data'),
    logLevel,
    apiKeys: secrets(env.SERVICE_API_KEYS),
    bearerTokens: secrets(env.SERVICE_BEARER_TOKENS),
    rateLimit: env.SERVICE_RATE_LIMIT !== undefined,
    tlsCert: env.SERVICE_TLS_CERT || null,
    tlsKey: env.SERVICE_TLS_KEY || null,
    jsonLimit: positiveInt(env.SERVICE_JSON_LIMIT_BYTES, 'SERVICE_JSON_LIMIT_BYTES', 32 * 2 ** 20, 2 ** 31),
    // 32 KiB: a batch of 16 searches of 128 dimensions. Below it the hand-off to a parser thread
    // (two wake-ups, ~0.3 ms) costs a lone client more than parsing here; above it the parse, the
    // checks and the float conversion of arrays cost the request thread more.
    jsonOffThreadBytes: positiveInt(env.SERVICE_JSON_OFF_THREAD_BYTES, 'SERVICE_JSON_OFF_THREAD_BYTES', 32 * 2 ** 10, 2 ** 31),
    snapshotEvery: positiveInt(env.SERVICE_SNAPSHOT_EVERY, 'SERVICE_SNAPSHOT_EVERY', 10_000, 2 ** 31),
    snapshotEveryBytes: positiveInt(env.SERVICE_SNAPSHOT_EVERY_BYTES, 'SERVICE_SNAPSHOT_EVERY_BYTES', 64 * 2 ** 20, Number.MAX_SAFE_INTEGER),
    logRetention: positiveInt(env.SERVICE_LOG_RETENTION, 'SERVICE_LOG_RETENTION', 100_000, Number.MAX_SAFE_INTEGER),
    logRetentionBytes: positiveInt(env.SERVICE_LOG_RETENTION_BYTES, 'SERVICE_LOG_RETENTION_BYTES', 64 * 2 ** 20, Number.MAX_SAFE_INTEGER),
    slowMs: positiveInt(env.SERVICE_SLOW_MS, 'SERVICE_SLOW_MS', 1000, 2 ** 31),
    metricsPublic: flag(env.SERVICE_METRICS_PUBLIC, 'SERVICE_METRICS_PUBLIC'),
    acceptLoss: flag(env.SERVICE_ACCEPT_LOSS, 'SERVICE_ACCEPT_LOSS'),
    // 256 MB by default, 1/16 of Node's usual 4 GB heap, so that the estimate's undercount and the
    // rest of the process (views, vectors, other requests) stay well inside it.
    queryMemoryBytes: atLeastOne(env.SERVICE_QUERY_MEMORY_MB, 'SERVICE_QUERY_MEMORY_MB', 256, 65_536) * 2 ** 20,
    queryTimeoutMs: atLeastOne(env.SERVICE_QUERY_TIMEOUT_MS, 'SERVICE_QUERY_TIMEOUT_MS', QUERY_TIMEOUT_MS, 3_600_000),
    workers: positiveInt(env.SERVICE_WORKERS, 'SERVICE_WORKERS', Math.min(availableParallelism(), MAX_SEARCH_WORKERS), MAX_SEARCH_WORKERS),
    workersIdleInPlace: (env.SERVICE_WORKERS_IDLE_IN_PLACE ?? '') === '' || flag(env.SERVICE_WORKERS_IDLE_IN_PLACE, 'SERVICE_WORKERS_IDLE_IN_PLACE'),
    cypherWorkers: positiveInt(env.SERVICE_CYPHER_WORKERS, 'SERVICE_CYPHER_WORKERS', availableParallelism() > 1 ? 1 : 0, MAX_CYPHER_WORKERS),
    writeLimits: writeLimits(env),
    ...connectionLimits(env),
    replication: replicationConfig(env),
  };
}
