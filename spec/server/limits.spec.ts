import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { errorBody } from '../../server/middleware/error-body.js';
import { requestId } from '../../server/middleware/request-id.js';
import { call, useTestServer } from '../helpers/http.js';

describe('server: limits', () => {
  const s = useTestServer();

  it('answers headers over 16 KiB with 431 and the error body', async () => {
    const res = await call(s.url, 'GET', '/collections', undefined, { 'X-Padding': 'x'.repeat(20_000) });
    expect(res.status).to.equal(431);
    expect(res.body).to.deep.equal({ status: 'error', message: 'request headers are too large (16 KiB at most)', code: 431 });
  });

  it('answers a URL over 8 KiB with 414 and the error body', async () => {
    const res = await call(s.url, 'GET', `/collections?pad=${'x'.repeat(9000)}`);
    expect(res.status).to.equal(414);
    expect(res.body.code).to.equal(414);
    expect(res.body.message).to.match(/at most 8192/);
  });

  it('keeps serving others while a slow client trickles its request', async () => {
    const { connect } = await import('node:net');
    const port = Number(new URL(s.url).port);
    const slow = connect(port, '127.0.0.1');
    await new Promise((r) => slow.once('connect', r));
    slow.write('PUT /collections/slow/points HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"points": [');
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => call(s.url, 'GET', '/collections')));
      expect(answers.every((a) => a.status === 200)).to.equal(true);
    } finally {
      slow.destroy();
    }
  });

  it('keeps serving after each of these', async () => {
    expect((await call(s.url, 'GET', '/health')).status).to.equal(200);
  });
});

describe('server: unexpected errors', () => {
  it('answers 500 with the request id and no stack, and logs the stack with the same id', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const app = new Koa();
    app.use(requestId());
    app.use(errorBody(pino({ level: 'error' }, sink)));
    app.use(() => {
      throw new Error('secret internals at /srv/app.js:12');
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const res = await call(url, 'GET', '/anything');
      expect(res.status).to.equal(500);
      const id = res.headers.get('x-request-id');
      expect(res.body).to.deep.equal({ status: 'error', message: `internal error (request id ${id})`, code: 500 });
      expect(JSON.stringify(res.body)).not.to.include('secret internals');
      const logged = lines.join('');
      expect(logged).to.include(id!);
      expect(logged).to.include('secret internals');
    } finally {
      server.close();
    }
  });
});
