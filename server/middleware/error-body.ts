import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { DbError } from '../../storage/errors.js';
import { requestState, type Dialect } from '../state.js';

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
 * The error body of a dialect: the spec's {status: "error", message, code}, or Qdrant's
 * {status: {error}, time} (its clients show status.error).
 */
export function errorJson(dialect: Dialect | undefined, message: string, code: number, startedAt: bigint | undefined): Record<string, unknown> {
  if (dialect !== 'qdrant') return { status: 'error', message, code };
  return { status: { error: message }, time: startedAt === undefined ? 0 : Number(process.hrtime.bigint() - startedAt) / 1e9 };
}

/**
 * Turns every error into the dialect's error body. A 500 is logged with its request id and
 * stack; the client sees only the id, never the stack.
 */
export function errorBody(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      const { dialect, startedAt } = requestState(ctx);
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = errorJson(dialect, `no endpoint ${ctx.method} ${ctx.path}`, 404, startedAt);
      } else if (ctx.status === 405 && ctx.body === undefined) {
        ctx.body = errorJson(dialect, `method ${ctx.method} is not allowed on ${ctx.path}`, 405, startedAt);
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
      ctx.body = errorJson(requestState(ctx).dialect, message, code, requestState(ctx).startedAt);
    }
  };
}
