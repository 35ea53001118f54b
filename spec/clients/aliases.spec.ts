import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { call, useTestServer } from '../helpers/http.js';

describe('clients: collection aliases with @qdrant/js-client-rest 1.18', function () {
  this.timeout(30_000);
  const s = useTestServer({}, 'each');
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });

  beforeEach(async () => {
    const q = client();
    for (const name of ['v1', 'v2']) await q.createCollection(name, { vectors: { size: 2, distance: 'Dot' } });
    await q.upsert('v1', { wait: true, points: [{ id: 1, vector: [1, 0], payload: { v: 1 } }] });
    await q.upsert('v2', { wait: true, points: [{ id: 2, vector: [0, 1], payload: { v: 2 } }] });
  });

  it('creates, lists, switches (blue/green) and deletes aliases, every collection path resolving them', async () => {
    const q = client();
    await q.updateCollectionAliases({ actions: [{ create_alias: { collection_name: 'v1', alias_name: 'live' } }] });
    expect((await q.getAliases()).aliases).to.deep.equal([{ alias_name: 'live', collection_name: 'v1' }]);
    expect((await q.query('live', { query: [1, 0], with_payload: true })).points.map((p) => p.payload)).to.deep.equal([{ v: 1 }]);
    await q.upsert('live', { wait: true, points: [{ id: 3, vector: [1, 1], payload: { via: 'alias' } }] });
    expect((await q.retrieve('v1', { ids: [3] })).map((p) => p.payload), 'a write through the alias lands in the collection').to.deep.equal([{ via: 'alias' }]);
    const cypher = await call(s.url, 'POST', '/collections/live/graph/query', { query: 'MATCH (n) RETURN count(n) AS n' });
    expect(cypher.body.result.rows).to.deep.equal([[2]]);
    await q.updateCollectionAliases({ actions: [{ delete_alias: { alias_name: 'live' } }, { create_alias: { collection_name: 'v2', alias_name: 'live' } }] });
    expect((await q.getCollectionAliases('v2')).aliases).to.deep.equal([{ alias_name: 'live', collection_name: 'v2' }]);
    expect((await q.getCollectionAliases('v1')).aliases).to.deep.equal([]);
    expect((await q.count('live')).count).to.equal(1);
    await q.updateCollectionAliases({ actions: [{ rename_alias: { old_alias_name: 'live', new_alias_name: 'prod' } }] });
    expect((await q.getAliases()).aliases).to.deep.equal([{ alias_name: 'prod', collection_name: 'v2' }]);
  });

  it('keeps aliases across a restart, and drops a collection\'s aliases with it', async () => {
    const q = client();
    await q.updateCollectionAliases({ actions: [{ create_alias: { collection_name: 'v1', alias_name: 'a1' } }, { create_alias: { collection_name: 'v2', alias_name: 'a2' } }] });
    await s.restart();
    expect((await client().getAliases()).aliases.map((a) => a.alias_name)).to.deep.equal(['a1', 'a2']);
    await s.service.engine.snapshot();
    await s.restart();
    expect((await client().getAliases()).aliases.map((a) => a.alias_name), 'from a snapshot too').to.deep.equal(['a1', 'a2']);
    await client().deleteCollection('v1');
    expect((await client().getAliases()).aliases).to.deep.equal([{ alias_name: 'a2', collection_name: 'v2' }]);
  });

  it('refuses an alias that shadows a collection, a missing target, and applies nothing of a refused list', async () => {
    for (const [actions, status, message] of [
      [[{ create_alias: { collection_name: 'v1', alias_name: 'v2' } }], 409, /"v2" is the name of a collection/],
      [[{ create_alias: { collection_name: 'nope', alias_name: 'x' } }], 404, /collection "nope" not found/],
      [[{ create_alias: { collection_name: 'v1', alias_name: 'ok' } }, { delete_alias: { alias_name: 'missing' } }], 404, /alias "missing" not found/],
    ] as const) {
      const res = await call(s.url, 'POST', '/collections/aliases', { actions });
      expect(res.status).to.equal(status);
      expect(res.body.message).to.match(message);
    }
    expect((await client().getAliases()).aliases).to.deep.equal([]);
    await client().updateCollectionAliases({ actions: [{ create_alias: { collection_name: 'v1', alias_name: 'taken' } }] });
    const clash = await call(s.url, 'PUT', '/collections/taken', { vectors: { size: 2, distance: 'Dot' } });
    expect(clash.status).to.equal(409);
    expect(clash.body.message).to.equal('"taken" is an alias; a collection cannot take its name');
  });
});
