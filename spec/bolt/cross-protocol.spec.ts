import { expect } from 'chai';
import neo4j from 'neo4j-driver';
import { call, useTestServer } from '../helpers/http.js';
import { ImportReader } from '../../storage/export/import-reader.js';

/** The export of a collection, read back: its points by id. */
async function exported(url: string, collection: string): Promise<Map<unknown, { payload: unknown; labels: string[] }>> {
  const res = await fetch(`${url}/collections/${collection}/export`);
  expect(res.status).to.equal(200);
  const reader = new ImportReader();
  reader.feed(new Uint8Array(await res.arrayBuffer()));
  const file = reader.finish();
  return new Map(file.points.map((p) => [p.id, { payload: p.payload, labels: p.labels }]));
}

describe('bolt: one database, three ways in', () => {
  const server = useTestServer({}, 'each');

  it('shows what Bolt writes through REST (Cypher, points, search) and export, and what REST writes through Bolt', async () => {
    const s = server;
    expect((await call(s.url, 'PUT', '/collections/kg', { vectors: { size: 2, distance: 'Cosine' } })).status).to.equal(200);
    const driver = neo4j.driver(`bolt://127.0.0.1:${s.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'));
    try {
      const written = await driver.executeQuery('CREATE (a:Person {name: "Ada", embedding: [1.0, 0.5]})-[:KNOWS {since: 2020}]->(b:Person {name: "Bob"}) RETURN id(a) AS a, id(b) AS b', {}, { database: 'kg' });
      const ada = written.records[0]!.get('a').toNumber();
      const bob = written.records[0]!.get('b').toNumber();

      const cypher = await call(s.url, 'POST', '/collections/kg/graph/query', { query: 'MATCH (a:Person)-[r:KNOWS]->(b) RETURN a.name, r.since, b.name' });
      expect(cypher.body.result.rows).to.deep.equal([['Ada', 2020, 'Bob']]);
      const point = await call(s.url, 'GET', `/collections/kg/points/${ada}`);
      expect(point.body.result).to.deep.include({ id: ada, payload: { name: 'Ada' }, labels: ['Person'] });
      const near = await call(s.url, 'POST', '/collections/kg/points/query', { query: [1, 0.5], limit: 1 });
      expect(near.body.result[0].id).to.equal(ada);
      const neighbours = await call(s.url, 'GET', `/collections/kg/graph/neighbors/${ada}`);
      expect(neighbours.body.result.neighbors).to.deep.equal([{ id: bob, weight: 1, relation: 'KNOWS' }]);
      const file = await exported(s.url, 'kg');
      expect(file.get(bob)).to.deep.equal({ payload: { name: 'Bob' }, labels: ['Person'] });

      await call(s.url, 'PUT', '/collections/kg/points?wait=true', { points: [{ id: 100, vector: [0, 1], payload: { name: 'Cy' }, labels: ['Person'] }] });
      await call(s.url, 'POST', '/collections/kg/graph/edges', { from_id: 100, to_id: ada, relation: 'KNOWS', weight: 0.5 });
      const read = await driver.executeQuery('MATCH (c:Person {name: "Cy"})-[r:KNOWS]->(a) RETURN id(c) AS c, r.weight AS w, a.name AS a', {}, { database: 'kg' });
      expect(read.records.map((r) => [r.get('c').toNumber(), r.get('w'), r.get('a')])).to.deep.equal([[100, 0.5, 'Ada']]);
    } finally {
      await driver.close();
    }
  });
});
