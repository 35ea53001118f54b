import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { readConfig } from '../../server/config.js';
import { call, startTestServer, useTestServer } from '../helpers/http.js';

/** Runs `f` and answers what it printed with console.warn. */
async function warnings(f: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => void seen.push(args.map(String).join(' '));
  try {
    await f();
  } finally {
    console.warn = original;
  }
  return seen;
}

/** The error a client call throws, with Qdrant's error body as the client keeps it. */
async function failure(f: () => Promise<unknown>): Promise<{ status: number; error: string }> {
  try {
    await f();
  } catch (err) {
    const e = err as { status: number; data?: { status?: { error?: string } } };
    return { status: e.status, error: e.data?.status?.error ?? '' };
  }
  throw new Error('the call did not fail');
}

const ids = { a: '0f8fad5b-d9cb-469f-a165-70867728950e', b: '7c9e6679-7425-40de-944b-e07fc1f90ae7' };

describe('clients: the Qdrant dialect (SERVICE_QDRANT_PORT) with @qdrant/js-client-rest 1.18', function () {
  this.timeout(30_000);
  const s = useTestServer({}, 'each');
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });

  async function seed(): Promise<void> {
    const q = client();
    await q.createCollection('c', { vectors: { size: 2, distance: 'Cosine' } });
    await q.upsert('c', {
      wait: true,
      points: [
        { id: 1, vector: [1, 0], payload: { kind: 'x', rank: 3, city: 'oslo' } },
        { id: 2, vector: [0.9, 0.1], payload: { kind: 'x', rank: 1, city: 'oslo' } },
        { id: 3, vector: [0, 1], payload: { kind: 'y', rank: 2, city: 'rome' } },
        { id: ids.a, vector: [0.7, 0.7], payload: { kind: 'y', rank: 5, city: 'rome' } },
        { id: ids.b, vector: [-1, 0.2], payload: { kind: 'z', rank: 4, city: 'lima' } },
      ],
    });
  }

  it('answers GET / as a Qdrant version the client accepts without a warning (the spec port keeps its own)', async () => {
    const printed = await warnings(async () => {
      const q = new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: true });
      await q.getCollections();
      await new Promise((r) => setTimeout(r, 50));
    });
    expect(printed.filter((w) => /incompatible|Failed to obtain/.test(w))).to.deep.equal([]);
    const root = (await (await fetch(`${s.service.qdrantUrl}/`)).json()) as { title: string; version: string };
    expect(root).to.deep.include({ title: 'qdrant - vector search engine', version: '1.18.0' });
    expect((await call(s.url, 'GET', '/')).body.title).to.equal('vectorgraphdb - vector and graph database');
    expect(await (await fetch(`${s.service.qdrantUrl}/healthz`)).text()).to.equal('healthz check passed');
    expect(await (await fetch(`${s.service.qdrantUrl}/readyz`)).text()).to.equal('all shards are ready');
  });

  it('answers /points/query as {points} on the Qdrant port and as the array on the spec port', async () => {
    await seed();
    const { points } = await client().query('c', { query: [1, 0], limit: 2, with_payload: ['city'] });
    expect(points.map((p) => [p.id, p.payload])).to.deep.equal([
      [1, { city: 'oslo' }],
      [2, { city: 'oslo' }],
    ]);
    const spec = await call(s.url, 'POST', '/collections/c/points/query', { query: [1, 0], limit: 2, with_payload: false });
    expect(spec.body.result.map((p: { id: number }) => p.id)).to.deep.equal([1, 2]);
  });

  it('queries by point id (the point itself left out), with a filter, a threshold, an offset and exact search', async () => {
    await seed();
    const q = client();
    const byId = await q.query('c', { query: 1, limit: 2, with_payload: false });
    expect(byId.points.map((p) => p.id)).to.deep.equal([2, ids.a]);
    const filtered = await q.query('c', { query: [1, 0], filter: { must: [{ key: 'kind', match: { value: 'y' } }] }, limit: 5, with_payload: false });
    expect(filtered.points.map((p) => p.id)).to.deep.equal([ids.a, 3]);
    const close = await q.query('c', { query: [1, 0], score_threshold: 0.9, with_payload: false });
    expect(close.points.map((p) => p.id)).to.deep.equal([1, 2]);
    const page = await q.query('c', { query: [1, 0], limit: 2, offset: 1, params: { exact: true }, with_payload: false });
    expect(page.points.map((p) => p.id)).to.deep.equal([2, ids.a]);
  });

  it('recommends by average vector and by best score, fuses prefetches with rrf and dbsf, orders by a payload key, groups and batches', async () => {
    await seed();
    const q = client();
    const avg = await q.query('c', { query: { recommend: { positive: [1], negative: [ids.b] } }, limit: 2, with_payload: false });
    expect(avg.points.map((p) => p.id)).to.deep.equal([2, ids.a]);
    const best = await q.query('c', { query: { recommend: { positive: [3], negative: [1], strategy: 'best_score' } }, limit: 1, with_payload: false });
    // Only b is closer to the positive (3) than to the negative (1): a is as close to both, 2 is nearer 1.
    expect(best.points.map((p) => p.id)).to.deep.equal([ids.b]);
    const fused = await q.query('c', {
      prefetch: [
        { query: [1, 0], limit: 3 },
        { query: [0, 1], limit: 3 },
      ],
      query: { fusion: 'rrf' },
      limit: 5,
      with_payload: false,
    });
    // ids.a is third in one list and second in the other: Qdrant's 1/(2+2) + 1/(1+2) beats each list's winner (1/2, in one list only).
    expect(fused.points[0]!.id).to.equal(ids.a);
    expect(fused.points[0]!.score).to.be.closeTo(1 / 4 + 1 / 3, 1e-9);
    const dbsf = await q.query('c', { prefetch: [{ query: [1, 0], limit: 3 }, { query: [0, 1], limit: 3 }], query: { fusion: 'dbsf' }, limit: 1, with_payload: false });
    expect(dbsf.points).to.have.length(1);
    const ordered = await q.query('c', { query: { order_by: { key: 'rank', direction: 'desc' } }, limit: 3, with_payload: false });
    expect(ordered.points.map((p) => p.id)).to.deep.equal([ids.a, ids.b, 1]);
    const groups = await q.queryGroups('c', { query: [1, 0], group_by: 'city', group_size: 2, limit: 2, with_payload: false });
    expect(groups.groups.map((g) => [g.id, g.hits.map((h) => h.id)])).to.deep.equal([
      ['oslo', [1, 2]],
      ['rome', [ids.a, 3]],
    ]);
    const batch = await q.queryBatch('c', { searches: [{ query: [1, 0], limit: 1 }, { query: [0, 1], limit: 1 }] });
    expect(batch.map((r) => r.points.map((p) => p.id))).to.deep.equal([[1], [3]]);
  });

  it('takes PATCH /collections optimizer settings and keeps and reports them, refusing an m it cannot change in place', async () => {
    const q = client();
    await q.createCollection('p', { vectors: { size: 2, distance: 'Dot' }, hnsw_config: { m: 8, ef_construct: 16 } });
    expect(await q.updateCollection('p', { optimizers_config: { indexing_threshold: 0, deleted_threshold: 0.3 }, hnsw_config: { ef_construct: 16, full_scan_threshold: 500 } })).to.equal(true);
    await s.restart();
    const info = await client().getCollection('p');
    expect(info.config.optimizer_config).to.deep.include({ indexing_threshold: 0, deleted_threshold: 0.3 });
    expect(info.config.hnsw_config).to.deep.include({ m: 8, ef_construct: 16, full_scan_threshold: 500 });
    const refused = await failure(() => client().updateCollection('p', { hnsw_config: { m: 32 } }));
    expect(refused.status).to.equal(400);
    expect(refused.error).to.match(/^hnsw_config.m is 8 and cannot change in place/);
  });

  it('takes bulk upserts and batch searches whose bodies are parsed off the request thread, as it takes small ones', async () => {
    const q = client();
    const dim = 256;
    await q.createCollection('bulk', { vectors: { size: dim, distance: 'Cosine' } });
    const vector = (i: number) => Array.from({ length: dim }, (_, k) => Math.sin(i * 31 + k) + (k === i % dim ? 2 : 0));
    const points = Array.from({ length: 600 }, (_, i) => ({ id: i % 2 ? i : crypto.randomUUID(), vector: vector(i), payload: { i, tags: [i, i + 1] } }));
    await q.upsert('bulk', { wait: true, points });
    await q.upsert('bulk', { wait: true, batch: { ids: [1001, 1003], vectors: [vector(1001), vector(1003)], payloads: [{ i: 1001 }, { i: 1003 }] } });
    const batch = await q.searchBatch('bulk', { searches: Array.from({ length: 80 }, (_, i) => ({ vector: vector(i * 7), limit: 1, with_payload: true })) });
    expect(batch.map((hits) => hits[0]!.payload!.i)).to.deep.equal(Array.from({ length: 80 }, (_, i) => i * 7));
    expect((await q.retrieve('bulk', { ids: [1001, 3] })).map((p) => p.payload)).to.deep.equal([{ i: 1001 }, { i: 3, tags: [3, 4] }]);
    expect((await q.count('bulk')).count).to.equal(602);
    expect(s.service.jsonParsers!.parsed, 'the 600 points and the 80 searches went to a parser thread').to.equal(2);
  });

  it('shows our message in Qdrant\'s error body: a missing collection, a field we do not handle, a query form we do not answer', async () => {
    const q = client();
    expect(await failure(() => q.getCollection('missing'))).to.deep.equal({ status: 404, error: 'collection "missing" not found' });
    await seed();
    const unknown = await failure(() => q.query('c', { query: [1, 0], lookup_from: { collection: 'c', shard_key: 'a' } as never }));
    expect(unknown.status).to.equal(400);
    expect(unknown.error).to.match(/^unknown field "lookup_from\.shard_key"/);
    const raw = await fetch(`${s.service.qdrantUrl}/collections/c/points/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { relevance_feedback: {} } }) });
    const body = (await raw.json()) as { status: { error: string }; time: number };
    expect(raw.status).to.equal(400);
    expect(body.status.error).to.match(/query.relevance_feedback is not a query we answer/);
    expect(body.time).to.be.a('number');
    const named = await failure(() => q.query('c', { query: [1, 0], using: 'text' }));
    expect(named.error).to.equal('collection "c" has no vector named "text" (its vectors: dense: "")');
  });
});

describe('clients: the Qdrant port with auth, and its configuration', function () {
  this.timeout(30_000);

  it('takes the same api-key on both ports and answers a 401 in each port\'s error body', async () => {
    const s = await startTestServer({ SERVICE_API_KEYS: 'k1' });
    try {
      const good = new QdrantClient({ url: s.service.qdrantUrl!, apiKey: 'k1', checkCompatibility: false });
      expect((await good.getCollections()).collections).to.deep.equal([]);
      const bad = new QdrantClient({ url: s.service.qdrantUrl!, apiKey: 'nope', checkCompatibility: false });
      const refused = await failure(() => bad.getCollections());
      expect(refused.status).to.equal(401);
      expect(refused.error).to.match(/^the credential is not valid/);
      const spec = await call(s.url, 'GET', '/collections', undefined, { 'api-key': 'nope' });
      expect(spec.body).to.include({ status: 'error', code: 401 });
    } finally {
      await s.stop();
      s.remove();
    }
  });

  it('is off with SERVICE_QDRANT_PORT=off, refuses a bad value by name, and stops with the server', async () => {
    expect(readConfig({}).qdrantPort).to.equal(6335);
    expect(readConfig({ SERVICE_QDRANT_PORT: 'off' }).qdrantPort).to.equal(null);
    expect(() => readConfig({ SERVICE_QDRANT_PORT: 'x' })).to.throw(/SERVICE_QDRANT_PORT/);
    const off = await startTestServer({ SERVICE_QDRANT_PORT: 'off' });
    expect(off.service.qdrantUrl).to.equal(null);
    await off.stop();
    off.remove();
    const s = await startTestServer();
    const url = s.service.qdrantUrl!;
    expect((await fetch(`${url}/healthz`)).status).to.equal(200);
    await s.stop();
    s.remove();
    let refused = false;
    await fetch(`${url}/healthz`).catch(() => (refused = true));
    expect(refused, 'the Qdrant listener closed with the server').to.equal(true);
  });
});
