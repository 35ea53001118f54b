import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import type { Engine } from '../../storage/engine/engine.js';
import { requireCollection } from '../../storage/engine/validate-event.js';
import { badRequest } from '../../storage/errors.js';
import { isObject } from '../../query/api/fields.js';
import { ok } from '../state.js';
import { QDRANT_API_VERSION } from './health.js';

/**
 * What a single-node Qdrant answers about its cluster, telemetry and optimizations, for the Qdrant
 * port: clients and dashboards ask before they work. One node, cluster mode off, each collection
 * one local shard; no shard keys (a collection here is never custom-sharded, so Qdrant's own
 * refusals of them apply); the background indexer is not one of Qdrant's optimizers, so nothing is
 * listed as running.
 */
export function qdrantNodeRoutes(engine: Engine): Router {
  const router = new Router();
  const id = randomUUID();
  const startup = new Date().toISOString();

  router.get('/cluster', (ctx) => ok(ctx, { status: 'disabled' }));

  router.get('/telemetry', (ctx) => {
    ok(ctx, { id, app: { name: 'qdrant', version: QDRANT_API_VERSION, startup }, collections: { number_of_collections: engine.collections.size } });
  });

  router.get('/collections/:name/cluster', (ctx) => {
    const c = requireCollection(engine.collections, ctx.params.name!);
    ok(ctx, { peer_id: 0, shard_count: 1, local_shards: [{ shard_id: 0, points_count: c.store.liveCount, state: 'Active' }], remote_shards: [], shard_transfers: [] });
  });

  router.get('/collections/:name/optimizations', (ctx) => {
    requireCollection(engine.collections, ctx.params.name!);
    ok(ctx, { summary: { queued_optimizations: 0, queued_segments: 0, queued_points: 0, idle_segments: 0 }, running: [] });
  });

  router.get('/collections/:name/shards', (ctx) => {
    requireCollection(engine.collections, ctx.params.name!);
    ok(ctx, { shard_keys: null });
  });

  const shardKeyOf = (body: unknown): string => JSON.stringify(isObject(body) ? (body.shard_key ?? null) : null);
  router.put('/collections/:name/shards', (ctx) => {
    requireCollection(engine.collections, ctx.params.name!);
    throw badRequest(`Bad request: Shard Key ${shardKeyOf(ctx.request.body)} cannot be created with Auto sharding method`);
  });
  router.post('/collections/:name/shards/delete', (ctx) => {
    requireCollection(engine.collections, ctx.params.name!);
    throw badRequest(`Bad request: shard key ${shardKeyOf(ctx.request.body)} cannot be removed with Auto sharding method`);
  });

  return router;
}
