import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { requestState } from '../state.js';

/** One debug line per request: method, path (no query string, no headers), status, microseconds. */
export function requestLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    await next();
    if (!logger.isLevelEnabled('debug')) return;
    const us = Number(process.hrtime.bigint() - requestState(ctx).startedAt) / 1000;
    logger.debug({ requestId: requestState(ctx).requestId, method: ctx.method, path: ctx.path, status: ctx.status, us }, 'request');
  };
}
