import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { call, useTestServer } from '../helpers/http.js';

const A = '0f8fad5b-d9cb-469f-a165-70867728950e';
const B = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const C = 'ffffffff-0000-4000-8000-000000000001';

describe('server: UUID point ids', () => {
  const s = useTestServer({}, 'each');
  const put = (points: unknown[]) => call(s.url, 'PUT', '/collections/u/points?wait=true', { points });

  beforeEach(async () => {
    await call(s.url, 'PUT', '/collections/u', { vectors: { size: 2, distance: 'Cosine' } });
    const res = await put([
      { id: A.toUpperCase(), vector: [1, 0], payload: { n: 'a' } },
      { id: B.replaceAll('-', ''), vector: [0, 1], payload: { n: 'b' } },
      { id: 5, vector: [1, 1], payload: { n: 'five' } },
      { id: C, vector: [1, 0.5], payload: { n: 'c' } },
    ]);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });

  it('accepts hyphenated and 32-hex spellings in any case and answers them lowercase hyphenated', async () => {
    const res = await call(s.url, 'POST', '/collections/u/points', { ids: [B.toUpperCase(), A.replaceAll('-', ''), 5, '00000000-0000-4000-8000-000000000000'] });
    expect(res.body.result.map((p: { id: unknown }) => p.id)).to.deep.equal([B, A, 5]);
    const search = await call(s.url, 'POST', '/collections/u/points/search', { vector: [1, 0], limit: 1 });
    expect(search.body.result[0].id).to.equal(A);
  });

  it('scrolls integers first, then UUIDs by their bytes, with a UUID next_page_offset', async () => {
    const first = await call(s.url, 'POST', '/collections/u/points/scroll', { limit: 2, with_payload: false });
    expect(first.body.result.points.map((p: { id: unknown }) => p.id)).to.deep.equal([5, A]);
    expect(first.body.result.next_page_offset).to.equal(B);
    const second = await call(s.url, 'POST', '/collections/u/points/scroll', { limit: 2, offset: B.toUpperCase(), with_payload: false });
    expect(second.body.result.points.map((p: { id: unknown }) => p.id)).to.deep.equal([B, C]);
    expect(second.body.result.next_page_offset).to.equal(null);
  });

  it('filters by has_id, deletes by id and by filter', async () => {
    const count = await call(s.url, 'POST', '/collections/u/points/count', { filter: { must: [{ has_id: [A.replaceAll('-', ''), 5] }] } });
    expect(count.body.result.count).to.equal(2);
    await call(s.url, 'POST', '/collections/u/points/delete?wait=true', { points: [A] });
    await call(s.url, 'POST', '/collections/u/points/delete?wait=true', { filter: { must: [{ key: 'n', match: { value: 'c' } }] } });
    const left = await call(s.url, 'POST', '/collections/u/points/scroll', { with_payload: false });
    expect(left.body.result.points.map((p: { id: unknown }) => p.id)).to.deep.equal([5, B]);
  });

  it('refuses an id that is neither an integer in range nor a UUID, naming it', async () => {
    for (const id of ['not-a-uuid', `${A}0`, -1, 1.5, '12']) {
      const res = await put([{ id, vector: [1, 0] }]);
      expect(res.status, String(id)).to.equal(400);
      expect(res.body.message).to.include('points[0].id');
    }
  });

  it('carries UUID ids through edges, neighbours (a UUID in the path), traverse and Cypher', async () => {
    expect((await call(s.url, 'POST', '/collections/u/graph/edges', { from_id: A, to_id: 5, relation: 'R', weight: 2 })).status).to.equal(200);
    expect((await call(s.url, 'POST', '/collections/u/graph/edges', { from_id: 5, to_id: B.toUpperCase(), relation: 'R' })).status).to.equal(200);
    const neighbours = await call(s.url, 'GET', `/collections/u/graph/neighbors/${A.replaceAll('-', '')}`);
    expect(neighbours.body.result.neighbors).to.deep.equal([{ id: 5, weight: 2, relation: 'R' }]);
    const walk = await call(s.url, 'POST', '/collections/u/graph/traverse', { start_id: A, max_depth: 3 });
    expect(walk.body.result.visited).to.deep.equal([A, 5, B]);
    const cypher = await call(s.url, 'POST', '/collections/u/graph/query', {
      query: 'MATCH (a)-[:R]->(b)-[:R]->(c) WHERE id(a) = $start RETURN id(a) AS a, id(b) AS b, id(c) AS c, c.n AS n',
      parameters: { start: A },
    });
    expect(cypher.status, JSON.stringify(cypher.body)).to.equal(200);
    expect(cypher.body.result.rows).to.deep.equal([[A, 5, B, 'b']]);
    const created = await call(s.url, 'POST', '/collections/u/graph/query', { query: 'MATCH (b) WHERE id(b) = $b CREATE (b)-[:S]->(n:New {x: 1}) RETURN id(n) AS id', parameters: { b: B } });
    expect(created.body.result.rows[0][0]).to.be.a('number', 'a node Cypher creates gets an integer id');
  });

  it('keeps UUID ids, edges and order across a restart and through export and import', async () => {
    await call(s.url, 'POST', '/collections/u/graph/edges', { from_id: C, to_id: A, relation: 'R' });
    await s.restart();
    const scroll = await call(s.url, 'POST', '/collections/u/points/scroll', { with_payload: false });
    expect(scroll.body.result.points.map((p: { id: unknown }) => p.id)).to.deep.equal([5, A, B, C]);
    const exported = await fetch(`${s.url}/collections/u/export`);
    expect(exported.headers.get('x-service-format-version')).to.equal('7');
    const bytes = new Uint8Array(await exported.arrayBuffer());
    const imported = await fetch(`${s.url}/collections/copy/import?mode=create`, { method: 'POST', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
    expect(imported.status).to.equal(200);
    const original = await call(s.url, 'POST', '/collections/u/points/scroll', { with_vector: true });
    const copy = await call(s.url, 'POST', '/collections/copy/points/scroll', { with_vector: true });
    expect(copy.body.result).to.deep.equal(original.body.result, 'an export → import round trip is exact (stored Cosine vectors are not normalised again)');
    const edges = await call(s.url, 'GET', `/collections/copy/graph/neighbors/${C}`);
    expect(edges.body.result.neighbors).to.deep.equal([{ id: A, weight: 1, relation: 'R' }]);
  });

  it('works with the official Qdrant client with UUID ids', async () => {
    const client = new QdrantClient({ url: s.url, checkCompatibility: false });
    await client.upsert('u', { wait: true, points: [{ id: '11111111-2222-4333-8444-555555555555', vector: [0.5, 0.5], payload: { n: 'q' } }] });
    const got = await client.retrieve('u', { ids: ['11111111-2222-4333-8444-555555555555'] });
    expect(got.map((p) => [p.id, p.payload])).to.deep.equal([['11111111-2222-4333-8444-555555555555', { n: 'q' }]]);
    await client.delete('u', { wait: true, points: ['11111111-2222-4333-8444-555555555555'] });
    expect((await client.count('u')).count).to.equal(4);
  });
});
