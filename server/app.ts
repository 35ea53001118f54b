import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import type { Engine } from '../storage/engine/engine.js';
import type { ServiceConfig } from './config.js';
import { authenticate, credentialSchemes } from './middleware/auth.js';
import { consistency } from './middleware/consistency.js';
import { applyingGate } from './middleware/applying-gate.js';
import { consolePage } from './middleware/console-page.js';
import { cors } from './middleware/cors.js';
import { errorBody } from './middleware/error-body.js';
import { countInFlight } from './middleware/in-flight.js';
import { jsonBody } from './middleware/json-body.js';
import { noteActivity } from './middleware/note-activity.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestId } from './middleware/request-id.js';
import { requestLog } from './middleware/request-log.js';
import { handlerTiming, serverTiming } from './middleware/server-timing.js';
import { urlLimit } from './middleware/url-limit.js';
import type { ServiceMetrics } from './metrics/service-metrics.js';
import type { Readiness } from './readiness.js';
import { routePatterns } from './route-pattern.js';
import { fixedPathRoutes, rememberMatches } from './routers.js';
import type { Dialect, RequestState } from './state.js';
import { changesRoutes } from './routes/changes.js';
import { collectionRoutes } from './routes/collections.js';
import { graphRoutes } from './routes/graph.js';
import { healthRoutes } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import { openApiRoutes } from './routes/openapi.js';
import { pointRoutes } from './routes/points.js';
import { pointUpdateRoutes } from './routes/point-updates.js';
import { payloadIndexRoutes } from './routes/payload-index.js';
import { aliasRoutes } from './routes/aliases.js';
import { qdrantNodeRoutes } from './routes/qdrant-node.js';
import { snapshotRoutes } from './routes/snapshots.js';
import { CollectionSnapshots } from './collection-snapshots.js';
import { join } from 'node:path';
import { replicationRoutes } from './routes/replication.js';
import type { Replication } from '../replication/replication.js';
import { searchRoutes } from './routes/search.js';
import { transferRoutes } from './routes/transfer.js';
import type { CypherReplicas } from '../workers/cypher-replicas.js';
import type { JsonParsers } from '../workers/json-parsers.js';

export interface AppDeps {
  engine: Engine;
  config: ServiceConfig;
  logger: Logger;
  readiness: Readiness;
  version: string;
  metrics: ServiceMetrics;
  /** The shapes this app answers in (default: SPEC.md's). */
  dialect?: Dialect;
  /** The rate limiter's clock in seconds (default: the process's monotonic clock). */
  now?: () => number;
  /** The rate limiter, when listeners share one (a client gets one budget across ports); default: its own. */
  rateLimiter?: Middleware | null;
  /** Read replicas over NATS JetStream, when SERVICE_NATS_URL is set. */
  replication?: Replication | null;
  /** Where read-only Cypher queries run off the request thread (SERVICE_CYPHER_WORKERS); none: in place. */
  cypher?: CypherReplicas | null;
  /** Threads that parse large bodies of the vector routes (SERVICE_JSON_OFF_THREAD_BYTES); none: every body on the request thread. */
  jsonParsers?: JsonParsers | null;
}

/** SERVICE_RATE_LIMIT's limiter (100 requests a second, bursts of 200, per client address), or null when off. */
export function serviceRateLimiter(config: ServiceConfig, now?: () => number): Middleware | null {
  return config.rateLimit ? rateLimit({ rate: 100, burst: 200, now }) : null;
}

/** The whole middleware chain, in order, in one place. */
export function createApp({ engine, config, logger, readiness, version, metrics, dialect = 'spec', now, rateLimiter, replication = null, cypher = null, jsonParsers = null }: AppDeps): Koa {
  const app = new Koa();
  app.silent = true;
  const resourceRoutes = [aliasRoutes(engine), collectionRoutes(engine), pointRoutes(engine), pointUpdateRoutes(engine), payloadIndexRoutes(engine), searchRoutes(engine), graphRoutes(engine, { memoryBytes: config.queryMemoryBytes, timeoutMs: config.queryTimeoutMs }, cypher), transferRoutes(engine, cypher), snapshotRoutes(engine, new CollectionSnapshots(join(config.dataDir, 'collection-snapshots')), cypher), changesRoutes(engine, replication ? () => replication.status() : null), replicationRoutes(engine, replication, join(config.dataDir, 'snapshots')), ...(dialect === 'qdrant' ? [qdrantNodeRoutes(engine)] : [])];
  const publicRoutes = healthRoutes(readiness, version, dialect);
  const openApiRoute = openApiRoutes(version);
  const metricsRoute = metricsRoutes(metrics.registry);
  const routeOf = routePatterns([publicRoutes, openApiRoute, metricsRoute, ...resourceRoutes]);

  app.use(countInFlight());
  app.use(async (ctx, next) => {
    (ctx.state as RequestState).dialect = dialect;
    await next();
  });
  app.use(cors());
  app.use(serverTiming());
  app.use(requestId());
  app.use(metrics.requests(routeOf));
  app.use(requestLog(logger, { slowMs: config.slowMs, routeOf }));
  app.use(errorBody(logger));
  const limiter = rateLimiter !== undefined ? rateLimiter : serviceRateLimiter(config, now);
  if (limiter) app.use(limiter);
  app.use(urlLimit(8192));
  app.use(fixedPathRoutes(publicRoutes));
  app.use(fixedPathRoutes(openApiRoute));
  // The console speaks this port's API; Qdrant's port keeps Qdrant's paths only.
  if (dialect === 'spec') app.use(consolePage({ authSchemes: credentialSchemes(config) }));
  if (config.metricsPublic) app.use(fixedPathRoutes(metricsRoute));
  app.use(authenticate(config));
  if (!config.metricsPublic) app.use(fixedPathRoutes(metricsRoute));
  app.use(readiness.gate());
  app.use(noteActivity(engine));
  app.use(jsonBody(config.jsonLimit, jsonParsers ? { parsers: jsonParsers, fromBytes: config.jsonOffThreadBytes } : null));
  app.use(consistency(engine));
  app.use(applyingGate(engine));
  app.use(handlerTiming());
  // One router over every resource's routes: a request's path is matched once, not once a resource.
  const resources = rememberMatches(new Router());
  for (const router of resourceRoutes) resources.use(router.routes());
  app.use(resources.routes());
  app.use(resources.allowedMethods());
  return app;
}
