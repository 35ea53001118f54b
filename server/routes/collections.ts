import Router from '@koa/router';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { Engine } from '../../storage/engine/engine.js';
import { parseCreateCollection } from '../../query/api/collection-body.js';
import { collectionInfo } from '../../query/api/collection-info.js';
import { ok, requestState } from '../state.js';
import { resolveCollection } from '../../storage/aliases.js';
import { quantizationSettings } from '../../query/api/quantization-settings.js';
import { checkBody } from '../../query/api/check-body.js';
import { bodyObject } from '../../query/api/fields.js';
import { facetBody } from '../../query/api/schemas/recommend.js';
import { VECTORS_GROUP } from '../../storage/views/on-disk-config.js';
import { patchCollectionBody } from '../../query/api/schemas/patch-collection.js';
import { badRequest } from '../../storage/errors.js';
import { parseOptionalFilter } from '../../query/filter/parse-filter.js';
import { facetCounts } from '../../query/search/facet.js';
import { hnswExtras, metadataSettings, settingsOf } from '../../query/api/collection-settings.js';
import type { CollectionSettings } from '../../storage/events/types.js';

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
    ok(ctx, collectionInfo(requireCollection(engine.collections, ctx.params.name!), requestState(ctx).dialect));
  });

  // Qdrant resolves an alias here, as on every collection path.
  router.get('/collections/:name/exists', (ctx) => {
    ok(ctx, { exists: resolveCollection(engine.collections, ctx.params.name!) !== undefined });
  });

  router.patch('/collections/:name', async (ctx) => {
    const c = requireCollection(engine.collections, ctx.params.name!);
    const body = checkBody(patchCollectionBody, bodyObject(ctx.request.body));
    const hnsw = body.hnsw_config ?? {};
    for (const [key, now] of [['m', c.config.m], ['ef_construct', c.config.efConstruct]] as const) {
      const wanted = hnsw[key];
      // The collection's own value (reported when the unnamed vector was given another) is as it is too.
      const own = c.settings.hnsw_config?.[key];
      if (wanted !== undefined && wanted !== null && wanted !== now && wanted !== own) throw badRequest(`hnsw_config.${key} is ${now} and cannot change in place (it would need the index rebuilt): export the collection and import it into one created with ${key} ${wanted}`);
    }
    const settings: CollectionSettings = {
      ...settingsOf({ ...body.params, optimizers_config: body.optimizers_config, strict_mode_config: body.strict_mode_config }),
      ...(body.metadata ? metadataSettings(c.settings, body.metadata) : {}),
    };
    if (Object.keys(hnswExtras(hnsw)).length > 0) settings.hnsw_config = hnswExtras(hnsw);
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

  // Qdrant answers false for a name that is no collection (an alias included: deleting one deletes
  // nothing) and true once it deleted one; the spec port keeps its 404 for a missing collection.
  router.delete('/collections/:name', async (ctx) => {
    const name = ctx.params.name!;
    if (requestState(ctx).dialect === 'qdrant' && !engine.collections.has(name)) return ok(ctx, false);
    if (!engine.collections.has(name) && resolveCollection(engine.collections, name)) return ok(ctx, false);
    await engine.submit({ type: 'delete_collection', name });
    ok(ctx, true);
  });

  return router;
}
