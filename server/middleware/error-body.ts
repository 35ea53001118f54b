import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { DbError } from '../../storage/errors.js';
import { requestState } from '../state.js';

interface HttpishError extends Error {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
}

/** A message a person can act on for the errors Koa and the body parser raise. */
function describe(err: HttpishError, status: number): string {
  if (status === 413) return 'request body is too large';
  if (err.type === 'entity.parse.failed' || err instanceof SyntaxError) return `request body is not valid JSON: ${err.message}`;
  return err.expose === false ? 'bad request' : err.message;
}

/**
 * Turns every error into the spec's body {status: "error", message, code}. A 500 is logged
 * with its request id and stack; the client sees only the id, never the stack.
 */
export function errorBody(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { status: 'error', message: `no endpoint ${ctx.method} ${ctx.path}`, code: 404 };
      } else if (ctx.status === 405 && ctx.body === undefined) {
        ctx.body = { status: 'error', message: `method ${ctx.method} is not allowed on ${ctx.path}`, code: 405 };
      }
    } catch (raw) {
      const err = raw as HttpishError;
      let code = err instanceof DbError ? err.code : (err.status ?? err.statusCode ?? 500);
      if (!Number.isInteger(code) || code < 400 || code > 599) code = 500;
      let message: string;
      if (err instanceof DbError) message = err.message;
      else if (code < 500) message = describe(err, code);
      else {
        const id = requestState(ctx).requestId;
        logger.error({ err, requestId: id, method: ctx.method, path: ctx.path }, 'request failed');
        message = `internal error (request id ${id})`;
      }
      if (code === 503 && err instanceof DbError) logger.error({ requestId: requestState(ctx).requestId, message }, 'write refused');
      ctx.status = code;
      ctx.body = { status: 'error', message, code };
    }
  };
}
