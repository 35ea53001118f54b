import Router from '@koa/router';
import type { Context } from 'koa';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { Engine } from '../../storage/engine/engine.js';
import { scoredJson } from '../../query/api/point-json.js';
import { parseBatchSearchBody, parseSearchBody } from '../../query/api/search-body.js';
import { parseRecommend, parseRecommendBatch, parseSearchGroups, parseUniversalBatch, parseUniversalGroups, parseUniversalQuery } from '../../query/api/universal-body.js';
import { groupsJson, queryJson } from '../../query/api/universal-json.js';
import { ok, requestState } from '../state.js';

/**
 * Qdrant's query API (`/points/query`: the spec's port answers the array of points, Qdrant's
 * port `{points}`), its search (`vector`) and batch search.
 */
export function searchRoutes(engine: Engine): Router {
  const router = new Router({ prefix: '/collections/:name/points' });
  const collectionOf = (ctx: Context) => requireCollection(engine.collections, ctx.params.name!);
  const qdrant = (ctx: Context) => requestState(ctx).dialect === 'qdrant';

  router.post('/query', (ctx) => {
    const points = queryJson(collectionOf(ctx), parseUniversalQuery(ctx.request.body));
    ok(ctx, qdrant(ctx) ? { points } : points);
  });

  router.post('/query/batch', (ctx) => {
    const c = collectionOf(ctx);
    const answers = parseUniversalBatch(ctx.request.body).map((q) => queryJson(c, q));
    ok(ctx, qdrant(ctx) ? answers.map((points) => ({ points })) : answers);
  });

  router.post('/query/groups', (ctx) => {
    ok(ctx, groupsJson(collectionOf(ctx), parseUniversalGroups(ctx.request.body)));
  });

  router.post('/recommend', (ctx) => {
    ok(ctx, queryJson(collectionOf(ctx), parseRecommend(ctx.request.body)));
  });

  router.post('/recommend/batch', (ctx) => {
    const c = collectionOf(ctx);
    ok(ctx, parseRecommendBatch(ctx.request.body).map((q) => queryJson(c, q)));
  });

  router.post('/search/groups', (ctx) => {
    ok(ctx, groupsJson(collectionOf(ctx), parseSearchGroups(ctx.request.body)));
  });

  router.post('/search', (ctx) => {
    const c = collectionOf(ctx);
    ok(ctx, scoredJson(c, parseSearchBody(ctx.request.body)));
  });

  router.post('/search/batch', (ctx) => {
    const c = collectionOf(ctx);
    ok(ctx, parseBatchSearchBody(ctx.request.body).map((req) => scoredJson(c, req)));
  });

  return router;
}
