import Router from '@koa/router';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { Engine } from '../../storage/engine/engine.js';
import { parseCollectionBody } from '../../query/api/collection-body.js';
import { collectionInfo } from '../../query/api/collection-info.js';
import { ok } from '../state.js';

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

  router.delete('/collections/:name', async (ctx) => {
    await engine.submit({ type: 'delete_collection', name: ctx.params.name! });
    ok(ctx, true);
  });

  return router;
}
