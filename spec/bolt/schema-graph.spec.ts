import { expect } from 'chai';
import neo4j, { type Driver, type Node, type Relationship } from 'neo4j-driver';
import neo4j5 from 'neo4j-driver-5';
import { call, useTestServer } from '../helpers/http.js';

/**
 * The schema procedures graph tools call first: db.schema.visualization, apoc.meta.graph and
 * apoc.meta.subGraph (virtual nodes and relationships), apoc.meta.nodeTypeProperties and
 * relTypeProperties, and the listings LLM tools send (db.labels, SHOW INDEXES YIELD ...).
 */

// (:Person)-[:LIKES]->(:Movie) and (:Company)-[:LIKES]->(:Company): Neo4j's counts store would
// also pair Person with Company for LIKES; read from the data, only these two pairs exist.
const GRAPH = `CREATE (ann:Person {name: 'Ann'})-[:LIKES]->(:Movie {title: 'Alien'}),
  (ann)-[:WORKS_AT {since: 2020}]->(acme:Company {name: 'Acme'}),
  (:Person {name: 'Bob', age: 40})-[:WORKS_AT]->(acme),
  (acme)-[:LIKES]->(:Company {name: 'Beta'})`;

const num = (v: unknown) => (neo4j.isInt(v) ? (v as { toNumber(): number }).toNumber() : v);

/** A virtual graph by names: each node's label, each relationship as start-TYPE->end. */
function shape(nodes: Node[], rels: Relationship[]) {
  const byId = new Map(nodes.map((n) => [String(n.identity), n.labels[0]]));
  return { labels: nodes.map((n) => n.labels[0]), patterns: rels.map((r) => `${byId.get(String(r.start))}-${r.type}->${byId.get(String(r.end))}`).sort() };
}

