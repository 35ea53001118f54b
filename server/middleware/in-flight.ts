import type { Middleware } from 'koa';

/** HTTP requests this process is answering, over every listener (the search pool is the process's too). */
let inFlight = 0;
/** The connection the last request came on, and when one last came on another. */
let lastConnection: object | null = null;
let otherConnectionAt = -Infinity;

/** How long after a request on a connection other than the last one requests count as coming on several. */
const SEVERAL_CONNECTIONS_MS = 50;

export const requestsInFlight = (): number => inFlight;

/** Whether requests came on more than one connection within SEVERAL_CONNECTIONS_MS: other clients may be waiting. */
export function severalConnections(now = performance.now()): boolean {
  return now - otherConnectionAt < SEVERAL_CONNECTIONS_MS;
}

/** Counts a request from the moment it enters the chain until its answer is ready, and notes its connection. */
export function countInFlight(): Middleware {
  return async (ctx, next) => {
    const connection = ctx.req.socket;
    if (connection !== lastConnection) {
      if (lastConnection !== null) otherConnectionAt = performance.now();
      lastConnection = connection;
    }
    inFlight++;
    try {
      await next();
    } finally {
      inFlight--;
    }
  };
}
