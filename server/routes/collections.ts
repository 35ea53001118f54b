import Router from '@koa/router';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { Engine } from '../../storage/engine/engine.js';
import { parseCollectionBody } from '../../query/api/collection-body.js';
import { collectionInfo } from '../../query/api/collection-info.js';
import { ok } from '../state.js';
import { checkBody } from '../../query/api/check-body.js';
import { bodyObject } from '../../query/api/fields.js';
import { facetBody } from '../../query/api/schemas/recommend.js';
import { parseOptionalFilter } from '../../query/filter/parse-filter.js';
import { facetCounts } from '../../query/search/facet.js';

export function collectionRoutes(engine: Engine): Router {
  const router = new Router();

  router.get('/collections', (ctx) => {
    const names = [...engine.collections.keys()].sort();
    ok(ctx, { collections: names.map((name) => ({ name })) });
  });

  router.put('/collections/:name', async (ctx) => {
    const config = parseCollectionBody(ctx.request.body);
    await engine.submit({ type: 'create_collection', name: ctx.params.name!, config });
    ok(ctx, true);
  });

  router.get('/collections/:name', (ctx) => {
    ok(ctx, collectionInfo(requireCollection(engine.collections, ctx.params.name!)));
  });

  router.get('/collections/:name/exists', (ctx) => {
    ok(ctx, { exists: engine.collections.has(ctx.params.name!) });
  });

  router.post('/collections/:name/facet', (ctx) => {
    const c = requireCollection(engine.collections, ctx.params.name!);
    const body = checkBody(facetBody, bodyObject(ctx.request.body));
    ok(ctx, { hits: facetCounts(c, body.key, parseOptionalFilter(body.filter), body.limit ?? 10) });
  });

  router.delete('/collections/:name', async (ctx) => {
    await engine.submit({ type: 'delete_collection', name: ctx.params.name! });
    ok(ctx, true);
  });

  return router;
}