describe('bolt: schema graphs (db.schema.visualization, apoc.meta.graph/subGraph) as virtual nodes and relationships, and the schema listings', function () {
  this.timeout(60_000);
  const s = useTestServer({}, 'each');
  let driver: Driver;
  const url = () => `bolt://127.0.0.1:${s.service.boltPort}`;
  const run = (text: string) => driver.executeQuery(text, {}, { database: 'kg' });
  const rest = async (query: string) => (await call(s.url, 'POST', '/collections/kg/graph/query', { query })).body;
  beforeEach(async () => {
    expect((await call(s.url, 'PUT', '/collections/kg', { vectors: { size: 2, distance: 'Cosine' } })).status).to.equal(200);
    driver = neo4j.driver(url(), neo4j.auth.basic('neo4j', 'any'));
    await run(GRAPH);
    await run('CREATE INDEX person_name FOR (p:Person) ON (p.name)');
    await run('CREATE CONSTRAINT movie_title FOR (m:Movie) REQUIRE m.title IS UNIQUE');
  });
  afterEach(() => driver.close());

  it('db.schema.visualization answers a virtual node per label and a relationship per pattern the data holds, read as Node and Relationship', async () => {
    const { records } = await run('CALL db.schema.visualization()');
    expect(records).to.have.length(1);
    expect(records[0]!.keys).to.deep.equal(['nodes', 'relationships']);
    const nodes = records[0]!.get('nodes') as Node[];
    const rels = records[0]!.get('relationships') as Relationship[];
    expect(nodes.every((n) => neo4j.isNode(n))).to.equal(true);
    expect(rels.every((r) => neo4j.isRelationship(r))).to.equal(true);
    expect(shape(nodes, rels)).to.deep.equal({ labels: ['Company', 'Movie', 'Person'], patterns: ['Company-LIKES->Company', 'Person-LIKES->Movie', 'Person-WORKS_AT->Company'] });

    const byLabel = Object.fromEntries(nodes.map((n) => [n.labels[0], n]));
    expect(byLabel.Person!.properties).to.deep.equal({ name: 'Person', indexes: ['name'], constraints: [] });
    // The constraint's own index is not listed among the indexes, as in Neo4j.
    expect(byLabel.Movie!.properties.indexes).to.deep.equal([]);
    expect(byLabel.Movie!.properties.constraints).to.have.length(1);
    expect(byLabel.Movie!.properties.constraints[0]).to.match(/^Constraint\( id=\d+, name='movie_title', type='UNIQUENESS', schema=\(:Movie \{title\}\), ownedIndex=\d+ \)$/);
    for (const n of nodes) {
      expect(n.identity.toNumber()).to.be.below(0);
      expect(n.elementId).to.equal(String(n.identity.toNumber()));
    }
    expect(new Set(nodes.map((n) => n.identity.toNumber())).size).to.equal(3);
    for (const r of rels) {
      expect(r.identity.toNumber()).to.be.below(0);
      expect(r.properties).to.deep.equal({ name: r.type });
      expect(r.startNodeElementId).to.equal(String(r.start.toNumber()));
      expect(r.endNodeElementId).to.equal(String(r.end.toNumber()));
    }
  });

  it('neo4j-driver 5 reads the same virtual entities as Node and Relationship', async () => {
    const d5 = neo4j5.driver(url(), neo4j5.auth.basic('neo4j', 'any'));
    try {
      const { records } = await d5.executeQuery('CALL db.schema.visualization() YIELD nodes, relationships RETURN nodes, relationships', {}, { database: 'kg' });
      const nodes = records[0]!.get('nodes');
      const rels = records[0]!.get('relationships');
      expect(nodes.every((n: unknown) => neo4j5.isNode(n as never))).to.equal(true);
      expect(rels.every((r: unknown) => neo4j5.isRelationship(r as never))).to.equal(true);
      expect(shape(nodes, rels).patterns).to.deep.equal(['Company-LIKES->Company', 'Person-LIKES->Movie', 'Person-WORKS_AT->Company']);
    } finally {
      await d5.close();
    }
  });

  it('REST writes the virtual entities as it writes nodes and relationships, ends by the nodes\u2019 ids', async () => {
    const body = await rest('CALL db.schema.visualization()');
    expect(body.result.columns).to.deep.equal(['nodes', 'relationships']);
    const [nodes, rels] = body.result.rows[0] as [{ id: number; labels: string[]; properties: Record<string, unknown> }[], { id: number; type: string; start: number; end: number; properties: Record<string, unknown> }[]];
    expect(nodes.map((n) => n.labels)).to.deep.equal([['Company'], ['Movie'], ['Person']]);
    expect(nodes.find((n) => n.labels[0] === 'Person')!.properties).to.deep.equal({ name: 'Person', indexes: ['name'], constraints: [] });
    const label = new Map(nodes.map((n) => [n.id, n.labels[0]]));
    expect(nodes.every((n) => n.id < 0) && rels.every((r) => r.id < 0)).to.equal(true);
    expect(rels.map((r) => `${label.get(r.start)}-${r.type}->${label.get(r.end)}`).sort()).to.deep.equal(['Company-LIKES->Company', 'Person-LIKES->Movie', 'Person-WORKS_AT->Company']);
    expect(rels[0]!.properties).to.deep.equal({ name: rels[0]!.type });
  });

  it('virtual entities read like nodes and relationships, no MATCH finds them, and no clause writes them', async () => {
    const read = await run(`CALL db.schema.visualization() YIELD nodes, relationships
      UNWIND relationships AS r WITH r WHERE type(r) = 'WORKS_AT'
      RETURN startNode(r).name AS start, endNode(r).name AS end, r.name AS name, r:WORKS_AT AS typed, labels(startNode(r)) AS labels, keys(endNode(r)) AS keys, id(r) < 0 AS negative`);
    expect(read.records.map((r) => r.toObject())).to.deep.equal([{ start: 'Person', end: 'Company', name: 'WORKS_AT', typed: true, labels: ['Person'], keys: ['name', 'indexes', 'constraints'], negative: true }]);

    const found = await run('CALL db.schema.visualization() YIELD nodes UNWIND nodes AS v OPTIONAL MATCH (m) WHERE id(m) = id(v) OR elementId(m) = elementId(v) RETURN count(m) AS c');
    expect(num(found.records[0]!.get('c'))).to.equal(0);
    const bound = await run('CALL db.schema.visualization() YIELD nodes UNWIND nodes AS v MATCH (v)-[]-() RETURN count(*) AS c');
    expect(num(bound.records[0]!.get('c'))).to.equal(0);

    for (const write of [
      'CALL db.schema.visualization() YIELD nodes UNWIND nodes AS v SET v.x = 1',
      'CALL db.schema.visualization() YIELD nodes UNWIND nodes AS v SET v:Extra',
      'CALL db.schema.visualization() YIELD nodes UNWIND nodes AS v REMOVE v.name',
      'CALL db.schema.visualization() YIELD nodes UNWIND nodes AS v DETACH DELETE v',
      'CALL db.schema.visualization() YIELD relationships UNWIND relationships AS r DELETE r',
      "CALL db.schema.visualization() YIELD nodes WITH nodes[0] AS v CREATE (v)-[:KNOWS]->(:Person {name: 'Cy'})",
      "CALL apoc.meta.graph() YIELD nodes WITH nodes[0] AS v MERGE (v)-[:KNOWS]->(:Person {name: 'Cy'})",
    ]) {
      const err = await run(write).then(
        () => null,
        (e: { code: string; message: string }) => e,
      );
      expect(err?.code, write).to.equal('Neo.ClientError.Statement.EntityNotFound');
      expect(err?.message, write).to.match(/virtual (node|relationship)/);
    }
    const counts = await run('MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS nodes, count(r) AS rels');
    expect([num(counts.records[0]!.get('nodes')), num(counts.records[0]!.get('rels'))]).to.deep.equal([5, 4]);
  });

  it('apoc.meta.graph counts nodes per label and relationships per pattern as APOC does; apoc.meta.subGraph keeps and drops labels and types', async () => {
    const { records } = await run('CALL apoc.meta.graph()');
    const nodes = records[0]!.get('nodes') as Node[];
    const rels = records[0]!.get('relationships') as Relationship[];
    expect(nodes.map((n) => [n.labels[0], n.properties.name, num(n.properties.count)])).to.deep.equal([
      ['Company', 'Company', 2],
      ['Movie', 'Movie', 1],
      ['Person', 'Person', 2],
    ]);
    const name = new Map(nodes.map((n) => [n.elementId, n.labels[0]]));
    const props = rels.map((r) => [name.get(r.startNodeElementId), r.type, name.get(r.endNodeElementId), Object.fromEntries(Object.entries(r.properties).map(([k, v]) => [k, num(v)]))]);
    // out: of the type leaving the start label; in: reaching the end label; count: of the type.
    expect(props).to.deep.equal([
      ['Company', 'LIKES', 'Company', { type: 'LIKES', out: 1, in: 1, count: 2 }],
      ['Person', 'LIKES', 'Movie', { type: 'LIKES', out: 1, in: 1, count: 2 }],
      ['Person', 'WORKS_AT', 'Company', { type: 'WORKS_AT', out: 2, in: 2, count: 2 }],
    ]);
    // Each call makes new ids: two in one query share none.
    const both = await run('CALL apoc.meta.graph() YIELD nodes AS a CALL db.schema.visualization() YIELD nodes AS b RETURN [n IN a + b | id(n)] AS ids');
    const ids = (both.records[0]!.get('ids') as unknown[]).map(num);
    expect(ids).to.have.length(6);
    expect(new Set(ids).size).to.equal(6);

    const sub = async (config: string) => {
      const r = (await run(`CALL apoc.meta.subGraph(${config})`)).records[0]!;
      return shape(r.get('nodes'), r.get('relationships'));
    };
    expect(await sub("{labels: ['Person', 'Company']}")).to.deep.equal({ labels: ['Company', 'Person'], patterns: ['Company-LIKES->Company', 'Person-WORKS_AT->Company'] });
    expect(await sub("{rels: ['LIKES']}")).to.deep.equal({ labels: ['Company', 'Movie', 'Person'], patterns: ['Company-LIKES->Company', 'Person-LIKES->Movie'] });
    expect(await sub("{excludes: ['Movie', 'WORKS_AT']}")).to.deep.equal({ labels: ['Company', 'Person'], patterns: ['Company-LIKES->Company'] });
    expect(await sub("{includeLabels: ['Person', 'Movie'], excludeLabels: ['Movie']}")).to.deep.equal({ labels: ['Person'], patterns: [] });
    const refused = await run("CALL apoc.meta.subGraph({labelz: ['Person']})").then(
      () => null,
      (e: { code: string; message: string }) => e,
    );
    expect(refused?.code).to.equal('Neo.ClientError.Procedure.ProcedureCallFailed');
    expect(refused?.message).to.include('labelz');
  });

  it('apoc.meta.nodeTypeProperties and relTypeProperties add how often each property was seen, relationships by their end labels', async () => {
    const nodeRows = (await run("CALL apoc.meta.nodeTypeProperties({includeLabels: ['Person']})")).records.map((r) => r.toObject());
    expect(nodeRows.map((r) => [r.nodeType, r.nodeLabels, r.propertyName, r.propertyTypes, r.mandatory, num(r.propertyObservations), num(r.totalObservations)])).to.deep.equal([
      [':`Person`', ['Person'], 'age', ['Long'], false, 1, 2],
      [':`Person`', ['Person'], 'name', ['String'], true, 2, 2],
    ]);
    const relRows = (await run("CALL apoc.meta.relTypeProperties({includeRels: ['WORKS_AT']})")).records.map((r) => r.toObject());
    expect(relRows.map((r) => [r.relType, r.sourceNodeLabels, r.targetNodeLabels, r.propertyName, r.propertyTypes, r.mandatory, num(r.propertyObservations), num(r.totalObservations)])).to.deep.equal([
      [':`WORKS_AT`', ['Person'], ['Company'], 'since', ['Long'], false, 1, 2],
      [':`WORKS_AT`', ['Person'], ['Company'], 'weight', ['Double'], true, 2, 2],
    ]);
    const excluded = (await run("CALL apoc.meta.relTypeProperties({excludeLabels: ['Person']}) YIELD relType, sourceNodeLabels RETURN DISTINCT relType, sourceNodeLabels")).records.map((r) => r.toObject());
    expect(excluded).to.deep.equal([{ relType: ':`LIKES`', sourceNodeLabels: ['Company'] }]);
  });

  it('answers the listings LLM tools send with Neo4j columns: labels, types, keys, analyzers, components, SHOW ... YIELD ... WHERE ... RETURN', async () => {
    const column = async (q: string, key: string) => (await run(q)).records.map((r) => r.get(key));
    expect(await column('CALL db.labels()', 'label')).to.deep.equal(['Company', 'Movie', 'Person']);
    expect(await column('CALL db.relationshipTypes()', 'relationshipType')).to.deep.equal(['LIKES', 'WORKS_AT']);
    expect(await column('CALL db.propertyKeys()', 'propertyKey')).to.deep.equal(['age', 'name', 'since', 'title', 'weight']);
    const analyzers = await run('CALL db.index.fulltext.listAvailableAnalyzers()');
    expect(analyzers.records[0]!.keys).to.deep.equal(['analyzer', 'description', 'stopwords']);
    expect(analyzers.records.map((r) => r.get('analyzer'))).to.deep.equal(['standard-no-stop-words']);
    const components = await run('CALL dbms.components() YIELD name, versions, edition UNWIND versions AS version RETURN name, version, edition');
    expect(components.records.map((r) => r.toObject())).to.deep.equal([{ name: 'Neo4j Kernel', version: '5.26.0', edition: 'community' }]);

    const shown = await run('SHOW INDEXES');
    expect(shown.records[0]!.keys).to.deep.equal(['id', 'name', 'state', 'populationPercent', 'type', 'entityType', 'labelsOrTypes', 'properties', 'indexProvider', 'owningConstraint', 'lastRead', 'readCount']);
    expect((await run('SHOW INDEXES YIELD *')).records[0]!.keys).to.include.members(['options', 'createStatement', 'failureMessage', 'trackedSince']);
    expect((await run("SHOW INDEXES WHERE type = 'LOOKUP'")).records.map((r) => r.get('name'))).to.deep.equal(['index_343aff4e', 'index_f7700477']);
    const range = await run("SHOW INDEXES YIELD name, type, labelsOrTypes, properties, owningConstraint WHERE type = 'RANGE' AND owningConstraint IS NULL RETURN name, labelsOrTypes[0] AS label, properties");
    expect(range.records.map((r) => r.toObject())).to.deep.equal([{ name: 'person_name', label: 'Person', properties: ['name'] }]);
    expect((await run('SHOW CONSTRAINTS')).records[0]!.keys).to.deep.equal(['id', 'name', 'type', 'entityType', 'labelsOrTypes', 'properties', 'ownedIndex', 'propertyType']);
    const constraints = await run("SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, createStatement WHERE 'Movie' IN labelsOrTypes RETURN name, type, createStatement");
    expect(constraints.records.map((r) => [r.get('name'), r.get('type')])).to.deep.equal([['movie_title', 'UNIQUENESS']]);
    expect(constraints.records[0]!.get('createStatement')).to.include('IS UNIQUE');
  });
});
