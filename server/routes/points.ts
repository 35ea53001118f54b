import Router from '@koa/router';
import type { Context } from 'koa';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { Engine } from '../../storage/engine/engine.js';
import { badRequest } from '../../storage/errors.js';
import type { DbEvent } from '../../storage/events/types.js';
import { parseOptionalFilter } from '../../query/filter/parse-filter.js';
import { countMatching, forEachMatchingSlot } from '../../query/search/matching-slots.js';
import { scrollCollection } from '../../query/search/scroll.js';
import { pointJson, retrievedJson } from '../../query/api/point-json.js';
import { ok } from '../state.js';
import { bodyObject, optionalInt } from '../../query/api/fields.js';
import { outputOptions } from '../../query/api/output-options.js';
import { MAX_LIMIT, parseIdList, parseUpsertBody } from '../../query/api/points-body.js';

/**
 * Logs a write and answers with its operation_id once it is durable and applied. Qdrant's
 * `wait` parameter is accepted; every write is acknowledged only when durable, so it is always "completed".
 */
async function commit(ctx: Context, engine: Engine, event: DbEvent): Promise<void> {
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
    const body = bodyObject(ctx.request.body);
    ok(ctx, retrievedJson(c, parseIdList(body.ids, 'ids'), outputOptions(body)));
  });

  router.post('/points/delete', async (ctx) => {
    const c = collectionOf(ctx);
    const body = bodyObject(ctx.request.body);
    let ids: number[];
    if (body.points !== undefined) ids = parseIdList(body.points, 'points');
    else if (body.filter !== undefined) {
      const filter = parseOptionalFilter(body.filter);
      ids = [];
      forEachMatchingSlot(c, filter, (slot) => ids.push(c.store.ids[slot]!));
    } else throw badRequest('points (an array of ids) or filter is required');
    await commit(ctx, engine, { type: 'delete_points', collection: c.name, ids });
  });

  router.post('/points/scroll', (ctx) => {
    const c = collectionOf(ctx);
    const body = bodyObject(ctx.request.body);
    const limit = optionalInt(body, 'limit', 10, 1, MAX_LIMIT);
    const offset = optionalInt(body, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const options = outputOptions(body);
    const page = scrollCollection(c, offset, limit, parseOptionalFilter(body.filter));
    ok(ctx, { points: page.slots.map((slot) => pointJson(c, slot, options)), next_page_offset: page.nextOffset });
  });

  router.post('/points/count', (ctx) => {
    const c = collectionOf(ctx);
    const body = bodyObject(ctx.request.body);
    ok(ctx, { count: countMatching(c, parseOptionalFilter(body.filter)) });
  });

  return router;
}
