import type { Middleware } from 'koa';
import type { Engine } from '../../storage/engine/engine.js';

/**
 * Tells the engine that work came in (writes and searches, which are not GETs), so background
 * indexing yields to it for a while. GETs are cheap reads such as a monitor polling collection
 * status; they must not slow the indexer down.
 */
export function noteActivity(engine: Engine): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET') engine.noteActivity();
    await next();
  };
}
