import { readFileSync } from 'node:fs';
import { createSecureServer, createServer, type Http2Server, type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { ServiceConfig } from '../server/config.js';
import { protoJson } from './codecs.js';
import { encodeGrpcMessage, frame, unframe } from './framing.js';
import { METHODS, QDRANT_SERVICES, type Envelope, type GrpcMethod, type Rest } from './methods.js';
import type { Msg } from './proto-json.js';
import { restDispatcher, type Peer } from './rest-dispatch.js';
import { GrpcError, GrpcStatus, grpcStatusOfHttp } from './status.js';

export interface QdrantGrpcServer {
  port: number;
  /** http:// or https://, as Qdrant's gRPC clients take it. */
  url: string;
  /** Stops taking calls, lets those in flight finish (at most `graceMs`), then closes every connection. */
  close(graceMs: number): Promise<void>;
}

/** The gRPC metadata a REST call carries on: the credentials, which the REST authentication reads as it reads them on 6335. */
const FORWARDED_HEADERS = ['api-key', 'authorization'] as const;

const GRPC_CONTENT_TYPES = new Set(['application/grpc', 'application/grpc+proto']);

function errorMessage(body: unknown): string {
  const error = (body as { status?: { error?: unknown } } | null)?.status?.error;
  return typeof error === 'string' ? error : 'the request failed';
}

function readBody(stream: ServerHttp2Stream, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) reject(new GrpcError(GrpcStatus.RESOURCE_EXHAUSTED, `the request message is larger than ${limit} bytes (SERVICE_JSON_LIMIT_BYTES)`));
      else chunks.push(chunk);
    });
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('aborted', () => reject(new GrpcError(GrpcStatus.CANCELLED, 'the client cancelled the call')));
  });
}

function unimplemented(path: string): never {
  const [, service = '', name = ''] = /^\/([^/]*)\/([^/]*)$/.exec(path) ?? [];
  if (QDRANT_SERVICES.has(service)) throw new GrpcError(GrpcStatus.UNIMPLEMENTED, `${service}/${name} is not implemented by this server (see the README's Qdrant gRPC section for the methods served)`);
  throw new GrpcError(GrpcStatus.UNIMPLEMENTED, `unknown method ${path}: this port serves Qdrant's gRPC services`);
}

function decode(method: GrpcMethod, bytes: Buffer): Msg {
  try {
    return fromBinary(method.input, bytes) as unknown as Msg;
  } catch (err) {
    throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, `the request does not decode as ${method.input.typeName}: ${(err as Error).message}`);
  }
}

function sendMessage(stream: ServerHttp2Stream, bytes: Uint8Array): void {
  if (stream.destroyed) return;
  stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-accept-encoding': 'identity,deflate,gzip' }, { waitForTrailers: true });
  stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': String(GrpcStatus.OK) }));
  stream.end(frame(bytes));
}

/** A trailers-only answer: the status and message in the one header block. */
function sendError(stream: ServerHttp2Stream, code: number, message: string): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(code), 'grpc-message': encodeGrpcMessage(message) }, { endStream: true });
}

function createListener(config: ServiceConfig): Http2Server {
  if (!config.tlsCert || !config.tlsKey) return createServer();
  return createSecureServer({ cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) });
}

/**
 * Qdrant's gRPC API (SERVICE_QDRANT_GRPC_PORT) over node:http2, unary calls framed here: each
 * call's message is decoded with Qdrant's own schemas (@qdrant/js-client-grpc), converted to the
 * REST request it stands for and answered by the Qdrant-dialect app, whose answer is converted back.
 */
export async function startQdrantGrpcServer(config: ServiceConfig, app: Koa, logger: Logger, port: number): Promise<QdrantGrpcServer> {
  const dispatch = restDispatcher(app);
  const server = createListener(config);
  const sessions = new Set<Http2Session>();
  const peers = new WeakMap<Http2Session, Peer>();
  const encrypted = Boolean(config.tlsCert && config.tlsKey);
  server.on('session', (session) => {
    sessions.add(session);
    peers.set(session, { remoteAddress: session.socket?.remoteAddress, encrypted });
    session.on('error', () => undefined);
    session.once('close', () => sessions.delete(session));
  });

  const answer = async (stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> => {
    const path = String(headers[':path'] ?? '');
    const contentType = String(headers['content-type'] ?? '').split(';')[0]!.trim();
    if (headers[':method'] !== 'POST' || !GRPC_CONTENT_TYPES.has(contentType)) {
      stream.respond({ ':status': headers[':method'] !== 'POST' ? 405 : 415 }, { endStream: true });
      return;
    }
    try {
      const method = METHODS.get(path) ?? unimplemented(path);
      const encoding = headers['grpc-encoding'];
      const request = decode(method, unframe(await readBody(stream, config.jsonLimit), typeof encoding === 'string' ? encoding : undefined));
      const forwarded: Record<string, string> = {};
      for (const name of FORWARDED_HEADERS) if (typeof headers[name] === 'string') forwarded[name] = headers[name];
      const peer = peers.get(stream.session!) ?? { remoteAddress: undefined, encrypted };
      const rest: Rest = async (call) => {
        const { status, body } = await dispatch(call, forwarded, peer);
        if (status >= 400) throw new GrpcError(grpcStatusOfHttp(status), errorMessage(body));
        return body as Envelope;
      };
      const fields = protoJson.toRest(method.input, request, '') as Record<string, unknown>;
      const init = protoJson.fromRest(method.output, await method.run(fields, rest));
      sendMessage(stream, toBinary(method.output, create(method.output, init as never)));
    } catch (err) {
      if (err instanceof GrpcError) return sendError(stream, err.code, err.message);
      logger.error({ err, method: path }, 'gRPC call failed');
      sendError(stream, GrpcStatus.INTERNAL, 'internal error');
    }
  };
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    void answer(stream, headers);
  });

  server.maxConnections = config.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new Error(`SERVICE_QDRANT_GRPC_PORT ${port} is already in use (by a Qdrant server?): set SERVICE_QDRANT_GRPC_PORT to a free port, 0 (any) or off`) : err),
    );
    server.listen(port, config.host, () => resolve());
  });
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `${encrypted ? 'https' : 'http'}://${host}:${bound}`,
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          for (const s of sessions) s.destroy();
        }, graceMs);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        for (const s of sessions) s.close();
      }),
  };
}
