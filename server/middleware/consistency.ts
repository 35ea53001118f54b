import type { Middleware } from 'koa';
import type { Engine } from '../../storage/engine/engine.js';
import { badRequest, DbError } from '../../storage/errors.js';
import { isObject } from '../../query/api/fields.js';

/** How long a request waits for its min_operation_id unless it says otherwise. */
export const DEFAULT_CONSISTENCY_TIMEOUT_MS = 5_000;
const MAX_TIMEOUT_MS = 60_000;

const FIELDS = new Set(['min_operation_id', 'timeout_ms']);

function operationId(value: unknown, where: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  throw badRequest(`${where} must be an operation_id (a non-negative integer), got ${JSON.stringify(value)}`);
}

/** The request's `consistency` body field or X-Min-Operation-Id header, taken out of the body. */
function wanted(ctx: Parameters<Middleware>[0]): { opId: number; timeoutMs: number } | null {
  const header = ctx.get('x-min-operation-id');
  const body: unknown = ctx.request.body;
  let opId = header === '' ? null : operationId(header, 'X-Min-Operation-Id');
  let timeoutMs = DEFAULT_CONSISTENCY_TIMEOUT_MS;
  if (isObject(body) && Object.hasOwn(body, 'consistency')) {
    const c = body.consistency;
    delete body.consistency;
    if (!isObject(c)) throw badRequest(`consistency must be an object {"min_operation_id": OP, "timeout_ms"?: N}, got ${JSON.stringify(c)}`);
    const unknown = Object.keys(c).find((k) => !FIELDS.has(k));
    if (unknown !== undefined) throw badRequest(`consistency.${unknown} is not a field we handle: send min_operation_id and, optionally, timeout_ms`);
    if (c.min_operation_id === undefined) throw badRequest('consistency.min_operation_id is required');
    const fromBody = operationId(c.min_operation_id, 'consistency.min_operation_id');
    opId = opId === null ? fromBody : Math.max(opId, fromBody);
    if (c.timeout_ms !== undefined) {
      if (typeof c.timeout_ms !== 'number' || !Number.isInteger(c.timeout_ms) || c.timeout_ms < 0 || c.timeout_ms > MAX_TIMEOUT_MS) {
        throw badRequest(`consistency.timeout_ms must be an integer from 0 to ${MAX_TIMEOUT_MS}, got ${JSON.stringify(c.timeout_ms)}`);
      }
      timeoutMs = c.timeout_ms;
    }
  }
  return opId === null ? null : { opId, timeoutMs };
}

/**
 * Read your writes: a request naming an operation_id (body `consistency.min_operation_id` or
 * header X-Min-Operation-Id) is answered only once that operation is applied; past the
 * timeout it is a 504 saying how far the state is.
 */
export function consistency(engine: Engine): Middleware {
  return async (ctx, next) => {
    const want = wanted(ctx);
    if (want && !(await engine.applied.waitFor(want.opId, want.timeoutMs))) {
      throw new DbError(504, `operation ${want.opId} is not applied after ${want.timeoutMs} ms (applied up to ${engine.lastAppliedOperationId}); retry, or wait longer with consistency.timeout_ms`);
    }
    await next();
  };
}
