import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { DbError } from '../../storage/errors.js';
import { requestState } from '../state.js';

/** Import streams its binary body itself. */
const isImport = (method: string, path: string): boolean => method === 'POST' && path.endsWith('/import');
/** A snapshot upload comes as multipart/form-data (Qdrant's form), kept in a temporary file. */
const isUpload = (method: string, path: string): boolean => method === 'PUT' && path.endsWith('/snapshots/upload');

/**
 * Parses JSON bodies up to `limit` bytes (413 past it, checked from Content-Length before
 * reading) and times the parse as the body metric. A body that is not declared as JSON is a 415.
 */
export function jsonBody(limit: number): Middleware {
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
    await parse(ctx, async () => {
      requestState(ctx).bodyNs = process.hrtime.bigint() - start;
    });
    await next();
  };
}
