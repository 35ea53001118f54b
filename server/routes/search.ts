import Router from '@koa/router';
import type { Context } from 'koa';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { Engine } from '../../storage/engine/engine.js';
import { badRequest } from '../../storage/errors.js';
import { scoredJson } from '../../query/api/point-json.js';
import { ok } from '../state.js';
import { bodyObject } from '../../query/api/fields.js';
import { parseSearchBody } from '../../query/api/points-body.js';

export const MAX_BATCH = 1_000;

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
    const { searches } = bodyObject(ctx.request.body);
    if (!Array.isArray(searches) || searches.length > MAX_BATCH) {
      throw badRequest(`searches must be an array of at most ${MAX_BATCH} search requests`);
    }
    const requests = searches.map((s, i) => parseSearchBody(s, 'vector', `searches[${i}]`));
    ok(ctx, requests.map((req) => scoredJson(c, req)));
  });

  return router;
}
