import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import type { RouteOf } from '../route-pattern.js';
import { requestState } from '../state.js';

export interface RequestLogOptions {
  /** Requests taking this long or longer log at warn. */
  slowMs: number;
  routeOf: RouteOf;
}

/** The message of the error body the client got (server/middleware/error-body.ts). */
function errorMessage(ctx: Context): string | undefined {
  const body = ctx.body as { message?: unknown } | null | undefined;
  return body && typeof body === 'object' && typeof body.message === 'string' ? body.message : undefined;
}

/**
 * One line per request: method, route pattern (the path when no route has it), status, ms,
 * request id, client address and, for a 4xx/5xx, the error message sent. Info, or warn when slow
 * or a 5xx. Headers and the query string (which may carry a key) are never logged.
 */
export function requestLog(logger: Logger, { slowMs, routeOf }: RequestLogOptions): Middleware {
  return async (ctx, next) => {
    // Read now: once a request body fails midway, Koa may have let go of the socket by the end.
    const client = ctx.ip;
    try {
      await next();
    } finally {
      const state = requestState(ctx);
      const ms = Number(process.hrtime.bigint() - state.startedAt) / 1e6;
      const line = {
        requestId: state.requestId,
        method: ctx.method,
        route: routeOf(ctx) ?? ctx.path,
        status: ctx.status,
        ms: Math.round(ms * 100) / 100,
        client,
        ...(ctx.status >= 400 ? { error: errorMessage(ctx) } : {}),
      };
      const slow = ms >= slowMs;
      if (slow || ctx.status >= 500) logger.warn(line, slow ? 'slow request' : 'request');
      else logger.info(line, 'request');
    }
  };
}
