import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { call, useTestServer } from '../helpers/http.js';
import { refusal } from '../helpers/qdrant-refusal.js';
import { expectScoresNear as near, idsOf as ids, scoresOf as scores } from '../helpers/scored-points.js';

/**
 * Qdrant's lookup_from through the official client: the point ids given as examples are read
 * from another collection (and vector), in recommend, discover and the query API (its prefetches
 * too). Dot on 2-d vectors, so a nearest score is the dot product.
 */
describe('clients: lookup_from with @qdrant/js-client-rest 1.18', function () {
  this.timeout(30_000);
  const s = useTestServer();
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });

  before(async () => {
    const q = client();
    await q.createCollection('items', { vectors: { size: 2, distance: 'Dot' } });
    await q.upsert('items', {
      wait: true,
      points: [
        { id: 1, vector: [1, 0], payload: { g: 'x' } },
        { id: 2, vector: [0, 1], payload: { g: 'y' } },
        { id: 3, vector: [0.5, 0.25], payload: { g: 'x' } },
      ],
    });
    // Point 2 here points the other way from point 2 in items; the named vector "img" holds yet other vectors.
    await q.createCollection('examples', { vectors: { '': { size: 2, distance: 'Dot' }, img: { size: 2, distance: 'Dot' } } });
    await q.upsert('examples', {
      wait: true,
      points: [
        { id: 2, vector: { '': [1, 0], img: [0, 1] } },
        { id: 7, vector: { '': [0, 1], img: [1, 0] } },
        { id: 9, vector: { '': [1, 1] } },
      ],
    });
    await q.createCollection('wide', { vectors: { size: 3, distance: 'Dot' } });
    await q.upsert('wide', { wait: true, points: [{ id: 2, vector: [1, 0, 0] }] });
    await q.createCollection('multi', { vectors: { a: { size: 2, distance: 'Dot' }, b: { size: 2, distance: 'Dot' } } });
    await q.upsert('multi', {
      wait: true,
      points: [
        { id: 1, vector: { a: [1, 0], b: [0, 1] } },
        { id: 2, vector: { a: [0, 1], b: [1, 0] } },
        { id: 3, vector: { a: [1, 1], b: [1, 1] } },
      ],
    });
  });

  it('recommend reads its examples from the other collection, and leaves in a point of this one with the same id', async () => {
    const q = client();
    // examples/2 is [1, 0]: items 1 (1), 3 (0.5), 2 (0); items/2 is not left out, it was not the example.
    const found = await q.recommend('items', { positive: [2], lookup_from: { collection: 'examples' }, limit: 10 });
    expect(ids(found)).to.deep.equal([1, 3, 2]);
    near(scores(found), [1, 0.5, 0]);
    // The named vector img of examples/2 is [0, 1]: items 2 (1), 3 (0.25), 1 (0).
    const byImg = await q.recommend('items', { positive: [2], lookup_from: { collection: 'examples', vector: 'img' }, limit: 10 });
    expect(ids(byImg)).to.deep.equal([2, 3, 1]);
    // best_score with a negative read there too: examples/7 is [0, 1].
    const best = await q.recommend('items', { positive: [2], negative: [7], strategy: 'best_score', lookup_from: { collection: 'examples' }, limit: 1 });
    expect(ids(best)).to.deep.equal([1]);
    // Without lookup_from (the client sends null) the ids are this collection's, left out of the results.
    expect(ids(await q.recommend('items', { positive: [2], lookup_from: null, limit: 10 }))).to.deep.equal([3, 1]);
  });

  it('batch and grouped recommend, discover and discover batch take lookup_from', async () => {
    const q = client();
    const batch = await q.recommendBatch('items', { searches: [{ positive: [2], lookup_from: { collection: 'examples' }, limit: 1 }, { positive: [7], lookup_from: { collection: 'examples' }, limit: 1 }] });
    expect(batch.map(ids)).to.deep.equal([[1], [2]]);
    const groups = await q.recommendPointGroups('items', { positive: [2], lookup_from: { collection: 'examples' }, group_by: 'g', group_size: 1, limit: 2 });
    expect(groups.groups.map((g) => [g.id, ids(g.hits)])).to.deep.equal([
      ['x', [1]],
      ['y', [2]],
    ]);
    // Target examples/2 = [1, 0], context examples/7 ([0, 1]) positive over examples/2 negative: only items/2 is on the positive side.
    const context = [{ positive: 7, negative: 2 }];
    const discovered = await q.discoverPoints('items', { target: 2, context, lookup_from: { collection: 'examples' }, limit: 3 });
    expect(ids(discovered)).to.deep.equal([2, 1, 3]);
    const discoveredBatch = await q.discoverBatchPoints('items', { searches: [{ target: 2, context, lookup_from: { collection: 'examples' }, limit: 1 }] });
    expect(discoveredBatch.map(ids)).to.deep.equal([[2]]);
  });

  it('the query API: nearest by id, recommend, context and a prefetch read from lookup_from', async () => {
    const q = client();
    const nearest = await q.query('items', { query: 2, lookup_from: { collection: 'examples' } });
    expect(ids(nearest.points)).to.deep.equal([1, 3, 2]);
    const recommended = await q.query('items', { query: { recommend: { positive: [7] } }, lookup_from: { collection: 'examples', vector: 'img' }, limit: 1 });
    expect(ids(recommended.points)).to.deep.equal([1]);
    const context = await q.query('items', { query: { context: { positive: 7, negative: 2 } }, lookup_from: { collection: 'examples' }, limit: 1 });
    expect(ids(context.points)).to.deep.equal([2]);
    // The prefetch has its own lookup_from; the outer query's ids are this collection's.
    const prefetched = await q.query('items', { prefetch: { query: 2, lookup_from: { collection: 'examples' }, limit: 2 }, query: { fusion: 'rrf' } });
    expect(ids(prefetched.points)).to.deep.equal([1, 3]);
    // The client's queryGroups leaves lookup_from out of what it sends: sent by hand.
    const answer = await fetch(`${s.service.qdrantUrl}/collections/items/points/query/groups`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 7, lookup_from: { collection: 'examples' }, group_by: 'g', group_size: 2 }),
    });
    const grouped = ((await answer.json()) as { result: { groups: { id: string; hits: { id: number }[] }[] } }).result;
    expect(grouped.groups.map((g) => [g.id, ids(g.hits)])).to.deep.equal([
      ['y', [2]],
      ['x', [3, 1]],
    ]);
    const batch = await q.queryBatch('items', { searches: [{ query: 2, lookup_from: { collection: 'examples' }, limit: 1 }] });
    expect(batch.map((r) => ids(r.points))).to.deep.equal([[1]]);
  });

  it('another vector of the same collection: read from it, and the example is still left out', async () => {
    // multi/1's b is [0, 1], searched in a: 2 (1), 3 (1 — tie, larger id) … 1 is the example, left out.
    const found = await client().query('multi', { query: 1, using: 'a', lookup_from: { collection: 'multi', vector: 'b' } });
    expect(ids(found.points)).to.deep.equal([2, 3]);
  });

  it('refuses a missing collection, point or vector and a vector of another size in Qdrant\'s words; port 6333 answers its own shape', async () => {
    const q = client();
    expect(await refusal(q.recommend('items', { positive: [2], lookup_from: { collection: 'nope' } }))).to.equal('404 Collection nope not found');
    expect(await refusal(q.query('items', { query: 77, lookup_from: { collection: 'examples' } }))).to.equal('404 No point with id 77 found');
    expect(await refusal(q.query('items', { query: 9, lookup_from: { collection: 'examples', vector: 'img' } }))).to.equal('404 Vector with name "img" for point not found');
    expect(await refusal(q.query('items', { query: 2, lookup_from: { collection: 'wide' } }))).to.equal('400 Vector dimension error: expected dim: 2, got 3');
    expect(await refusal(q.query('items', { query: 2, lookup_from: { collection: 'multi' } }))).to.match(/^400 collection "multi" has no unnamed vector/);
    expect(await refusal(q.query('items', { query: 2, lookup_from: { collection: 'examples', shard_key: 'a' } as never }))).to.match(/^400 unknown field "lookup_from\.shard_key"/);
    // A lookup with no point id in its query reads nothing.
    expect(ids((await q.query('items', { query: [1, 0], lookup_from: { collection: 'nope' }, limit: 1 })).points)).to.deep.equal([1]);
    const spec = await call(s.url, 'POST', '/collections/items/points/recommend', { positive: [2], lookup_from: { collection: 'examples' }, limit: 1 });
    expect(spec.status).to.equal(200);
    expect(ids(spec.body.result as { id: number }[])).to.deep.equal([1]);
    const missing = await call(s.url, 'POST', '/collections/items/points/query', { query: 77, lookup_from: { collection: 'examples' } });
    expect([missing.status, missing.body.message]).to.deep.equal([404, 'No point with id 77 found']);
  });
});
