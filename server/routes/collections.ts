import Router from '@koa/router';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { Engine } from '../../storage/engine/engine.js';
import { parseCreateCollection } from '../../query/api/collection-body.js';
import { collectionInfo } from '../../query/api/collection-info.js';
import { ok } from '../state.js';
import { quantizationSettings } from '../../query/api/quantization-settings.js';
import { checkBody } from '../../query/api/check-body.js';
import { bodyObject } from '../../query/api/fields.js';
import { facetBody } from '../../query/api/schemas/recommend.js';
import { VECTORS_GROUP } from '../../storage/views/on-disk-config.js';
import { patchCollectionBody } from '../../query/api/schemas/patch-collection.js';
import { badRequest } from '../../storage/errors.js';
import { parseOptionalFilter } from '../../query/filter/parse-filter.js';
import { facetCounts } from '../../query/search/facet.js';

export function collectionRoutes(engine: Engine): Router {
  const router = new Router();

  router.get('/collections', (ctx) => {
    const names = [...engine.collections.keys()].sort();
    ok(ctx, { collections: names.map((name) => ({ name })) });
  });

  router.put('/collections/:name', async (ctx) => {
    const { config, settings } = parseCreateCollection(ctx.request.body);
    await engine.submit({ type: 'create_collection', name: ctx.params.name!, config, ...(Object.keys(settings).length > 0 ? { settings } : {}) });
    ok(ctx, true);
  });

  router.get('/collections/:name', (ctx) => {
    ok(ctx, collectionInfo(requireCollection(engine.collections, ctx.params.name!)));
  });

  router.get('/collections/:name/exists', (ctx) => {
    ok(ctx, { exists: engine.collections.has(ctx.params.name!) });
  });

  router.patch('/collections/:name', async (ctx) => {
    const c = requireCollection(engine.collections, ctx.params.name!);
    const body = checkBody(patchCollectionBody, bodyObject(ctx.request.body));
    const hnsw = body.hnsw_config ?? {};
    for (const [key, now] of [['m', c.config.m], ['ef_construct', c.config.efConstruct]] as const) {
      const wanted = hnsw[key];
      if (wanted !== undefined && wanted !== null && wanted !== now) throw badRequest(`hnsw_config.${key} is ${now} and cannot change in place (it would need the index rebuilt): export the collection and import it into one created with ${key} ${wanted}`);
    }
    const settings: Record<string, Record<string, unknown>> = {};
    const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));
    if (body.optimizers_config) settings.optimizer_config = defined(body.optimizers_config);
    const { m: _m, ef_construct: _ef, ...hnswExtras } = hnsw;
    if (Object.keys(defined(hnswExtras)).length > 0) settings.hnsw_config = defined(hnswExtras);
    if (body.quantization_config) Object.assign(settings, quantizationSettings(body.quantization_config));
    const onDisk = Object.entries(body.vectors ?? {}).filter(([, v]) => typeof v.on_disk === 'boolean');
    if (onDisk.length > 0) settings[VECTORS_GROUP] = Object.fromEntries(onDisk.map(([name, v]) => [name, { on_disk: v.on_disk }]));
    if (Object.keys(settings).length > 0) await engine.submit({ type: 'collection_settings', collection: c.name, settings });
    ok(ctx, true);
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
