import type { Middleware } from 'koa';

/** HTTP requests this process is answering, over every listener (the search pool is the process's too). */
let inFlight = 0;

export const requestsInFlight = (): number => inFlight;

/** Counts a request from the moment it enters the chain until its answer is ready. */
export function countInFlight(): Middleware {
  return async (_ctx, next) => {
    inFlight++;
    try {
      await next();
    } finally {
      inFlight--;
    }
  };
}
