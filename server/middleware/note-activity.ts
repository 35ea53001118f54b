import type { Middleware } from 'koa';
import type { Engine } from '../../storage/engine/engine.js';

/** Tells the engine a request came in, so background indexing yields to requests for a while. */
export function noteActivity(engine: Engine): Middleware {
  return async (_ctx, next) => {
    engine.noteActivity();
    await next();
  };
}
