import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { call, useTestServer } from '../helpers/http.js';

/** A body sent as a stream: no Content-Length, so it comes chunked and koa-body reads it. */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes.subarray(0, 7));
      controller.enqueue(bytes.subarray(7));
      controller.close();
    },
  });
}

describe('server: JSON bodies read whole on the request thread', () => {
  const s = useTestServer({ SERVICE_JSON_LIMIT_BYTES: '4096' });
  const put = (body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(`${s.url}/collections/c/points?wait=true`, { method: 'PUT', headers: { 'Content-Type': 'application/json', ...headers }, body, duplex: 'half' } as RequestInit);
  const payloadOf = async (id: number) => (await call(s.url, 'GET', `/collections/c/points/${id}`)).body.result?.payload;

  before(async () => {
    expect((await call(s.url, 'PUT', '/collections/c', { vectors: { size: 2, distance: 'Dot' } })).status).to.equal(200);
  });

  it('takes a body of known length, one with a byte order mark, and any +json media type', async () => {
    expect((await put(JSON.stringify({ points: [{ id: 1, vector: [1, 0], payload: { how: 'plain' } }] }))).status).to.equal(200);
    expect((await put(`\uFEFF${JSON.stringify({ points: [{ id: 2, vector: [1, 0], payload: { how: 'bom' } }] })}`)).status).to.equal(200);
    // Any +json type passes the 415 check; koa-body parses only the five it lists, this one not.
    const vendor = await put(JSON.stringify({ points: [{ id: 3, vector: [1, 0], payload: { how: 'vnd' } }] }), { 'Content-Type': 'application/x-points+json' });
    expect(vendor.status).to.equal(200);
    expect([await payloadOf(1), await payloadOf(2), await payloadOf(3)]).to.deep.equal([{ how: 'plain' }, { how: 'bom' }, { how: 'vnd' }]);
  });

  it('takes chunked and compressed bodies as well (koa-body reads those)', async () => {
    expect((await put(chunked(JSON.stringify({ points: [{ id: 4, vector: [0, 1], payload: { how: 'chunked' } }] })))).status).to.equal(200);
    const gz = await put(gzipSync(JSON.stringify({ points: [{ id: 5, vector: [0, 1], payload: { how: 'gzip' } }] })), { 'Content-Encoding': 'gzip' });
    expect(gz.status).to.equal(200);
    expect([await payloadOf(4), await payloadOf(5)]).to.deep.equal([{ how: 'chunked' }, { how: 'gzip' }]);
  });

  it('refuses a __proto__ key and broken JSON with a 400 on either path, applying nothing', async () => {
    const poisoned = '{"__proto__": {"polluted": true}, "points": [{"id": 6, "vector": [1, 1]}]}';
    for (const body of [poisoned, '{"points": [']) {
      for (const res of [await put(body), await put(chunked(body))]) {
        expect(res.status).to.equal(400);
        const answer = (await res.json()) as { message: string; code: number };
        expect(answer.code).to.equal(400);
        expect(answer.message).to.match(/^request body is not valid JSON: /);
      }
    }
    expect((await put(poisoned)).status).to.equal(400);
    expect(await payloadOf(6)).to.equal(undefined);
    expect(({} as { polluted?: boolean }).polluted).to.equal(undefined);
  });

  it('refuses a body past the limit with a 413 before reading it, on either path', async () => {
    const big = JSON.stringify({ points: [{ id: 7, vector: [1, 1], payload: { pad: 'x'.repeat(5000) } }] });
    for (const res of [await put(big), await put(chunked(big))]) {
      expect(res.status).to.equal(413);
      expect(await res.json()).to.deep.equal({ status: 'error', message: 'request body is too large', code: 413 });
    }
    expect(await payloadOf(7)).to.equal(undefined);
  });
});
