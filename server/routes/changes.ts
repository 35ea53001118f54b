import Router from '@koa/router';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { Engine } from '../../storage/engine/engine.js';
import { badRequest } from '../../storage/errors.js';
import { changeFeed, checkFeedStart, type FeedItem } from '../../query/changes/change-feed.js';
import { changePieces } from '../../query/changes/change-json.js';

/** An idle Server-Sent Events stream sends a comment this often, so proxies keep it open. */
const SSE_HEARTBEAT_MS = 15_000;

function nonNegativeInt(raw: unknown, name: string): number | null {
  if (raw === undefined) return null;
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw)) throw badRequest(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

async function* ndjson(items: AsyncIterable<FeedItem>): AsyncGenerator<string> {
  for await (const item of items) {
    if (item === 'heartbeat') continue;
    for (const piece of changePieces(item)) yield piece;
    yield '\n';
  }
}

async function* eventStream(items: AsyncIterable<FeedItem>): AsyncGenerator<string> {
  for await (const item of items) {
    if (item === 'heartbeat') {
      yield ': still here\n\n';
      continue;
    }
    yield `id: ${item.opId}\nevent: change\ndata: `;
    for (const piece of changePieces(item)) yield piece;
    yield '\n\n';
  }
}

/**
 * The changefeed: the log's entries from `from` on as NDJSON, or as Server-Sent Events when the
 * client accepts text/event-stream (resuming after Last-Event-ID), following new entries as they
 * are applied until the client goes or `wait_ms` passes with none.
 */
export function changesRoutes(engine: Engine, lag: (() => { applied_operation_id: number; stream_operation_id: number | null; lag_entries: number }) | null = null): Router {
  const router = new Router();
  router.get('/changes', (ctx: Context) => {
    const sse = ctx.accepts('application/x-ndjson', 'text/event-stream') === 'text/event-stream';
    const lastEventId = sse ? nonNegativeInt(ctx.get('last-event-id') || undefined, 'Last-Event-ID') : null;
    const from = nonNegativeInt(ctx.query.from, 'from') ?? (lastEventId !== null ? lastEventId + 1 : engine.lastAppliedOperationId + 1);
    const idleMs = nonNegativeInt(ctx.query.wait_ms, 'wait_ms');
    const collection = ctx.query.collection;
    if (collection !== undefined && (typeof collection !== 'string' || collection === '')) throw badRequest('collection must be one collection name');
    ctx.set('X-Oldest-Operation-Id', String(engine.log.firstOperationId));
    // On a replica: how far this feed is behind the primary's stream as it starts.
    if (lag) {
      const l = lag();
      ctx.set('X-Applied-Operation-Id', String(l.applied_operation_id));
      if (l.stream_operation_id !== null) ctx.set('X-Stream-Operation-Id', String(l.stream_operation_id));
      ctx.set('X-Replication-Lag-Entries', String(l.lag_entries));
    }
    checkFeedStart(engine, Math.max(from, 1));
    const abort = new AbortController();
    ctx.req.once('close', () => abort.abort());
    const items = changeFeed(engine, { from: Math.max(from, 1), collection: collection ?? null, idleMs, heartbeatMs: sse ? SSE_HEARTBEAT_MS : null, signal: abort.signal });
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = sse ? 'text/event-stream' : 'application/x-ndjson';
    const body = Readable.from(sse ? eventStream(items) : ndjson(items), { objectMode: false });
    body.once('close', () => abort.abort());
    ctx.body = body;
  });
  return router;
}
