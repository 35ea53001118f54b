import Router from '@koa/router';
import type { Readiness } from '../readiness.js';
import type { Dialect } from '../state.js';
import { errorJson } from '../middleware/error-body.js';
import { requestState } from '../state.js';

/**
 * The Qdrant REST API version the Qdrant dialect answers as (GET / on SERVICE_QDRANT_PORT): its
 * clients check that their minor version is within one of it. We implement the subset of it the
 * README lists.
 */
export const QDRANT_API_VERSION = '1.18.0';

/** The public endpoints: never behind credentials. Qdrant's port answers its own forms of them. */
export function healthRoutes(readiness: Readiness, version: string, dialect: Dialect = 'spec'): Router {
  const router = new Router();
  const qdrant = dialect === 'qdrant';
  router.get('/', (ctx) => {
    ctx.body = qdrant ? { title: 'qdrant - vector search engine', version: QDRANT_API_VERSION, commit: `vectorgraphdb ${version}` } : { title: 'vectorgraphdb - vector and graph database', version };
  });
  for (const path of qdrant ? ['/health', '/healthz', '/livez'] : ['/health', '/healthz']) {
    router.get(path, (ctx) => {
      if (qdrant) ctx.body = `${path.slice(1)} check passed`;
      else ctx.body = { status: 'ok' };
    });
  }
  for (const path of ['/ready', '/readyz']) {
    router.get(path, (ctx) => {
      const problem = readiness.problem();
      ctx.status = problem ? 503 : 200;
      if (qdrant) ctx.body = problem ? errorJson('qdrant', problem, 503, requestState(ctx).startedAt) : 'all shards are ready';
      else {
        const replication = readiness.replicationStatus();
        ctx.body = { ...(problem ? { status: 'error', message: problem, code: 503 } : { status: 'ok' }), ...(replication ? { replication } : {}) };
      }
    });
  }
  return router;
}
