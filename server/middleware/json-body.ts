import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { DbError } from '../../storage/errors.js';
import type { JsonParsers } from '../../workers/json-parsers.js';
import { requestState } from '../state.js';
import { readBodyBytes } from '../body-bytes.js';

/** Import streams its binary body itself. */
const isImport = (method: string, path: string): boolean => method === 'POST' && path.endsWith('/import');
/** A snapshot upload comes as multipart/form-data (Qdrant's form), kept in a temporary file. */
const isUpload = (method: string, path: string): boolean => method === 'PUT' && path.endsWith('/snapshots/upload');

/** The routes whose bodies carry many vectors (packed-vectors.ts names where), by method and path. */
const VECTOR_ROUTES: readonly [string, RegExp][] = [
  ['PUT', /^\/collections\/[^/]+\/points$/],
  ['PUT', /^\/collections\/[^/]+\/points\/vectors$/],
  ['POST', /^\/collections\/[^/]+\/points\/batch$/],
  ['POST', /^\/collections\/[^/]+\/points\/search\/batch$/],
  ['POST', /^\/collections\/[^/]+\/points\/query\/batch$/],
];

/** Large bodies of the vector routes parsed on `parsers`' threads: those of at least `fromBytes` (by Content-Length, not compressed). */
export interface OffThreadParsing {
  parsers: JsonParsers;
  fromBytes: number;
}

/**
 * Parses JSON bodies up to `limit` bytes (413 past it, checked from Content-Length before
 * reading) and times the parse as the body metric. A body that is not declared as JSON is a 415.
 * A large body of a route that carries many vectors is read here and parsed on a parser thread
 * (`offThread`), with the same decoding, limits and errors as koa-body's.
 */
export function jsonBody(limit: number, offThread: OffThreadParsing | null = null): Middleware {
  const parse = koaBody({ json: true, jsonLimit: limit, multipart: false, urlencoded: false, text: false, jsonStrict: false, patchNode: false });
  const upload = koaBody({ json: false, multipart: true, urlencoded: false, text: false, formidable: { maxFileSize: 2 ** 30, maxFiles: 1 } });
  return async (ctx, next) => {
    if (isImport(ctx.method, ctx.path)) return next();
    if (isUpload(ctx.method, ctx.path)) {
      if (!ctx.is('multipart/form-data')) throw new DbError(415, `send the snapshot as multipart/form-data (field "snapshot"), got "${ctx.get('Content-Type') || 'none'}"`);
      return upload(ctx, next);
    }
    const hasBody = ctx.request.length > 0 || ctx.get('Transfer-Encoding') !== '';
    if (hasBody && !ctx.is('application/json', 'application/*+json')) {
      throw new DbError(415, `send the body as JSON with Content-Type: application/json (got "${ctx.get('Content-Type') || 'none'}")`);
    }
    const start = process.hrtime.bigint();
    const timed = async (): Promise<void> => {
      requestState(ctx).bodyNs = process.hrtime.bigint() - start;
    };
    const length = ctx.request.length;
    if (offThread && length !== undefined && parsesOffThread(ctx.method, ctx.path, length, ctx.get('Content-Encoding'), offThread.fromBytes)) {
      // JSON but for its packed vectors, which the body checks take as they take the browser library's.
      ctx.request.body = (await offThread.parsers.parse(await readBodyBytes(ctx.req, length, limit))) as typeof ctx.request.body;
      await timed();
    } else await parse(ctx, timed);
    await next();
  };
}

/** Whether a body is parsed on a parser thread: one of the vector routes', its length known, at least `fromBytes` (0: none), sent as it is (not compressed). */
function parsesOffThread(method: string, path: string, length: number, encoding: string, fromBytes: number): boolean {
  if (fromBytes === 0 || length < fromBytes) return false;
  if (encoding !== '' && encoding.toLowerCase() !== 'identity') return false;
  return VECTOR_ROUTES.some(([m, route]) => m === method && route.test(path));
}
