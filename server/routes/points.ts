import Router from '@koa/router';
import type { Context } from 'koa';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { Committed, Engine } from '../../storage/engine/engine.js';
import type { DbEvent, PointId } from '../../storage/events/types.js';
import { countMatching, forEachMatchingSlot } from '../../query/search/matching-slots.js';
import { scrollCollection } from '../../query/search/scroll.js';
import { pointJson, retrievedJson } from '../../query/api/point-json.js';
import { ok, requestState } from '../state.js';
import { isObject } from '../../query/api/fields.js';
import { orderedJson } from '../../query/api/universal-json.js';
import { notFound } from '../../storage/errors.js';
import { parsePointIdParam } from '../../query/api/graph-body.js';
import { parseCountBody, parseDeleteBody, parseRetrieveBody, parseScrollBody, parseUpsertBodyInSlices } from '../../query/api/points-body.js';
import { conditionalUpsert, updateFilterOf } from '../../query/api/point-updates-body.js';
import { PendingUpdates } from '../../storage/engine/point-updates.js';
import { betweenQuerySlices, REQUEST_THREAD_SLICE_MS } from '../next-turn.js';

/**
 * Logs a write and answers with its operation_id once it is durable and applied. Qdrant's
 * `wait` parameter is accepted; every write is acknowledged only when durable, so it is always "completed".
 */
export async function commit(ctx: Context, engine: Engine, event: DbEvent): Promise<void> {
  await answerCommitted(ctx, engine.submit(event));
}

async function answerCommitted(ctx: Context, committing: Promise<Committed>): Promise<void> {
  const { opId, result } = await committing;
  if (result.error) throw result.error;
  ok(ctx, { operation_id: opId, status: 'completed' });
}

const isNoPoints = (body: unknown): boolean => isObject(body) && Object.keys(body).length === 1 && Array.isArray(body.points) && body.points.length === 0;

export function pointRoutes(engine: Engine): Router {
  const router = new Router({ prefix: '/collections/:name' });
  const collectionOf = (ctx: Context) => requireCollection(engine.collections, ctx.params.name!);

  router.put('/points', async (ctx) => {
    collectionOf(ctx);
    // Qdrant takes an upsert of no points (one operation that changes nothing); the spec port asks for at least one.
    if (requestState(ctx).dialect === 'qdrant' && isNoPoints(ctx.request.body)) return commit(ctx, engine, { type: 'upsert_points', collection: ctx.params.name!, points: [] });
    // A large upsert is checked a slice at a time: other requests go on between.
    const pause = betweenQuerySlices(1);
    const given = await parseUpsertBodyInSlices(ctx.request.body, REQUEST_THREAD_SLICE_MS, pause);
    // update_filter: existing points that do not match it, as they are once the body is read, are left out.
    const c = collectionOf(ctx);
    const points = conditionalUpsert(c, new PendingUpdates(c), given, updateFilterOf(ctx.request.body));
    await answerCommitted(ctx, engine.submitInSlices({ type: 'upsert_points', collection: ctx.params.name!, points }, REQUEST_THREAD_SLICE_MS, pause));
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

  router.get('/points/:id', (ctx, next) => {
    // A word (discover, search…) is no id: the path names an endpoint, answered 404 or 405 past here.
    if (/^[a-z_]+$/i.test(ctx.params.id!) && !/^[0-9a-f]{32}$/i.test(ctx.params.id!)) return next();
    const c = collectionOf(ctx);
    const id = parsePointIdParam(ctx.params.id!);
    const slot = c.store.slotOf(id);
    if (slot < 0) throw notFound(`no point with id ${id} found in collection "${c.name}"`);
    ok(ctx, pointJson(c, slot, { withPayload: true, withVector: true }));
  });

  return router;
}
