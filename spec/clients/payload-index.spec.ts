import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { call, useTestServer } from '../helpers/http.js';

describe('clients: payload indexes with @qdrant/js-client-rest 1.18', function () {
  this.timeout(30_000);
  const s = useTestServer({}, 'each');
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });
  const textFilter = { must: [{ key: 'body', match: { text: 'quick FOX' } }] };

  beforeEach(async () => {
    const q = client();
    await q.createCollection('c', { vectors: { size: 2, distance: 'Dot' } });
    await q.upsert('c', {
      wait: true,
      points: [
        { id: 1, vector: [1, 0], payload: { city: 'oslo', body: 'The quick brown fox' } },
        { id: 2, vector: [0, 1], payload: { city: 'rome', body: 'a lazy dog, no fox' } },
        { id: 3, vector: [1, 1], payload: { city: 'oslo', body: 'quick thinking, quicker fox!' } },
      ],
    });
  });

  it('declares keyword and text indexes, reports them as payload_schema; a text index makes match.text read words, not a substring', async () => {
    const q = client();
    const before = await q.scroll('c', { filter: textFilter, with_payload: false });
    expect(before.points, 'no "quick FOX" substring').to.deep.equal([]);
    await q.createPayloadIndex('c', { field_name: 'city', field_schema: 'keyword', wait: true });
    await q.createPayloadIndex('c', { field_name: 'body', field_schema: { type: 'text', tokenizer: 'word', lowercase: true }, wait: true });
    const info = await q.getCollection('c');
    expect(info.payload_schema).to.deep.equal({
      city: { data_type: 'keyword', points: 3 },
      body: { data_type: 'text', params: { type: 'text', tokenizer: 'word', lowercase: true }, points: 3 },
    });
    const after = await q.scroll('c', { filter: textFilter, with_payload: false });
    expect(after.points.map((p) => p.id)).to.deep.equal([1, 3]);
    await q.upsert('c', { wait: true, points: [{ id: 4, vector: [1, 0], payload: { body: 'Fox, QUICK!' } }] });
    await q.setPayload('c', { wait: true, payload: { body: 'slow fox' }, points: [3] });
    expect((await q.count('c', { filter: textFilter })).count, 'the text index follows upserts and payload changes').to.equal(2);
    const found = await q.query('c', { query: [1, 0], filter: textFilter, with_payload: false });
    expect(found.points.map((p) => p.id).sort()).to.deep.equal([1, 4]);
    await q.deletePayloadIndex('c', 'body', { wait: true });
    expect(Object.keys((await q.getCollection('c')).payload_schema ?? {})).to.deep.equal(['city']);
    expect((await q.count('c', { filter: textFilter })).count, 'and without it a substring again').to.equal(0);
  });

  it('keeps declared indexes across a restart and through export and import', async () => {
    const q = client();
    await q.createPayloadIndex('c', { field_name: 'body', field_schema: 'text', wait: true });
    await s.restart();
    expect((await client().getCollection('c')).payload_schema).to.deep.equal({ body: { data_type: 'text', points: 3 } });
    const file = new Uint8Array(await (await fetch(`${s.url}/collections/c/export`)).arrayBuffer());
    await fetch(`${s.url}/collections/copy/import?mode=create`, { method: 'POST', body: file, headers: { 'content-type': 'application/octet-stream' } });
    expect((await client().getCollection('copy')).payload_schema).to.deep.equal({ body: { data_type: 'text', points: 3 } });
    expect((await client().count('copy', { filter: textFilter })).count).to.equal(2);
  });

  it('refuses an index type or option it does not honour, naming it', async () => {
    for (const [field_schema, message] of [
      ['point', /field_schema/],
      [{ type: 'geo', enable_hnsw: true }, /enable_hnsw/],
      [{ type: 'text', tokenizer: 'prefix' }, /tokenizer/],
      [{ type: 'keyword', on_disk: true }, /on_disk/],
      [{ type: 'keyword', surprise: 1 }, /surprise/],
    ] as const) {
      const res = await call(s.url, 'PUT', '/collections/c/index', { field_name: 'x', field_schema });
      expect(res.status, JSON.stringify(field_schema)).to.equal(400);
      expect(res.body.message).to.match(message);
    }
  });
});
