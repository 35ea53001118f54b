import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { Payload } from '../../storage/events/types.js';
import { Engine } from '../../storage/engine/engine.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { join } from 'node:path';
import { searchCollection } from '../../query/search/vector-search.js';
import { readConfig } from '../../server/config.js';

/**
 * The floor the real server's request path is measured against: a bare node:http server over a
 * copy of the real server's data dir, running the same in-process search for
 * POST /collections/{c}/points/{search,query} ({vector} or {query}, limit; ef 100) and the same
 * durable write for PUT /collections/{c}/points (engine.submit of the points), answering the same
 * envelope, with nothing else (no middleware, validation, logs or metrics). With `--koa` the same
 * searches are served through the framework the real server is built on and nothing more: Koa,
 * one @koa/router and koa-body's JSON parsing. Prints {"port": N} once it listens on 127.0.0.1.
 * A bench helper, not a service.
 */
const [dataDir, front = '--bare'] = process.argv.slice(2);
if (!dataDir || (front !== '--bare' && front !== '--koa')) throw new Error('usage: bare-server DATA_DIR [--bare | --koa]');
const snapshots = new SnapshotFiles(join(dataDir, 'snapshots'), () => undefined);
// The write path's settings as the server has them by default (snapshots, log retention, the
// high-water mark once a second), so that both do the same work a write.
const config = readConfig({});
const engine = new Engine(LmdbLog.open(dataDir), { snapshots, snapshotEvery: config.snapshotEvery, logRetention: config.logRetention, markEveryMs: 1000, limits: config.writeLimits });
await engine.start();
engine.flushIndex();

interface Body {
  vector?: number[];
  query?: number[];
  limit?: number;
  points?: { id: number; vector: number[]; payload?: Payload }[];
}

const envelope = (started: bigint, result: unknown) => ({ status: 'ok', result, time: Number(process.hrtime.bigint() - started) / 1e9 });

/** The search both fronts answer, or null when there is no such collection. */
function search(collection: string, body: Body, started: bigint): object | null {
  const c = engine.collections.get(collection);
  if (!c) return null;
  const vector = Float32Array.from(body.vector ?? body.query ?? []);
  const hits = searchCollection(c, { vector, limit: body.limit ?? 10, offset: 0, ef: 100, filter: null, scoreThreshold: null });
  return envelope(started, hits.map((h) => ({ id: h.id, score: h.score })));
}

const ROUTE = /^\/collections\/([^/]+)\/points(\/search|\/query)?$/;

function answer(res: ServerResponse, json: object): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(json));
}

async function handle(req: IncomingMessage, res: ServerResponse, text: string): Promise<void> {
  const started = process.hrtime.bigint();
  const route = ROUTE.exec(req.url ?? '');
  const name = route?.[1] ?? '';
  const body = JSON.parse(text) as Body;
  const c = engine.collections.get(name);
  const found = req.method === 'POST' && route?.[2] ? search(name, body, started) : null;
  if (found) answer(res, found);
  else if (c && req.method === 'PUT' && !route?.[2]) {
    const points = (body.points ?? []).map((p) => ({ id: p.id, vector: Float32Array.from(p.vector), payload: p.payload ?? {}, labels: [] }));
    const { opId } = await engine.submit({ type: 'upsert_points', collection: c.name, points });
    answer(res, envelope(started, { operation_id: opId, status: 'completed' }));
  } else res.writeHead(404).end();
}

function bareServer() {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString()).catch((err: Error) => res.writeHead(500).end(err.message));
    });
  });
}

/** The searches through Koa, a router and koa-body, as the real server parses them (JSON up to its limit). */
function koaServer() {
  const app = new Koa();
  const router = new Router({ prefix: '/collections/:name/points' });
  for (const path of ['/search', '/query']) {
    router.post(path, (ctx) => {
      const found = search(ctx.params.name!, ctx.request.body as Body, process.hrtime.bigint());
      if (found) ctx.body = found;
    });
  }
  app.use(koaBody({ json: true, jsonLimit: config.jsonLimit, multipart: false, urlencoded: false, text: false, jsonStrict: false, patchNode: false }));
  app.use(router.routes());
  return createServer(app.callback());
}

const server = front === '--koa' ? koaServer() : bareServer();
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
process.once('SIGTERM', () => {
  server.close();
  void engine.close().then(() => process.exit(0));
});
