import type { Middleware } from 'koa';

/** CORS open to every origin; a preflight OPTIONS is answered here with 204. */
export function cors(): Middleware {
  return async (ctx, next) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', 'Content-Type, Authorization');
    ctx.set('Access-Control-Expose-Headers', 'Server-Timing, X-Request-Id, X-Service-Format-Version, X-Service-Point-Count, X-Service-Dimension, X-Service-Log-Head, Content-Disposition');
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Max-Age', '86400');
      ctx.status = 204;
      return;
    }
    await next();
  };
}
