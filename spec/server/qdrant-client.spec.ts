import { QdrantClient } from '@qdrant/js-client-rest';
import { expect } from 'chai';
import { useTestServer } from '../helpers/http.js';

describe('server: the official Qdrant JavaScript client', () => {
  const s = useTestServer();
  let client: QdrantClient;
  before(async () => {
    client = new QdrantClient({ url: s.url, checkCompatibility: false });
  });

  it('drives collections, upsert, retrieve, scroll, search, batch search, count and delete', async () => {
    expect(await client.createCollection('books', { vectors: { size: 3, distance: 'Cosine' } })).to.equal(true);
    expect((await client.getCollections()).collections).to.deep.equal([{ name: 'books' }]);
    expect(await client.collectionExists('books')).to.deep.equal({ exists: true });
    const info = await client.getCollection('books');
    expect(info.config.params.vectors).to.deep.equal({ size: 3, distance: 'Cosine' });

    const op = await client.upsert('books', {
      wait: true,
      points: [
        { id: 1, vector: [1, 0, 0], payload: { genre: 'sf', year: 1965 } },
        { id: 2, vector: [0, 1, 0], payload: { genre: 'crime', year: 1930 } },
        { id: 3, vector: [0.9, 0.1, 0], payload: { genre: 'sf', year: 1984 } },
      ],
    });
    expect(op.status).to.equal('completed');

    const got = await client.retrieve('books', { ids: [3, 1], with_payload: true });
    expect(got.map((p) => p.id)).to.deep.equal([3, 1]);

    const page = await client.scroll('books', { filter: { must: [{ key: 'genre', match: { value: 'sf' } }] }, limit: 1 });
    expect(page.points.map((p) => p.id)).to.deep.equal([1]);
    expect(page.next_page_offset).to.equal(3);

    const hits = await client.search('books', { vector: [1, 0, 0], limit: 2, filter: { must: [{ key: 'year', range: { gte: 1960 } }] } });
    expect(hits.map((h) => h.id)).to.deep.equal([1, 3]);
    expect(hits[0]!.score).to.be.closeTo(1, 1e-6);

    const batch = await client.searchBatch('books', { searches: [{ vector: [0, 1, 0], limit: 1 }, { vector: [1, 0, 0], limit: 1 }] });
    expect(batch.map((r) => r[0]!.id)).to.deep.equal([2, 1]);

    expect(await client.count('books', { exact: true })).to.deep.equal({ count: 3 });
    const deleted = await client.delete('books', { wait: true, points: [2] });
    expect(deleted.status).to.equal('completed');
    expect(await client.count('books', { filter: { must: [{ key: 'genre', match: { value: 'crime' } }] } })).to.deep.equal({ count: 0 });

    expect(await client.deleteCollection('books')).to.equal(true);
    expect(await client.collectionExists('books')).to.deep.equal({ exists: false });
  });
});
