import Router from '@koa/router';
import type { Context } from 'koa';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { Engine } from '../../storage/engine/engine.js';
import type { DbEvent, PointId } from '../../storage/events/types.js';
import { countMatching, forEachMatchingSlot } from '../../query/search/matching-slots.js';
import { scrollCollection } from '../../query/search/scroll.js';
import { pointJson, retrievedJson } from '../../query/api/point-json.js';
import { ok } from '../state.js';
import { orderedJson } from '../../query/api/universal-json.js';
import { notFound } from '../../storage/errors.js';
import { parsePointIdParam } from '../../query/api/graph-body.js';
import { parseCountBody, parseDeleteBody, parseRetrieveBody, parseScrollBody, parseUpsertBody } from '../../query/api/points-body.js';

/**
 * Logs a write and answers with its operation_id once it is durable and applied. Qdrant's
 * `wait` parameter is accepted; every write is acknowledged only when durable, so it is always "completed".
 */
export async function commit(ctx: Context, engine: Engine, event: DbEvent): Promise<void> {
  const { opId, result } = await engine.submit(event);
  if (result.error) throw result.error;
  ok(ctx, { operation_id: opId, status: 'completed' });
}

export function pointRoutes(engine: Engine): Router {
  const router = new Router({ prefix: '/collections/:name' });
  const collectionOf = (ctx: Context) => requireCollection(engine.collections, ctx.params.name!);

  router.put('/points', async (ctx) => {
    collectionOf(ctx);
    await commit(ctx, engine, { type: 'upsert_points', collection: ctx.params.name!, points: parseUpsertBody(ctx.request.body) });
  });

  router.post('/points', (ctx) => {
    const c = collectionOf(ctx);
    const req = parseRetrieveBody(ctx.request.body);
    ok(ctx, retrievedJson(c, req.ids, req));
  });

  router.post('/points/delete', async (ctx) => {
    const c = collectionOf(ctx);
    const req = parseDeleteBody(ctx.request.body);
    let ids: PointId[];
    if ('ids' in req) ids = req.ids;
    else {
      ids = [];
      forEachMatchingSlot(c, req.filter, (slot) => ids.push(c.store.idOf(slot)));
    }
    await commit(ctx, engine, { type: 'delete_points', collection: c.name, ids });
  });

  router.post('/points/scroll', async (ctx) => {
    const c = collectionOf(ctx);
    const req = parseScrollBody(ctx.request.body);
    if (req.orderBy) {
      ok(ctx, { points: await orderedJson(c, req.orderBy), next_page_offset: null });
      return;
    }
    const page = scrollCollection(c, req.offset, req.limit, req.filter);
    ok(ctx, { points: page.slots.map((slot) => pointJson(c, slot, req)), next_page_offset: page.nextOffset });
  });

  router.post('/points/count', (ctx) => {
    const c = collectionOf(ctx);
    ok(ctx, { count: countMatching(c, parseCountBody(ctx.request.body)) });
  });

  router.get('/points/:id', (ctx) => {
    const c = collectionOf(ctx);
    const id = parsePointIdParam(ctx.params.id!);
    const slot = c.store.slotOf(id);
    if (slot < 0) throw notFound(`no point with id ${id} found in collection "${c.name}"`);
    ok(ctx, pointJson(c, slot, { withPayload: true, withVector: true }));
  });

  return router;
}
