import Router from '@koa/router';
import type { Engine } from '../../storage/engine/engine.js';
import { requireCollection } from '../../storage/engine/validate-event.js';
import { checkBody } from '../../query/api/check-body.js';
import { bodyObject } from '../../query/api/fields.js';
import { createIndexBody } from '../../query/api/schemas/payload-index.js';
import { commit } from './points.js';

/** Qdrant's payload indexes: declared per field, one logged operation each, kept in snapshots and exports. */
export function payloadIndexRoutes(engine: Engine): Router {
  const router = new Router({ prefix: '/collections/:name' });

  router.put('/index', async (ctx) => {
    const c = requireCollection(engine.collections, ctx.params.name!);
    const { field_name, field_schema } = checkBody(createIndexBody, bodyObject(ctx.request.body));
    const { type, ...params } = typeof field_schema === 'string' ? { type: field_schema } : field_schema;
    await commit(ctx, engine, { type: 'payload_index', collection: c.name, field: field_name, index: { type, params } });
  });

  router.delete('/index/:field', async (ctx) => {
    const c = requireCollection(engine.collections, ctx.params.name!);
    await commit(ctx, engine, { type: 'payload_index', collection: c.name, field: ctx.params.field!, index: null });
  });

  return router;
}
