import { expect } from 'chai';
import { call, useTestServer } from '../helpers/http.js';

describe('server: graph query (Cypher)', () => {
  const s = useTestServer({}, 'each');
  const query = (q: string, extra: Record<string, unknown> = {}, name = 'g') => call(s.url, 'POST', `/collections/${name}/graph/query`, { query: q, ...extra });
  const rows = async (q: string, parameters: Record<string, unknown> = {}, name = 'g') => {
    const r = await query(q, { parameters }, name);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body.result.rows as unknown[][];
  };

  beforeEach(async () => {
    await call(s.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } });
    await call(s.url, 'PUT', '/collections/g/points', {
      points: [1, 2, 3, 4].map((id) => ({ id, vector: [id, 0], payload: { name: `p${id}`, even: id % 2 === 0 }, labels: ['Person'] })),
    });
    for (const [from_id, to_id] of [[1, 2], [2, 3], [3, 4]]) await call(s.url, 'POST', '/collections/g/graph/edges', { from_id, to_id, relation: 'KNOWS', weight: 0.5 });
  });
  it('answers columns, rows and honest stats; points are nodes and REST edges are relationships', async () => {
    const r = await query('MATCH (a:Person)-[k:KNOWS]->(b) WHERE a.name = $n RETURN a.name, k, b', { parameters: { n: 'p2' } });
    expect(r.status).to.equal(200);
    expect(r.body.status).to.equal('ok');
    const { columns, rows: got, stats } = r.body.result;
    expect(columns).to.deep.equal(['a.name', 'k', 'b']);
    expect(got).to.deep.equal([
      ['p2', { id: 1, type: 'KNOWS', start: 2, end: 3, properties: { weight: 0.5 } }, { id: 3, labels: ['Person'], properties: { name: 'p3', even: false } }],
    ]);
    expect(stats.rows_returned).to.equal(1);
    expect(stats.nodes_scanned, 'the payload index finds p2, then one hop').to.equal(2);
    expect(stats.execution_time_ms).to.be.a('number').and.at.least(0);
    const all = await query('MATCH (n) RETURN count(*)');
    expect(all.body.result.stats.nodes_scanned).to.equal(4);
  });

  it('takes its parameters as `parameters` or `params`, and refuses a body it cannot use', async () => {
    expect((await query('RETURN $x AS x', { params: { x: 5 } })).body.result.rows).to.deep.equal([[5]]);
    expect((await query('RETURN $x AS x', { parameters: { x: [1, 'a'] } })).body.result.rows).to.deep.equal([[[1, 'a']]]);
    const both = await query('RETURN $x', { parameters: { x: 1 }, params: { x: 2 } });
    expect(both.status).to.equal(400);
    expect(both.body.message).to.match(/parameters and params/);
    expect((await call(s.url, 'POST', '/collections/g/graph/query', {})).body.message).to.match(/query is required/);
    expect((await query('RETURN 1', { parameters: [1] })).status).to.equal(400);
    expect((await query('RETURN $nope')).body.message).to.match(/Expected parameter\(s\): nope/);
    expect((await query('MATCH (n) RETURN n', {}, 'missing')).status).to.equal(404);
  });

  it('answers bad Cypher with a 400 error body naming the line and column, or the unsupported clause', async () => {
    const syntax = await query('MATCH (n:Person)\nWHERE n.name = \nRETURN n');
    expect(syntax.status).to.equal(400);
    expect(syntax.body.status).to.equal('error');
    expect(syntax.body.message).to.match(/line 3, column 1/).and.match(/expected an expression/);
    const load = await query('LOAD CSV FROM "file:///x.csv" AS row RETURN row');
    expect(load.status).to.equal(400);
    expect(load.body.message).to.match(/LOAD is not supported/);
    const type = await query('MATCH (n) RETURN n.name.first');
    expect(type.status).to.equal(400);
    expect(type.body.message).to.match(/TypeError/);
    expect((await query('MATCH (n) RETURN m')).body.message).to.match(/UndefinedVariable.*`m` is not defined/);
  });

  it('writes atomically: a failing write query changes nothing, a good one is acknowledged durable', async () => {
    const bad = await query("MATCH (n:Person) CREATE (:Copy {of: n.name}) WITH n WHERE n.name = 'p4' SET n.bad = {map: 1}");
    expect(bad.status).to.equal(400);
    expect(await rows('MATCH (c:Copy) RETURN count(*)')).to.deep.equal([[0]]);
    const before = (await call(s.url, 'GET', '/collections/g')).body.result;
    const created = await rows("MATCH (a {name: 'p1'}), (b {name: 'p4'}) CREATE (a)-[r:LIKES {since: 2020, weight: 2}]->(b)<-[:LIKES]-(c:New {name: 'c', embedding: [9, 9]}) RETURN id(c), r.weight");
    expect(created).to.deep.equal([[5, 2]]);
    expect((await call(s.url, 'POST', '/collections/g/points', { ids: [5], with_vector: true })).body.result).to.deep.equal([
      { id: 5, payload: { name: 'c' }, labels: ['New'], vector: [9, 9] },
    ]);
    const near = await call(s.url, 'POST', '/collections/g/points/search', { vector: [9, 9], limit: 1 });
    expect(near.body.result[0].id, 'a Cypher embedding is searchable').to.equal(5);
    expect((await call(s.url, 'GET', '/collections/g/graph/neighbors/1')).body.result.neighbors).to.deep.equal([
      { id: 2, weight: 0.5, relation: 'KNOWS' },
      { id: 4, weight: 2, relation: 'LIKES' },
    ]);
    expect((await call(s.url, 'GET', '/collections/g')).body.result.points_count).to.equal(before.points_count + 1);
  });

  it('hands out distinct ids to concurrent CREATE queries and keeps deleted ids retired', async () => {
    const made = await Promise.all(Array.from({ length: 20 }, (_, i) => rows(`CREATE (n:Made {i: ${i}}) RETURN id(n)`)));
    const ids = made.map((r) => r[0]![0] as number);
    expect(new Set(ids).size).to.equal(20);
    expect(Math.min(...ids)).to.equal(5);
    await rows('MATCH (n:Made) DETACH DELETE n');
    expect(await rows('CREATE (n) RETURN id(n)')).to.deep.equal([[25]]);
    expect(await rows('MATCH (n:Made) RETURN count(*)')).to.deep.equal([[0]]);
  });

  it('answers a vector predicate with the collection distance', async () => {
    expect(await rows('MATCH (n:Person) WHERE n.embedding <-> $q < 1.5 RETURN n.name ORDER BY n.name', { q: [2.6, 0] })).to.deep.equal([['p2'], ['p3'], ['p4']]);
    expect(await rows('MATCH (n {name: "p1"}) RETURN n.embedding <-> [4, 4]')).to.deep.equal([[5]]);
  });

  it('keeps Cypher writes, relationship properties and parallel edges across a restart and an export/import', async () => {
    await call(s.url, 'PUT', '/collections/w', { vectors: { size: 2, distance: 'Euclid' } });
    await rows("CREATE (a:A {name: 'a'})-[:T {k: 1}]->(b:B {name: 'b'}), (a)-[:T {k: 2}]->(b)", {}, 'w');
    await rows("MATCH (a:A)-[r:T {k: 2}]->() SET r.note = 'second', a.seen = true", {}, 'w');
    const snapshot = async () => rows('MATCH (a)-[r]->(b) RETURN a, r, b ORDER BY r.k', {}, 'w');
    const expected = await snapshot();
    expect(expected).to.have.length(2);
    await s.restart();
    expect(await snapshot()).to.deep.equal(expected);

    const exported = new Uint8Array(await (await fetch(`${s.url}/collections/w/export`)).arrayBuffer());
    const res = await fetch(`${s.url}/collections/h/import?mode=create`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: Buffer.from(exported) });
    expect(res.status).to.equal(200);
    expect(await rows('MATCH (a)-[r]->(b) RETURN a, r, b ORDER BY r.k', {}, 'h')).to.deep.equal(expected);
    expect(await rows('CREATE (n) RETURN id(n)', {}, 'h'), 'the id counter comes with the points').to.deep.equal([[2]]);
  });
});
