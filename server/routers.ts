import type Router from '@koa/router';
import type { MatchResult } from '@koa/router';
import type { Middleware } from 'koa';

/** A path as a router without `strict` or `sensitive` could take it: lower case, trailing slashes dropped. */
function looseKey(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 0x2f) end--;
  return path.slice(0, end).toLowerCase();
}

/**
 * The routes of a router whose paths are all fixed (no parameters: health, the API description,
 * metrics), reached only by a request whose path could be one of them. Every other request
 * passes by without the router's dispatch (its host check, its walk over every route and its
 * not-found event), which each request paid once per such router.
 */
export function fixedPathRoutes(router: Router): Middleware {
  const paths = new Set<string>();
  for (const layer of router.stack) {
    if (typeof layer.path !== 'string' || layer.paramNames.length > 0) throw new Error(`fixedPathRoutes takes routes without parameters, not ${String(layer.path)}`);
    paths.add(looseKey(layer.path));
  }
  const dispatch = router.routes() as Middleware;
  return (ctx, next) => (paths.has(looseKey(ctx.path)) ? dispatch(ctx, next) : next());
}

/** Paths whose matches a router keeps; past it they are forgotten at once and learnt again. */
const MATCHES_KEPT = 1_024;
/** Longer paths are matched each time, so that what is kept stays small (URLs may be 8 KiB). */
const LONGEST_KEPT = 256;

/**
 * Makes a router remember which of its routes match a method and path: @koa/router tests every
 * route's pattern on every request (49 here), while a client sends the same few paths again and
 * again. The routes are fixed once the router is built, so the match of a path never changes;
 * each answer is a copy, as the router appends to the lists it is given.
 */
export function rememberMatches(router: Router): Router {
  const match = router.match.bind(router);
  const kept = new Map<string, MatchResult>();
  router.match = (path: string, method: string): MatchResult => {
    if (path.length > LONGEST_KEPT) return match(path, method);
    const key = `${method} ${path}`;
    let found = kept.get(key);
    if (found === undefined) {
      if (kept.size >= MATCHES_KEPT) kept.clear();
      found = match(path, method);
      kept.set(key, found);
    }
    return { path: [...found.path], pathAndMethod: [...found.pathAndMethod], route: found.route };
  };
  return router;
}
