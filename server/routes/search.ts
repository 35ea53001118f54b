import Router from '@koa/router';
import type { Context } from 'koa';
import { requireCollection } from '../../storage/engine/validate-event.js';
import { resolveCollection } from '../../storage/aliases.js';
import { resolveLookups } from '../../query/search/universal/lookup.js';
import type { Engine } from '../../storage/engine/engine.js';
import { pooledScoredJson } from '../../query/api/point-json.js';
import { parseBatchSearchBody, parseSearchBody } from '../../query/api/search-body.js';
import { parseDiscover, parseDiscoverBatch, parseRecommend, parseRecommendBatch, parseRecommendGroups, parseSearchGroups, parseUniversalBatch, parseUniversalGroups, parseUniversalQuery } from '../../query/api/universal-body.js';
import { groupsJson, queryJson } from '../../query/api/universal-json.js';
import type { GroupsQuery, UniversalQuery } from '../../query/api/universal-body.js';
import type { SearchRequest } from '../../query/api/search-body.js';
import { qdrantDenseScore, qdrantPlan, qdrantPlanScore, qdrantSearch, qdrantSearchScore } from '../../query/api/qdrant-scores.js';
import { matrixOffsetsJson, matrixPairsJson, parseSearchMatrix } from '../../query/api/matrix-body.js';
import { searchMatrix } from '../../query/search/matrix.js';
import type { MatrixRequest } from '../../query/search/matrix.js';
import type { Collection } from '../../storage/collection.js';
import { ok, requestState } from '../state.js';

/**
 * Qdrant's query API (`/points/query`: the spec's port answers the array of points, Qdrant's
 * port `{points}`), its search (`vector`) and batch search, recommend, discover and the distance matrix.
 */
export function searchRoutes(engine: Engine): Router {
  const router = new Router({ prefix: '/collections/:name/points' });
  const collectionOf = (ctx: Context) => requireCollection(engine.collections, ctx.params.name!);
  const qdrant = (ctx: Context) => requestState(ctx).dialect === 'qdrant';
  // lookup_from reads its examples here, from the collections this thread holds, before anything runs.
  const lookedUp = <Q extends UniversalQuery>(c: Collection, q: Q): Q => ({ ...q, plan: resolveLookups(q.plan, c, (name) => resolveCollection(engine.collections, name)) });
  // Qdrant's port reads score_threshold and shows scores as Qdrant does (Euclid, Manhattan: the distance itself).
  const query = (ctx: Context, c: Collection, given: UniversalQuery) => {
    const q = lookedUp(c, given);
    return qdrant(ctx) ? queryJson(c, { ...q, plan: qdrantPlan(c, q.plan) }, qdrantPlanScore(c, q.plan)) : queryJson(c, q);
  };
  const groups = (ctx: Context, c: Collection, given: GroupsQuery) => {
    const q = lookedUp(c, given);
    return qdrant(ctx) ? groupsJson(c, { ...q, plan: qdrantPlan(c, q.plan) }, qdrantPlanScore(c, q.plan)) : groupsJson(c, q);
  };
  const search = (ctx: Context, c: Collection, req: SearchRequest) => (qdrant(ctx) ? pooledScoredJson(c, qdrantSearch(c, req), qdrantSearchScore(c, req)) : pooledScoredJson(c, req));
  const matrixScore = (ctx: Context, c: Collection, req: MatrixRequest) => (qdrant(ctx) ? qdrantDenseScore(c, req.using) : (score: number) => score);

  router.post('/query', async (ctx) => {
    const points = await query(ctx, collectionOf(ctx), parseUniversalQuery(ctx.request.body));
    ok(ctx, qdrant(ctx) ? { points } : points);
  });

  router.post('/query/batch', async (ctx) => {
    const c = collectionOf(ctx);
    const answers = await Promise.all(parseUniversalBatch(ctx.request.body).map((q) => query(ctx, c, q)));
    ok(ctx, qdrant(ctx) ? answers.map((points) => ({ points })) : answers);
  });

  router.post('/query/groups', async (ctx) => {
    ok(ctx, await groups(ctx, collectionOf(ctx), parseUniversalGroups(ctx.request.body)));
  });

  router.post('/recommend', async (ctx) => {
    ok(ctx, await query(ctx, collectionOf(ctx), parseRecommend(ctx.request.body)));
  });

  router.post('/recommend/batch', async (ctx) => {
    const c = collectionOf(ctx);
    ok(ctx, await Promise.all(parseRecommendBatch(ctx.request.body).map((q) => query(ctx, c, q))));
  });

  router.post('/recommend/groups', async (ctx) => {
    ok(ctx, await groups(ctx, collectionOf(ctx), parseRecommendGroups(ctx.request.body)));
  });

  router.post('/discover', async (ctx) => {
    ok(ctx, await query(ctx, collectionOf(ctx), parseDiscover(ctx.request.body)));
  });

  router.post('/discover/batch', async (ctx) => {
    const c = collectionOf(ctx);
    ok(ctx, await Promise.all(parseDiscoverBatch(ctx.request.body).map((q) => query(ctx, c, q))));
  });

  router.post('/search/matrix/pairs', (ctx) => {
    const c = collectionOf(ctx);
    const req = parseSearchMatrix(ctx.request.body);
    ok(ctx, matrixPairsJson(c, searchMatrix(c, req), matrixScore(ctx, c, req)));
  });

  router.post('/search/matrix/offsets', (ctx) => {
    const c = collectionOf(ctx);
    const req = parseSearchMatrix(ctx.request.body);
    ok(ctx, matrixOffsetsJson(c, searchMatrix(c, req), matrixScore(ctx, c, req)));
  });

  router.post('/search/groups', async (ctx) => {
    ok(ctx, await groups(ctx, collectionOf(ctx), parseSearchGroups(ctx.request.body)));
  });

  router.post('/search', async (ctx) => {
    const c = collectionOf(ctx);
    ok(ctx, await search(ctx, c, parseSearchBody(ctx.request.body)));
  });

  router.post('/search/batch', async (ctx) => {
    const c = collectionOf(ctx);
    // The searches of a batch walk side by side, one per worker.
    ok(ctx, await Promise.all(parseBatchSearchBody(ctx.request.body).map((req) => search(ctx, c, req))));
  });

  return router;
}
