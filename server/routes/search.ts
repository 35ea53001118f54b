import Router from '@koa/router';
import type { Context } from 'koa';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { Engine } from '../../storage/engine/engine.js';
import { scoredJson } from '../../query/api/point-json.js';
import { ok } from '../state.js';
import { parseBatchSearchBody, parseSearchBody } from '../../query/api/search-body.js';

/** Vector Search (`query`), Qdrant's search (`vector`) and batch search. */
export function searchRoutes(engine: Engine): Router {
  const router = new Router({ prefix: '/collections/:name/points' });
  const collectionOf = (ctx: Context) => requireCollection(engine.collections, ctx.params.name!);

  router.post('/query', (ctx) => {
    const c = collectionOf(ctx);
    ok(ctx, scoredJson(c, parseSearchBody(ctx.request.body, 'query')));
  });

  router.post('/search', (ctx) => {
    const c = collectionOf(ctx);
    ok(ctx, scoredJson(c, parseSearchBody(ctx.request.body, 'vector')));
  });

  router.post('/search/batch', (ctx) => {
    const c = collectionOf(ctx);
    ok(ctx, parseBatchSearchBody(ctx.request.body).map((req) => scoredJson(c, req)));
  });

  return router;
}
