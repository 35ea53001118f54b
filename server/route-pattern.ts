import type Router from '@koa/router';
import type { Context } from 'koa';
import { requestState } from './state.js';

/** The route pattern of a request (e.g. `/collections/:name/points`), or null when no route has its path. */
export type RouteOf = (ctx: Context) => string | null;

/**
 * Reads the pattern the router matched; for a request answered before the routers ran (401,
 * 503 while starting, 413, 405) it asks the routers which route the path belongs to.
 */
export function routePatterns(routers: readonly Router[]): RouteOf {
  const find = (ctx: Context): string | null => {
    const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
    if (typeof matched === 'string') return matched;
    for (const router of routers) {
      const { path, pathAndMethod } = router.match(ctx.path, ctx.method);
      const layer = pathAndMethod.find((l) => l.methods.length > 0) ?? path.find((l) => l.methods.length > 0);
      if (layer && typeof layer.path === 'string') return layer.path;
    }
    return null;
  };
  return (ctx) => {
    const state = requestState(ctx);
    if (state.route === undefined) state.route = find(ctx);
    return state.route;
  };
}
