import type { Middleware } from 'koa';
import { DbError } from '../../storage/errors.js';

/** A path and query string longer than `max` characters is a 414. */
export function urlLimit(max: number): Middleware {
  return async (ctx, next) => {
    if (ctx.url.length > max) throw new DbError(414, `the URL is ${ctx.url.length} characters long; at most ${max} are accepted`);
    await next();
  };
}
