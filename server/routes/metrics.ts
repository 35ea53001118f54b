import Router from '@koa/router';
import type { Registry } from 'prom-client';

/** GET /metrics in Prometheus' text format. */
export function metricsRoutes(registry: Registry): Router {
  const router = new Router();
  router.get('/metrics', async (ctx) => {
    ctx.body = await registry.metrics();
    ctx.type = registry.contentType;
  });
  return router;
}
