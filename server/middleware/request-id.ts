import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { requestState } from '../state.js';

/** Gives each request an id, answered in X-Request-Id and written in its log lines. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const id = randomUUID();
    requestState(ctx).requestId = id;
    ctx.set('X-Request-Id', id);
    await next();
  };
}
