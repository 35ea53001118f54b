import Router from '@koa/router';
import type { Context } from 'koa';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { Engine } from '../../storage/engine/engine.js';
import { notFound } from '../../storage/errors.js';
import type { Edge } from '../../storage/views/graph-store.js';
import { cypherJson, cypherTextJson, traverseJson } from '../../query/api/graph-json.js';
import { compileQuery, executeQueryInSlices, isWriteQuery, type CypherResult } from '../../query/cypher/run-query.js';
import { betweenQuerySlices, REQUEST_THREAD_SLICE_MS } from '../next-turn.js';
import type { GuardOptions } from '../../query/cypher/guard.js';
import type { GraphTx } from '../../query/cypher/graph-tx.js';
import { logBatch, logQueryResult } from '../../query/cypher/log-result.js';
import { serialWrite } from '../../query/cypher/write-queue.js';
import { ok, okText } from '../state.js';
import { toTypedJson } from '../../query/cypher/present.js';
import { JsonText } from '../../query/api/json-text.js';
import type { CypherReplicas } from '../../workers/cypher-replicas.js';
import { parseDirection, parseEdgeBody, parseGraphQueryBody, parsePointIdParam, parseTraverseBody } from '../../query/api/graph-body.js';

/**
 * Add Edge, Get Neighbors, Traverse and Graph Query; each Cypher query runs within `limits`
 * (memory and time). A read-only query runs on a Cypher replica when `replicas` takes it, else
 * here in slices; a write query always runs here, as it logs its changes. With replicas, a
 * traverse walks on one too.
 */
export function graphRoutes(engine: Engine, limits: GuardOptions, replicas: CypherReplicas | null = null): Router {
  const router = new Router({ prefix: '/collections/:name/graph' });
  const collectionOf = (ctx: Context) => requireCollection(engine.collections, ctx.params.name!);

  router.post('/edges', async (ctx) => {
    const c = collectionOf(ctx);
    const edge = parseEdgeBody(ctx.request.body);
    const { result } = await engine.submit({ type: 'upsert_edge', collection: c.name, ...edge });
    if (result.error) throw result.error;
    ok(ctx, { created: result.created === true });
  });

  router.get('/neighbors/:point', (ctx) => {
    const c = collectionOf(ctx);
    const id = parsePointIdParam(ctx.params.point!);
    const direction = parseDirection(ctx.query.direction);
    const relation = typeof ctx.query.relation === 'string' && ctx.query.relation !== '' ? ctx.query.relation : null;
    if (!c.store.has(id)) throw notFound(`point ${id} not found in collection "${c.name}"`);
    const other = (e: Edge) => (direction !== 'incoming' && e.from === id ? e.to : e.from);
    const neighbors = c.graph.edgesAt(id, direction, relation).map((e) => ({ id: other(e), weight: e.weight, relation: e.relation }));
    ok(ctx, { neighbors });
  });

  router.post('/traverse', async (ctx) => {
    const c = collectionOf(ctx);
    const req = parseTraverseBody(ctx.request.body);
    const elsewhere = replicas?.traverse(c.name, req);
    if (elsewhere) okText(ctx, new JsonText(await elsewhere));
    else ok(ctx, traverseJson(c, req));
  });

  router.post('/query', async (ctx) => {
    const started = performance.now();
    const req = parseGraphQueryBody(ctx.request.body);
    const query = compileQuery(req.query);
    let result: CypherResult;
    // EXPLAIN runs nothing, so even of a write it is a read; EXPLAIN and PROFILE answer here, where the plan is made.
    if (!isWriteQuery(query) || query.explain === 'explain') {
      const c = collectionOf(ctx);
      const elsewhere = query.explain ? null : replicas?.run(c.name, query, req.query, req.parameters, limits);
      if (elsewhere) return okText(ctx, cypherTextJson(await elsewhere, started));
      const inPlace = (pause: () => Promise<void>) => executeQueryInSlices(c, query, req.parameters, { sliceMs: REQUEST_THREAD_SLICE_MS, ...limits }, { present: toTypedJson }, pause);
      if (!replicas || query.explain) result = await inPlace(betweenQuerySlices(1));
      else {
        const ran = await replicas.runHereUntilFree(c.name, query, req.query, req.parameters, limits, inPlace, betweenQuerySlices(1));
        if ('there' in ran) return okText(ctx, cypherTextJson(ran.there, started));
        result = ran.here;
      }
    } else {
      result = await serialWrite(engine, async () => {
        const c = collectionOf(ctx);
        const batchLog = { commit: (tx: GraphTx) => logBatch(engine, c.name, tx) };
        const r = await executeQueryInSlices(c, query, req.parameters, { sliceMs: REQUEST_THREAD_SLICE_MS, ...limits }, { present: toTypedJson, batchLog }, betweenQuerySlices(1));
        await logQueryResult(engine, c.name, r);
        return r;
      });
    }
    okText(ctx, cypherJson(result, started));
  });

  return router;
}
