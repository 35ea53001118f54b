import Router from '@koa/router';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { Engine } from '../../storage/engine/engine.js';
import { parseCollectionBody } from '../validate/collection-body.js';
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
    const c = requireCollection(engine.collections, ctx.params.name!);
    const { config } = c;
    const vectors = { size: config.size, distance: config.distance };
    const hnsw = { m: config.m, ef_construct: config.efConstruct, m0: config.m0, ml: config.ml };
    ok(ctx, {
      name: c.name,
      status: c.pendingCount > 0 ? 'yellow' : 'green',
      vectors_count: c.store.liveCount,
      points_count: c.store.liveCount,
      indexed_vectors_count: c.index.nodeCount - c.index.removedCount,
      config: { vectors, hnsw_config: hnsw, params: { vectors } },
    });
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
