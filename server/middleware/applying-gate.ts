import type { Middleware } from 'koa';
import { resolveCollection } from '../../storage/aliases.js';
import type { Engine } from '../../storage/engine/engine.js';

const COLLECTION_PATH = /^\/collections\/([^/]+)/;

/**
 * A request naming a collection (by name or alias) that a merge import is changing a slice at a
 * time waits until the merge is applied (Engine.settled), so it sees the merge whole or not at
 * all; requests about other collections, and /healthz, are answered meanwhile.
 */
export function applyingGate(engine: Engine): Middleware {
  return async (ctx, next) => {
    const named = engine.applyingInSlices ? COLLECTION_PATH.exec(ctx.path) : null;
    if (named) {
      let name = named[1]!;
      try {
        name = decodeURIComponent(name);
      } catch {
        // A malformed name is the route's to refuse.
      }
      const c = resolveCollection(engine.collections, name);
      if (c) await engine.settled(c.name);
    }
    await next();
  };
}
