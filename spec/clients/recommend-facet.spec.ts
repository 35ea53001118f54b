import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { call, useTestServer } from '../helpers/http.js';

describe('clients: recommend, grouped search, facets and ordered scroll with @qdrant/js-client-rest 1.18', function () {
  this.timeout(30_000);
  const s = useTestServer({}, 'each');
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });

  beforeEach(async () => {
    const q = client();
    await q.createCollection('c', { vectors: { size: 2, distance: 'Cosine' } });
    await q.upsert('c', {
      wait: true,
      points: [
        { id: 1, vector: [1, 0], payload: { city: 'oslo', price: 30, at: '2024-01-03T00:00:00Z', tags: ['a', 'b'] } },
        { id: 2, vector: [0.9, 0.1], payload: { city: 'oslo', price: 10, at: '2024-01-01T00:00:00Z', tags: ['a'] } },
        { id: 3, vector: [0, 1], payload: { city: 'rome', price: 20, at: '2024-01-02T00:00:00Z', tags: ['b'] } },
        { id: 4, vector: [0.6, 0.8], payload: { city: 'lima', price: 40, tags: [] } },
      ],
    });
  });

  it('recommends by ids and vectors, one at a time and in a batch, on both ports', async () => {
    const q = client();
    const recs = await q.recommend('c', { positive: [1], negative: [3], limit: 2, with_payload: false });
    expect(recs.map((p) => p.id)).to.deep.equal([2, 4]);
    const byVector = await q.recommend('c', { positive: [[0, 1]], strategy: 'best_score', limit: 1, with_payload: false });
    expect(byVector.map((p) => p.id)).to.deep.equal([3]);
    const batch = await q.recommendBatch('c', { searches: [{ positive: [1], limit: 1 }, { positive: [3], limit: 1 }] });
    expect(batch.map((r) => r.map((p) => p.id))).to.deep.equal([[2], [4]]);
    const spec = await call(s.url, 'POST', '/collections/c/points/recommend', { positive: [1], negative: [3], limit: 2, with_payload: false });
    expect(spec.body.result.map((p: { id: number }) => p.id)).to.deep.equal([2, 4]);
  });

  it('groups search hits by a payload key', async () => {
    const { groups } = await client().searchPointGroups('c', { vector: [1, 0], group_by: 'city', group_size: 2, limit: 2, with_payload: false });
    expect(groups.map((g) => [g.id, g.hits.map((h) => h.id)])).to.deep.equal([
      ['oslo', [1, 2]],
      ['lima', [4]],
    ]);
  });

  it('counts points per value with facet, array elements each once per point', async () => {
    const { hits } = await client().facet('c', { key: 'tags', limit: 5 });
    expect(hits).to.deep.equal([
      { value: 'a', count: 2 },
      { value: 'b', count: 2 },
    ]);
    const filtered = await client().facet('c', { key: 'city', filter: { must: [{ key: 'price', range: { gte: 20 } }] } });
    expect(filtered.hits).to.deep.equal([
      { value: 'lima', count: 1 },
      { value: 'oslo', count: 1 },
      { value: 'rome', count: 1 },
    ]);
  });

  it('scrolls in the order of a number or a date-time, from a starting value, leaving out points without it', async () => {
    const q = client();
    const byPrice = await q.scroll('c', { order_by: { key: 'price', direction: 'desc' }, limit: 3, with_payload: false });
    expect(byPrice.points.map((p) => [p.id, p.order_value])).to.deep.equal([
      [4, 40],
      [1, 30],
      [3, 20],
    ]);
    expect(byPrice.next_page_offset ?? null).to.equal(null);
    const byDate = await q.scroll('c', { order_by: { key: 'at', start_from: '2024-01-02T00:00:00Z' }, with_payload: false });
    expect(byDate.points.map((p) => p.id)).to.deep.equal([3, 1]);
    const both = await call(s.url, 'POST', '/collections/c/points/scroll', { order_by: 'price', offset: 2 });
    expect(both.status).to.equal(400);
    expect(both.body.message).to.match(/with order_by, use order_by.start_from/);
  });
});
