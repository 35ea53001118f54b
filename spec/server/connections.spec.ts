import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { useTestServer } from '../helpers/http.js';

interface Conversation {
  socket: Socket;
  /** Everything the server sent, once it closed the socket. */
  closed: Promise<string>;
}

function open(url: string): Promise<Conversation> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => (received += text));
    const closed = new Promise<string>((done) => socket.once('close', () => done(received)));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

function healthzRequest(connection: 'keep-alive' | 'close'): string {
  return `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: ${connection}\r\n\r\n`;
}

/** The first response on the socket: resolves once its head and JSON body have arrived. */
function firstResponse(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: string | Buffer): void => {
      text += chunk.toString();
      if (/\r\n\r\n\{.*\}$/s.test(text)) {
        socket.off('data', onData);
        resolve(text);
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed after ${JSON.stringify(text)}`)));
  });
}

/** A fresh connection's GET /healthz, retried while the server may still count sockets just closed. */
async function healthzOnNewConnection(url: string, attempts: number): Promise<string> {
  let last = '';
  for (let i = 0; i < attempts; i++) {
    const c = await open(url);
    c.socket.write(healthzRequest('close'));
    last = await c.closed;
    if (last.startsWith('HTTP/1.1 200')) return last;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return last;
}

describe('connection limits', function () {
  describe('SERVICE_MAX_CONNECTIONS', () => {
    const server = useTestServer({ SERVICE_MAX_CONNECTIONS: '3' });

    it('closes a connection past the limit at once, and serves /healthz on held and new connections once load drops', async () => {
      const held = [await open(server.url), await open(server.url), await open(server.url)];
      const extra = await open(server.url);
      extra.socket.write(healthzRequest('close'));
      expect(await extra.closed).to.equal('');

      const onHeld = firstResponse(held[0]!.socket);
      held[0]!.socket.write(healthzRequest('keep-alive'));
      expect(await onHeld).to.match(/^HTTP\/1\.1 200/);

      held[1]!.socket.destroy();
      held[2]!.socket.destroy();
      expect(await healthzOnNewConnection(server.url, 50)).to.match(/^HTTP\/1\.1 200[^]*"status":"ok"/);
      held[0]!.socket.destroy();
    });
  });

  describe('SERVICE_HEADERS_TIMEOUT_MS and SERVICE_IDLE_TIMEOUT_MS', function () {
    // Under Node's defaults (a 5 s keep-alive, the header limit checked every 30 s) these sockets
    // would stay open past this timeout, and the tests fail.
    this.timeout(4_000);
    const server = useTestServer({ SERVICE_HEADERS_TIMEOUT_MS: '200', SERVICE_IDLE_TIMEOUT_MS: '200' });

    it('closes a socket that sends nothing', async () => {
      const silent = await open(server.url);
      const received = await silent.closed;
      if (received !== '') expect(received).to.match(/^HTTP\/1\.1 408[^]*"code":408/);
    });

    it('answers 408 and closes a socket that sends its headers a byte at a time', async () => {
      const slow = await open(server.url);
      let stillOpen = true;
      void slow.closed.then(() => (stillOpen = false));
      slow.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      let sent = 0;
      // Each byte arrives well inside the limit; only the whole head is late. At most 160 bytes.
      while (stillOpen && sent < 160) {
        slow.socket.write('a');
        sent++;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(sent).to.be.greaterThan(1);
      expect(await slow.closed).to.match(/^HTTP\/1\.1 408[^]*"message":"the request took too long to arrive"/);
    });

    it('closes an idle keep-alive socket after its answer', async () => {
      const idle = await open(server.url);
      const answered = firstResponse(idle.socket);
      idle.socket.write(healthzRequest('keep-alive'));
      const response = await answered;
      expect(response).to.match(/^HTTP\/1\.1 200/).and.match(/keep-alive/i);
      expect(await idle.closed).to.equal(response);
    });
  });
});
