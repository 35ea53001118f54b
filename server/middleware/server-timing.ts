import type { Middleware } from 'koa';
import { requestState } from '../state.js';

const micros = (ns: bigint): string => (Number(ns) / 1000).toFixed(1);

/** Starts the request clock and writes Server-Timing: body, handler and total, in microseconds. */
export function serverTiming(): Middleware {
  return async (ctx, next) => {
    const state = requestState(ctx);
    state.startedAt = process.hrtime.bigint();
    state.bodyNs = 0n;
    state.handlerNs = 0n;
    try {
      await next();
    } finally {
      const total = process.hrtime.bigint() - state.startedAt;
      ctx.set('Server-Timing', `body;dur=${micros(state.bodyNs)}, handler;dur=${micros(state.handlerNs)}, total;dur=${micros(total)}`);
    }
  };
}

/** Times what runs after it (the routes) as the handler metric. */
export function handlerTiming(): Middleware {
  return async (ctx, next) => {
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      requestState(ctx).handlerNs = process.hrtime.bigint() - start;
    }
  };
}
