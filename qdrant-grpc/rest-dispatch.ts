import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type Koa from 'koa';
import { handBody } from '../server/in-process-body.js';

/** A request in Qdrant's REST dialect that a gRPC call stands for. */
export interface RestCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path with its query string, names already encoded. */
  path: string;
  body?: unknown;
}

export interface RestAnswer {
  status: number;
  body: unknown;
}

/** Where a call came from: the connection's address, one object per connection (the in-flight count tells connections apart by it). */
export interface Peer {
  remoteAddress: string | undefined;
  encrypted: boolean;
}

/** The few parts of a ServerResponse Koa's context writes to: status and headers, kept rather than sent. */
class HeldResponse extends EventEmitter {
  statusCode = 404;
  statusMessage = '';
  headersSent = false;
  writableEnded = false;
  socket = null;
  private readonly headers = new Map<string, number | string | string[]>();
  setHeader(name: string, value: number | string | string[]): this {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }
  getHeader(name: string): number | string | string[] | undefined {
    return this.headers.get(name.toLowerCase());
  }
  getHeaders(): Record<string, number | string | string[]> {
    return Object.fromEntries(this.headers);
  }
  getHeaderNames(): string[] {
    return [...this.headers.keys()];
  }
  hasHeader(name: string): boolean {
    return this.headers.has(name.toLowerCase());
  }
  removeHeader(name: string): void {
    this.headers.delete(name.toLowerCase());
  }
}

/**
 * Answers REST calls with a Qdrant-dialect app's whole middleware chain, in process: the
 * credentials, readiness, consistency, the route handlers and the error bodies are the Qdrant
 * port's own, and the request log and metrics count the call. The body goes in as the object it
 * is (server/in-process-body.ts: never written as JSON to be parsed again, so the limit on it is
 * the gRPC message's), and what comes back is the status and the body as the handlers left them.
 */
export function restDispatcher(app: Koa): (call: RestCall, headers: Record<string, string>, peer: Peer) => Promise<RestAnswer> {
  const run = (app as unknown as { compose(mw: Koa.Middleware[]): (ctx: Koa.Context) => Promise<void> }).compose(app.middleware);
  return async (call, headers, peer) => {
    const req = Readable.from([]) as unknown as IncomingMessage;
    Object.assign(req, {
      method: call.method,
      url: call.path,
      httpVersion: '2.0',
      httpVersionMajor: 2,
      httpVersionMinor: 0,
      socket: peer,
      headers: { ...headers, host: 'grpc' },
    });
    if (call.body !== undefined) handBody(req, call.body);
    const res = new HeldResponse();
    const ctx = app.createContext(req, res as unknown as ServerResponse);
    res.statusCode = 404;
    try {
      await run(ctx);
    } finally {
      res.writableEnded = true;
      res.emit('finish');
    }
    return { status: ctx.status, body: ctx.body };
  };
}
