import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { parseJsonBytes } from '../../query/api/json-bytes.js';
import { DbError } from '../../storage/errors.js';
import { JsonSyntaxError, type JsonParsers } from '../../workers/json-parsers.js';
import { requestState } from '../state.js';
import { readBodyBytes } from '../body-bytes.js';
import { handedBody } from '../in-process-body.js';

/** Import streams its binary body itself. */
const isImport = (method: string, path: string): boolean => method === 'POST' && path.endsWith('/import');
/** A snapshot upload comes as multipart/form-data (Qdrant's form), kept in a temporary file. */
const isUpload = (method: string, path: string): boolean => method === 'PUT' && path.endsWith('/snapshots/upload');

/** The methods whose bodies are parsed (koa-body's). */
const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH']);

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
 * A body of known length sent as it is (not compressed) is read whole and parsed here
 * (query/api/json-bytes.ts: koa-body's decoding and parse, without its stream wrappers and
 * per-request setup), or, when large and of a route that carries many vectors, on a parser
 * thread (`offThread`); the rest (chunked or compressed) go through koa-body. All three answer
 * the same limits and errors.
 */
export function jsonBody(limit: number, offThread: OffThreadParsing | null = null): Middleware {
  const parse = koaBody({ json: true, jsonLimit: limit, multipart: false, urlencoded: false, text: false, jsonStrict: false, patchNode: false });
  const upload = koaBody({ json: false, multipart: true, urlencoded: false, text: false, formidable: { maxFileSize: 2 ** 30, maxFiles: 1 } });
  return async (ctx, next) => {
    const given = handedBody(ctx.req);
    if (given !== undefined) {
      ctx.request.body = given as typeof ctx.request.body;
      return next();
    }
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
    if (length !== undefined && length > 0 && PARSED_METHODS.has(ctx.method) && !compressed(ctx.get('Content-Encoding'))) {
      const bytes = await readBodyBytes(ctx.req, length, limit);
      // JSON but for its packed vectors, which the body checks take as they take the browser library's.
      const body = offThread && parsesOffThread(ctx.method, ctx.path, length, offThread.fromBytes) ? await offThread.parsers.parse(bytes) : parsedHere(bytes);
      ctx.request.body = body as typeof ctx.request.body;
      await timed();
    } else await parse(ctx, timed);
    await next();
  };
}

const compressed = (encoding: string): boolean => encoding !== '' && encoding.toLowerCase() !== 'identity';

/** A body parsed on the request thread; a fault is a 400, as koa-body's and the parser threads' are. */
function parsedHere(bytes: Uint8Array): unknown {
  try {
    return parseJsonBytes(bytes);
  } catch (err) {
    throw err instanceof SyntaxError ? new JsonSyntaxError(err.message) : err;
  }
}

/** Whether a body read whole is parsed on a parser thread: one of the vector routes', at least `fromBytes` (0: none). */
function parsesOffThread(method: string, path: string, length: number, fromBytes: number): boolean {
  if (fromBytes === 0 || length < fromBytes) return false;
  return VECTOR_ROUTES.some(([m, route]) => m === method && route.test(path));
}
