import Router from '@koa/router';
import type { Context } from 'koa';
import type { Engine } from '../../storage/engine/engine.js';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { PointUpdate } from '../../storage/events/types.js';
import { parseBatchUpdate, parsePointUpdate } from '../../query/api/point-updates-body.js';
import { ok } from '../state.js';
import { commit } from './points.js';

/** Qdrant's payload and vector updates, and batches of updates: each call is one logged event. */
export function pointUpdateRoutes(engine: Engine): Router {
  const router = new Router({ prefix: '/collections/:name/points' });
  const submit = (ctx: Context, updates: (c: ReturnType<typeof requireCollection>) => PointUpdate[]) => {
    const c = requireCollection(engine.collections, ctx.params.name!);
    return commit(ctx, engine, { type: 'update_points', collection: c.name, updates: updates(c) });
  };

  router.post('/payload', (ctx) => submit(ctx, (c) => parsePointUpdate(c, 'set_payload', ctx.request.body)));
  router.put('/payload', (ctx) => submit(ctx, (c) => parsePointUpdate(c, 'overwrite_payload', ctx.request.body)));
  router.post('/payload/delete', (ctx) => submit(ctx, (c) => parsePointUpdate(c, 'delete_payload', ctx.request.body)));
  router.post('/payload/clear', (ctx) => submit(ctx, (c) => parsePointUpdate(c, 'clear_payload', ctx.request.body)));
  router.put('/vectors', (ctx) => submit(ctx, (c) => parsePointUpdate(c, 'update_vectors', ctx.request.body)));
  router.post('/vectors/delete', (ctx) => submit(ctx, (c) => parsePointUpdate(c, 'delete_vectors', ctx.request.body)));
  router.post('/batch', async (ctx) => {
    const c = requireCollection(engine.collections, ctx.params.name!);
    const { opId, result } = await engine.submit({ type: 'update_points', collection: c.name, updates: parseBatchUpdate(c, ctx.request.body) });
    if (result.error) throw result.error;
    // Qdrant answers one result per operation; they are one event here, so they share its operation_id.
    const count = (ctx.request.body as { operations: unknown[] }).operations.length;
    ok(ctx, Array.from({ length: count }, () => ({ operation_id: opId, status: 'completed' })));
  });
  return router;
}
