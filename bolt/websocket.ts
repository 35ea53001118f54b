import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createWebSocketStream, WebSocketServer } from 'ws';
import type { BoltStream } from './connection.js';

/** The first byte of Bolt's magic preamble (0x6060B017), and of an HTTP `GET`. */
const BOLT_FIRST_BYTE = 0x60;
const HTTP_GET_FIRST_BYTE = 0x47;

/** What a connection's first byte says it speaks: Bolt over TCP, Bolt inside a WebSocket, or neither. */
export type Opening = 'bolt' | 'http' | 'unknown';

export function openingOf(firstByte: number | undefined): Opening {
  if (firstByte === BOLT_FIRST_BYTE) return 'bolt';
  if (firstByte === HTTP_GET_FIRST_BYTE) return 'http';
  return 'unknown';
}

/**
 * Bolt over WebSocket on the Bolt port, as Neo4j serves it: the drivers in web pages (Neo4j
 * Browser, NeoDash, neo4j-driver's browser build) open `ws://host:7687` (`wss://` with TLS) and
 * send the handshake and the chunked messages as binary WebSocket messages, one byte stream.
 * A socket whose first bytes are an HTTP request is handed to an HTTP server that never listens:
 * it answers the upgrade with `ws` and anything else with 426 naming the two ways in.
 */
export function webSocketAcceptor(maxMessageBytes: number, headersTimeoutMs: number, onStream: (stream: BoltStream) => void): (socket: Socket) => void {
  // A Bolt message may span many WebSocket messages, but one is never larger than a whole Bolt message.
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes + 1024, perMessageDeflate: false });
  const http = createServer((_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(426, { 'content-type': 'text/plain; charset=utf-8', upgrade: 'websocket', connection: 'close' });
    res.end('This is the Bolt port: connect with a Bolt driver (bolt://, neo4j://) or a WebSocket (ws://).\n');
  });
  http.headersTimeout = headersTimeoutMs;
  http.requestTimeout = headersTimeoutMs;
  http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      const stream = createWebSocketStream(ws) as unknown as BoltStream;
      Object.defineProperty(stream, 'remoteAddress', { value: socket.remoteAddress });
      stream.setTimeout = (ms: number, onTimeout?: () => void) => {
        socket.setTimeout(ms, onTimeout);
        return stream;
      };
      onStream(stream);
    });
  });
  return (socket) => http.emit('connection', socket);
}
