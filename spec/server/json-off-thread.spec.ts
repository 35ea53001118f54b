import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { call, startTestServer, type TestServer } from '../helpers/http.js';
import { scrape } from '../helpers/prometheus.js';

const LIMIT = 64 * 1024;
const parsedOffThread = async (s: TestServer) => (await scrape(s.url)).value('vgdb_json_bodies_parsed_off_thread_total');

/**
 * Large bodies of the vector routes are parsed on a parser thread (SERVICE_JSON_OFF_THREAD_BYTES,
 * here 1: all of them); the same requests to a server parsing every body on its request thread
 * (0) must get the same answers, refusals included.
 */
describe('server: JSON bodies parsed off the request thread', () => {
  let off: TestServer;
  let onThread: TestServer;
  const both = () => [off, onThread];

  before(async () => {
    off = await startTestServer({ SERVICE_JSON_OFF_THREAD_BYTES: '1', SERVICE_JSON_LIMIT_BYTES: String(LIMIT) });
    onThread = await startTestServer({ SERVICE_JSON_OFF_THREAD_BYTES: '0', SERVICE_JSON_LIMIT_BYTES: String(LIMIT) });
    for (const s of both()) {
      expect((await call(s.url, 'PUT', '/collections/one', { vectors: { size: 4, distance: 'Euclid' } })).status).to.equal(200);
      expect((await call(s.url, 'PUT', '/collections/named', { vectors: { a: { size: 3, distance: 'Dot' }, b: { size: 2, distance: 'Cosine' } } })).status).to.equal(200);
    }
  });
  after(async () => {
    for (const s of both()) {
      await s.stop();
      s.remove();
    }
  });

  /** Sends the same request to both servers and answers both responses. */
  const same = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
    const [a, b] = [await call(off.url, method, path, body, headers), await call(onThread.url, method, path, body, headers)];
    return { off: a, onThread: b };
  };

  it('stores and answers what the request thread does on every vector route, payload arrays kept as arrays', async () => {
    const before = await parsedOffThread(off);
    const requests: [string, string, unknown][] = [
      ['PUT', '/collections/one/points?wait=true', { points: [{ id: 1, vector: [0.1, 0.2, 0.3, 0.4], payload: { nums: [1, 2, 3], deep: { v: [0.5, 0.25] }, text: 'naïve café ☕' } }, { id: 2, vector: [1, 1, 1, 1.5] }] }],
      ['PUT', '/collections/one/points?wait=true', { batch: { ids: [10, 11], vectors: [[3, 1, 4, 1], [5, 9, 2, 6]], payloads: [{ list: [4, 5] }, null] } }],
      ['PUT', '/collections/named/points?wait=true', { points: [{ id: 1, vector: { a: [1, 2, 3], b: [0.6, 0.8] } }, { id: 2, vector: { a: [-1, 0, 2] } }] }],
      ['PUT', '/collections/named/points?wait=true', { batch: { ids: [3], vectors: { a: [[2, 2, 2]], b: [[1, 0]] } } }],
      ['PUT', '/collections/one/points/vectors?wait=true', { points: [{ id: 2, vector: [2, 2, 2, 2.5] }] }],
      ['POST', '/collections/one/points/batch?wait=true', { operations: [{ upsert: { points: [{ id: 20, vector: [7, 7, 7, 7], payload: { k: [1] } }] } }, { update_vectors: { points: [{ id: 1, vector: [0.2, 0.2, 0.3, 0.4] }] } }] }],
      ['POST', '/collections/one/points/search/batch', { searches: [{ vector: [1, 1, 1, 1], limit: 3, with_payload: true, with_vector: true }, { vector: [5, 9, 2, 6], limit: 2 }] }],
      ['POST', '/collections/named/points/search/batch', { searches: [{ vector: { name: 'a', vector: [1, 2, 3] }, limit: 2, with_vector: true }] }],
      ['POST', '/collections/one/points/query/batch', { searches: [{ query: [3, 1, 4, 1], limit: 3, with_payload: true }] }],
    ];
    for (const [method, path, body] of requests) {
      const r = await same(method, path, body);
      expect(r.off.status, `${method} ${path}`).to.equal(200);
      expect(r.off.body.result, `${method} ${path}`).to.deep.equal(r.onThread.body.result);
    }
    expect((await parsedOffThread(off)) - before).to.equal(requests.length);
    const read = await same('POST', '/collections/one/points', { ids: [1, 2, 10, 11, 20], with_vector: true });
    expect(read.off.body.result).to.deep.equal(read.onThread.body.result);
    expect(read.off.body.result[0]).to.deep.include({ id: 1, payload: { nums: [1, 2, 3], deep: { v: [0.5, 0.25] }, text: 'naïve café ☕' } });
    expect(read.off.body.result[0].vector).to.deep.equal(Array.from(Float32Array.from([0.2, 0.2, 0.3, 0.4])));
    const named = await same('POST', '/collections/named/points', { ids: [1, 2, 3], with_vector: true });
    expect(named.off.body.result).to.deep.equal(named.onThread.body.result);
    expect(named.off.body.result.map((p: { vector: unknown }) => p.vector)).to.deep.equal([{ a: [1, 2, 3], b: [0.6, 0.8].map(Math.fround) }, { a: [-1, 0, 2] }, { a: [2, 2, 2], b: [1, 0] }]);
  });

  it('refuses a bad body with the same status and message as the request thread', async () => {
    const bad: [string, string, unknown][] = [
      ['PUT', '/collections/one/points', '{"points": [{"id": 1, "vector": [1, 2'],
      ['PUT', '/collections/one/points', '{"points": [{"id": 1, "vector": [1, 2, 3, 4], "payload": {"__proto__": {"admin": true}}}]}'],
      ['PUT', '/collections/one/points', { points: [{ id: 1, vector: [1, 'two', 3, 4] }] }],
      ['PUT', '/collections/one/points', { points: [{ id: 1, vector: [] }] }],
      ['PUT', '/collections/one/points', { points: [{ id: 1, vector: [1, 2] }] }],
      ['PUT', '/collections/one/points', '{"points": [{"id": 1, "vector": [1, 1e39, 3, 4]}]}'],
      ['PUT', '/collections/one/points', { points: [{ id: 1, vector: [1, 2, 3, 4] }], extra: true }],
      ['PUT', '/collections/named/points', { points: [{ id: 1, vector: { c: [1, 2, 3] } }] }],
      ['PUT', '/collections/one/points', { batch: { ids: [1, 2], vectors: [[1, 2, 3, 4]] } }],
      ['POST', '/collections/one/points/search/batch', { searches: [{ vector: [1, 2, 3, 4], limit: 0 }] }],
      ['POST', '/collections/one/points/search/batch', { searches: [{ vector: [1, 2, 3, 4], colour: 'red' }] }],
      ['POST', '/collections/one/points/query/batch', { searches: [{ query: [1, 2, 3] }] }],
      ['PUT', '/collections/one/points', { points: [{ id: 1, vector: [1, 2, 3, 4], payload: { pad: 'x'.repeat(LIMIT) } }] }],
      ['PUT', '/collections/missing/points', { points: [{ id: 1, vector: [1, 2, 3, 4] }] }],
      // Nested past what the checks take: thousands of levels deep, too deep to send back from a parser thread whole.
      ['PUT', '/collections/one/points', `{"points": [{"id": 1, "vector": [1, 2, 3, 4], "payload": {"deep": ${'[{"constructor":'.repeat(3_000)}1${'}]'.repeat(3_000)}}}]}`],
      ['PUT', '/collections/one/points', `{"points": [{"id": 1, "vector": [1, 2, 3, 4], "payload": {"deep": ${'['.repeat(300)}1${']'.repeat(300)}}}]}`],
      ['POST', '/collections/one/points/search/batch', `{"searches": [{"vector": [1, 2, 3, 4], "filter": ${'{"must": ['.repeat(2_000)}{"key": "a", "match": {"value": 1}}${']}'.repeat(2_000)}}]}`],
    ];
    for (const [method, path, body] of bad) {
      const r = await same(method, path, body);
      const what = (typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 80);
      expect(r.off.status, what).to.be.within(400, 499);
      expect({ status: r.off.status, message: r.off.body.message }, what).to.deep.equal({ status: r.onThread.status, message: r.onThread.body.message });
    }
    const sizes = await same('PUT', '/collections/one/points', { points: [{ id: 1, vector: [1, 2, 3, 4], payload: { pad: 'x'.repeat(LIMIT) } }] });
    expect(sizes.off.status).to.equal(413);
  });

  it('answers in Qdrant\'s shape on its port, refusals too', async () => {
    for (const s of both()) {
      const send = (body: string) => fetch(`${s.service.qdrantUrl}/collections/one/points?wait=true`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body });
      const ok = await send(JSON.stringify({ points: [{ id: 30, vector: [1, 2, 3, 4] }] }));
      expect(((await ok.json()) as { result: unknown }).result).to.deep.include({ status: 'completed' });
      const refused = await send('{"points": [');
      expect(refused.status).to.equal(400);
      expect(((await refused.json()) as { status: { error: string } }).status.error).to.match(/^request body is not valid JSON: /);
    }
  });

  it('reads a body that starts with a byte order mark, and leaves a compressed one to the request thread', async () => {
    const before = await parsedOffThread(off);
    const text = JSON.stringify({ points: [{ id: 40, vector: [4, 4, 4, 4], payload: { bom: true } }] });
    const withBom = await same('PUT', '/collections/one/points?wait=true', `\uFEFF${text}`);
    expect([withBom.off.status, withBom.onThread.status]).to.deep.equal([200, 200]);
    const gzipped = await fetch(`${off.url}/collections/one/points?wait=true`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ points: [{ id: 41, vector: [4, 1, 4, 1] }] })),
    });
    expect(gzipped.status).to.equal(200);
    expect((await parsedOffThread(off)) - before).to.equal(1);
    const read = await call(off.url, 'POST', '/collections/one/points', { ids: [40, 41] });
    expect(read.body.result.map((p: { id: number; payload: unknown }) => [p.id, p.payload])).to.deep.equal([
      [40, { bom: true }],
      [41, {}],
    ]);
  });

  it('answers 500 naming the request id when its parser thread stops, applies nothing, and parses the next body on a new thread', async () => {
    const parsers = off.service.jsonParsers!;
    parsers.onDispatch = (thread) => void thread.terminate();
    const lost = await call(off.url, 'PUT', '/collections/one/points?wait=true', { points: [{ id: 50, vector: [5, 5, 5, 5] }] });
    parsers.onDispatch = null;
    expect(lost.status).to.equal(500);
    expect(lost.body.message).to.equal(`internal error (request id ${lost.headers.get('x-request-id')})`);
    expect((await scrape(off.url)).value('vgdb_json_parser_stops_total')).to.equal(1);
    expect((await call(off.url, 'POST', '/collections/one/points', { ids: [50] })).body.result).to.deep.equal([]);
    const next = await call(off.url, 'PUT', '/collections/one/points?wait=true', { points: [{ id: 51, vector: [5, 1, 5, 1] }] });
    expect(next.status).to.equal(200);
    expect((await call(off.url, 'POST', '/collections/one/points', { ids: [51] })).body.result).to.have.length(1);
  });

  it('by default sends a batch of 16 searches of 128 dimensions to a parser thread and keeps a batch of 4 here', async () => {
    const s = await startTestServer({});
    try {
      await call(s.url, 'PUT', '/collections/c', { vectors: { size: 128, distance: 'Cosine' } });
      const vector = (i: number) => Array.from({ length: 128 }, (_, k) => Math.sin(i * 7 + k) / 3);
      await call(s.url, 'PUT', '/collections/c/points?wait=true', { points: [{ id: 1, vector: vector(1) }] });
      const batch = (n: number) => ({ searches: Array.from({ length: n }, (_, i) => ({ vector: vector(i), limit: 1 })) });
      expect(JSON.stringify(batch(4)).length, 'the small batch is under the 32 KiB default').to.be.below(32 * 1024);
      expect(JSON.stringify(batch(16)).length, 'the larger one is over it').to.be.above(32 * 1024);
      expect((await call(s.url, 'POST', '/collections/c/points/search/batch', batch(4))).body.result).to.have.length(4);
      expect(await parsedOffThread(s)).to.equal(0);
      const answer = await call(s.url, 'POST', '/collections/c/points/search/batch', batch(16));
      expect(answer.body.result.map((hits: { id: number }[]) => hits[0]!.id)).to.deep.equal(Array.from({ length: 16 }, () => 1));
      expect(await parsedOffThread(s)).to.equal(1);
    } finally {
      await s.stop();
      s.remove();
    }
  });

  it('leaves small bodies and other routes to the request thread', async () => {
    const small = await startTestServer({ SERVICE_JSON_OFF_THREAD_BYTES: '1000' });
    try {
      await call(small.url, 'PUT', '/collections/c', { vectors: { size: 2, distance: 'Dot' } });
      await call(small.url, 'PUT', '/collections/c/points?wait=true', { points: [{ id: 1, vector: [1, 2] }] });
      await call(small.url, 'POST', '/collections/c/points/scroll', { filter: { must: [{ key: 'pad', match: { any: Array.from({ length: 300 }, (_, i) => `value ${i}`) } }] } });
      expect(await parsedOffThread(small)).to.equal(0);
      await call(small.url, 'PUT', '/collections/c/points?wait=true', { points: Array.from({ length: 100 }, (_, id) => ({ id, vector: [id, 1] })) });
      expect(await parsedOffThread(small)).to.equal(1);
      expect((await call(small.url, 'GET', '/collections/c')).body.result.points_count).to.equal(100);
    } finally {
      await small.stop();
      small.remove();
    }
  });
});
