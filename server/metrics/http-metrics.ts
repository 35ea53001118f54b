import type { Middleware } from 'koa';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { RouteOf } from '../route-pattern.js';
import { requestState } from '../state.js';

/** The route label of a request no route has: raw paths would make a label value per probe. */
const UNMATCHED = 'unmatched';

/**
 * Requests by route and status, and their latency by route, counted as they end: the metrics
 * once per registry, a middleware per listener (both ports count into them).
 */
export function httpMetrics(registry: Registry): (routeOf: RouteOf) => Middleware {
  const requests = new Counter({
    name: 'vgdb_http_requests_total',
    help: 'HTTP requests answered, by route pattern and status code',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'vgdb_http_request_duration_seconds',
    help: 'Time from a request arriving to its response being ready, by route pattern',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return (routeOf) => async (ctx, next) => {
    try {
      await next();
    } finally {
      const route = routeOf(ctx) ?? UNMATCHED;
      requests.inc({ route, status: String(ctx.status) });
      latency.observe({ route }, Number(process.hrtime.bigint() - requestState(ctx).startedAt) / 1e9);
    }
  };
}
