import { readFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { Logger } from 'pino';
import type { Engine } from '../storage/engine/engine.js';
import type { ServiceConfig } from '../server/config.js';
import type { BoltMetrics } from '../server/metrics/bolt-metrics.js';
import { secretChecker } from '../server/middleware/auth.js';
import { tokenBuckets } from '../server/middleware/rate-limit.js';
import { BoltConnection, type BoltStream } from './connection.js';
import { openingOf, webSocketAcceptor } from './websocket.js';
import { Databases } from './databases.js';
import type { CypherReplicas } from '../workers/cypher-replicas.js';

export interface BoltServer {
  server: Server;
  port: number;
  /** bolt:// or bolt+s:// (TLS) with the host clients reach. */
  url: string;
  /** Stops listening and closes every connection (their open transactions are discarded). */
  close(): Promise<void>;
}

/** The Bolt listener on `port`: TLS when SERVICE_TLS_CERT/KEY are set, the service's credentials and rate limit (`now`: the limiter's clock in seconds, for tests); auto-commit reads run on the Cypher `replicas`. */
export async function startBoltServer(engine: Engine, config: ServiceConfig, logger: Logger, port: number, now?: () => number, metrics?: BoltMetrics, replicas: CypherReplicas | null = null): Promise<BoltServer> {
  const checkSecret = secretChecker(config);
  const dbs = new Databases(engine, config.boltDefaultDb, config.queryMemoryBytes, config.queryTimeoutMs, replicas, checkSecret !== null);
  const takeToken = config.rateLimit ? tokenBuckets({ rate: 100, burst: 200, now }) : null;
  const sockets = new Set<Socket>();
  metrics?.watchConnections(() => sockets.size);
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  let count = 0;
  let address = '';
  const connect = (stream: BoltStream) =>
    new BoltConnection(stream, { dbs, checkSecret, takeToken, maxMessageBytes: config.jsonLimit, handshakeTimeoutMs: config.headersTimeoutMs, connectionId: `bolt-${++count}`, address, observe: metrics?.message, onInternalError: (err) => logger.error({ err }, 'a Bolt query failed inside the server') });
  const viaWebSocket = webSocketAcceptor(config.jsonLimit, config.headersTimeoutMs, connect);
  // The first byte tells Bolt's preamble from an HTTP request (a WebSocket upgrade); it is put back for whichever reads on.
  const accept = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setNoDelay(true);
    socket.setTimeout(config.headersTimeoutMs, () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      const opening = openingOf(first[0]);
      if (opening === 'unknown') return void socket.destroy();
      if (opening === 'bolt') connect(socket);
      else viaWebSocket(socket);
      process.nextTick(() => socket.resume());
    });
  };
  const tls = config.tlsCert !== null && config.tlsKey !== null;
  const server = tls ? createTlsServer({ cert: readFileSync(config.tlsCert!), key: readFileSync(config.tlsKey!) }, accept) : createNetServer(accept);
  server.maxConnections = config.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new Error(`SERVICE_BOLT_PORT ${port} is already in use (by a Neo4j server?): set SERVICE_BOLT_PORT to a free port, 0 (any) or off`) : err),
    );
    server.listen(port, config.host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  address = `${host}:${bound}`;
  return {
    server,
    port: bound,
    url: `${tls ? 'bolt+s' : 'bolt'}://${address}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
