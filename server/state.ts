import type { Context } from 'koa';
import { jsonText } from '../query/api/json-text.js';
import { qdrantShaped } from './qdrant-points.js';

/** Which REST dialect a listener answers in: SPEC.md's shapes (6333) or Qdrant's (SERVICE_QDRANT_PORT). */
export type Dialect = 'spec' | 'qdrant';

/** What the middleware keep per request in ctx.state. */
export interface RequestState {
  dialect: Dialect;
  requestId: string;
  /** process.hrtime.bigint() when the request arrived. */
  startedAt: bigint;
  bodyNs: bigint;
  handlerNs: bigint;
  /** The route pattern, once routePatterns has worked it out (the request log and the metrics both ask). */
  route?: string | null;
}

export function requestState(ctx: Context): RequestState {
  return ctx.state as RequestState;
}

/** Writes the success envelope: status, result and the time spent so far in seconds. */
export function ok(ctx: Context, result: unknown): void {
  const { startedAt, dialect } = requestState(ctx);
  const elapsed = Number(process.hrtime.bigint() - startedAt) / 1e9;
  if (dialect === 'qdrant') qdrantShaped(result);
  ctx.body = result === undefined ? { status: 'ok', time: elapsed } : { status: 'ok', result, time: elapsed };
}

/** As ok(), written by jsonText so that Cypher floats keep their '.0' (see JsonFloat). */
export function okText(ctx: Context, result: unknown): void {
  const elapsed = Number(process.hrtime.bigint() - requestState(ctx).startedAt) / 1e9;
  ctx.type = 'application/json';
  ctx.body = jsonText({ status: 'ok', result, time: elapsed });
}
