import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, STATUS_CODES, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { ServiceConfig } from './config.js';

function readPem(path: string, variable: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`${variable}: cannot read ${path}: ${(err as Error).message}`);
  }
}

/** Requests may take this long in all (a large import's upload), never less than the header limit. */
const REQUEST_TIMEOUT_MS = 300_000;

/**
 * Node looks for requests over their time limits only at this interval (30 s by default), so the
 * header limit would fire up to that late; a quarter of the limit, at most a second, keeps it close.
 */
function timeLimits(config: ServiceConfig): ServerOptions {
  return {
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: Math.max(REQUEST_TIMEOUT_MS, config.headersTimeoutMs),
    keepAliveTimeout: config.idleTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(config.headersTimeoutMs / 4))),
  };
}

/** HTTPS when both TLS variables are set, plain HTTP when neither is; anything else stops start-up. */
function createListener(config: ServiceConfig, handler: RequestListener): Server {
  const limits = timeLimits(config);
  if (!config.tlsCert && !config.tlsKey) return createHttpServer(limits, handler);
  if (!config.tlsCert || !config.tlsKey) {
    throw new Error('set both SERVICE_TLS_CERT and SERVICE_TLS_KEY to serve HTTPS (only one of them is set)');
  }
  const cert = readPem(config.tlsCert, 'SERVICE_TLS_CERT');
  const key = readPem(config.tlsKey, 'SERVICE_TLS_KEY');
  try {
    return createHttpsServer({ ...limits, cert, key }, handler);
  } catch (err) {
    throw new Error(`SERVICE_TLS_CERT and SERVICE_TLS_KEY must hold a matching PEM certificate and private key: ${(err as Error).message}`);
  }
}

/**
 * Errors Node meets before a request reaches Koa (malformed request line, headers over the
 * 16 KiB limit, a client too slow to send its headers) still get the JSON error body.
 */
function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const code = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const message =
      code === 431 ? 'request headers are too large (16 KiB at most)' : code === 408 ? 'the request took too long to arrive' : 'malformed HTTP request';
    const body = JSON.stringify({ status: 'error', message, code });
    socket.end(`HTTP/1.1 ${code} ${STATUS_CODES[code]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}

/** The server with the time and connection limits that keep slow or many clients from holding it. */
export function createServiceServer(config: ServiceConfig, handler: RequestListener): Server {
  const server = createListener(config, handler);
  // Node closes a connection past this at once, before it costs more than its accept.
  server.maxConnections = config.maxConnections;
  answerClientErrors(server);
  return server;
}
