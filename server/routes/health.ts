import Router from '@koa/router';
import type { Readiness } from '../readiness.js';

/** The public endpoints: never behind credentials. */
export function healthRoutes(readiness: Readiness, version: string): Router {
  const router = new Router();
  router.get('/', (ctx) => {
    ctx.body = { title: 'vectorgraphdb - vector and graph database', version };
  });
  for (const path of ['/health', '/healthz']) {
    router.get(path, (ctx) => {
      ctx.body = { status: 'ok' };
    });
  }
  for (const path of ['/ready', '/readyz']) {
    router.get(path, (ctx) => {
      const problem = readiness.problem();
      ctx.status = problem ? 503 : 200;
      ctx.body = problem ? { status: 'error', message: problem, code: 503 } : { status: 'ok' };
    });
  }
  return router;
}
