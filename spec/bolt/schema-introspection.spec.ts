import { expect } from 'chai';
import { Neo4jGraph } from '@langchain/community/graphs/neo4j_graph';
import neo4j, { type Driver, type Record as Neo4jRecord } from 'neo4j-driver';
import { call, useTestServer } from '../helpers/http.js';

/** A record as plain values: driver Integers as numbers. */
function plain(v: unknown): unknown {
  if (neo4j.isInt(v)) return (v as { toNumber(): number }).toNumber();
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}
const rows = (records: Neo4jRecord[]) => records.map((r) => plain(r.toObject()) as Record<string, unknown>);

const GRAPH = `CREATE (a:Person {name: 'Ann', born: date('1990-01-02'), seen: datetime('2024-05-06T07:08:09Z'), local: localdatetime('2024-05-06T07:08:09'),
  wakes: localtime('07:00'), lunch: time('12:00+01:00'), stay: duration('P2D'), home: point({latitude: 52.5, longitude: 13.4}),
  big: 9007199254740993, small: 7, ratio: 1.0, share: 0.25, active: true, tags: ['a', 'b']})
  -[:KNOWS {since: date('2020-01-01')}]->(b:Person:Actor {name: 'Bob'})`;

describe('bolt: schema introspection (apoc.meta.*, db.schema.*, SHOW DATABASES/PROCEDURES/FUNCTIONS, the system database, GQL statuses) with neo4j-driver', function () {
  this.timeout(60_000);
  const s = useTestServer({}, 'each');
  let driver: Driver;
  const url = () => `bolt://127.0.0.1:${s.service.boltPort}`;
  beforeEach(() => {
    driver = neo4j.driver(url(), neo4j.auth.basic('neo4j', 'any'));
  });
  afterEach(() => driver.close());
  const run = async (text: string, database?: string) => rows((await driver.executeQuery(text, {}, database ? { database } : {})).records);
  const failure = (text: string, database?: string) =>
    driver.executeQuery(text, {}, database ? { database } : {}).then(
      () => null,
      (e: { code: string; message: string; gqlStatus: string; classification: string }) => e,
    );

  it('apoc.meta.data reports each property by the type it is stored with, and a relationship weight as FLOAT', async () => {
    await run(GRAPH);
    await run('CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS UNIQUE');
    const meta = await run('CALL apoc.meta.data() YIELD label, property, type, elementType, unique, index, array, other RETURN *');
    const types = Object.fromEntries(meta.filter((r) => r.label === 'Person' && r.elementType === 'node').map((r) => [r.property, r.type]));
    expect(types).to.deep.equal({
      name: 'STRING',
      born: 'DATE',
      seen: 'DATE_TIME',
      local: 'LOCAL_DATE_TIME',
      wakes: 'LOCAL_TIME',
      lunch: 'TIME',
      stay: 'DURATION',
      home: 'POINT',
      big: 'INTEGER',
      small: 'INTEGER',
      ratio: 'FLOAT',
      share: 'FLOAT',
      active: 'BOOLEAN',
      tags: 'LIST',
      KNOWS: 'RELATIONSHIP',
    });
    const name = meta.find((r) => r.label === 'Person' && r.property === 'name')!;
    expect([name.unique, name.index]).to.deep.equal([true, true]);
    expect(meta.find((r) => r.property === 'tags')!.array).to.equal(true);
    expect(meta.find((r) => r.property === 'KNOWS')!.other).to.deep.equal(['Actor', 'Person']);
    const rel = meta.filter((r) => r.elementType === 'relationship').map((r) => [r.label, r.property, r.type]);
    expect(rel).to.deep.equal([
      ['KNOWS', 'since', 'DATE'],
      ['KNOWS', 'weight', 'FLOAT'],
    ]);
    // The weight reads back as the FLOAT it is reported as.
    const [w] = (await driver.executeQuery('MATCH ()-[r:KNOWS]->() RETURN r.weight AS w')).records;
    expect(w!.get('w')).to.be.a('number').and.to.equal(1);
    expect(neo4j.isInt(w!.get('w'))).to.equal(false);
  });

  it('apoc.meta.schema answers one map by label and relationship type, with property types, directions and counts', async () => {
    await run(GRAPH);
    const [{ value }] = (await run('CALL apoc.meta.schema() YIELD value RETURN value')) as [{ value: Record<string, any> }];
    expect(Object.keys(value).sort()).to.deep.equal(['Actor', 'KNOWS', 'Person']);
    expect(value.Person.type).to.equal('node');
    expect(value.Person.count).to.equal(2);
    expect(value.Person.properties.born).to.deep.equal({ type: 'DATE', indexed: false, unique: false, existence: false });
    expect(value.Person.properties.home.type).to.equal('POINT');
    expect(value.Person.relationships.KNOWS).to.deep.include({ direction: 'out', count: 1, labels: ['Actor', 'Person'] });
    expect(value.Actor.relationships.KNOWS).to.deep.include({ direction: 'in', count: 1, labels: ['Person'] });
    expect(value.KNOWS).to.deep.equal({ type: 'relationship', count: 1, properties: { since: { existence: false, type: 'DATE', array: false }, weight: { existence: false, type: 'FLOAT', array: false } } });
  });

  it("db.schema.nodeTypeProperties and relTypeProperties answer Neo4j's columns and type names", async () => {
    await run(GRAPH);
    await run('CREATE (:Empty)');
    const nodes = await run('CALL db.schema.nodeTypeProperties()');
    expect(Object.keys(nodes[0]!)).to.deep.equal(['nodeType', 'nodeLabels', 'propertyName', 'propertyTypes', 'mandatory']);
    const person = Object.fromEntries(nodes.filter((r) => r.nodeType === ':`Person`').map((r) => [r.propertyName, r.propertyTypes]));
    expect(person).to.deep.include({ born: ['Date'], seen: ['DateTime'], local: ['LocalDateTime'], wakes: ['LocalTime'], lunch: ['Time'], stay: ['Duration'], home: ['Point'], big: ['Long'], ratio: ['Double'], active: ['Boolean'], tags: ['StringArray'] });
    expect(nodes).to.deep.include({ nodeType: ':`Actor`:`Person`', nodeLabels: ['Actor', 'Person'], propertyName: 'name', propertyTypes: ['String'], mandatory: true });
    expect(nodes).to.deep.include({ nodeType: ':`Empty`', nodeLabels: ['Empty'], propertyName: null, propertyTypes: null, mandatory: false });
    expect(await run('CALL db.schema.relTypeProperties()')).to.deep.equal([
      { relType: ':`KNOWS`', propertyName: 'since', propertyTypes: ['Date'], mandatory: true },
      { relType: ':`KNOWS`', propertyName: 'weight', propertyTypes: ['Double'], mandatory: true },
    ]);
  });

  it('apoc.meta.stats, apoc.schema.nodes, db.ping, db.info, apoc.version() and dbms.listConfig answer', async () => {
    await run(GRAPH);
    await run('CREATE INDEX person_born FOR (p:Person) ON (p.born)');
    const [stats] = await run('CALL apoc.meta.stats()');
    expect(stats).to.deep.include({ labelCount: 2, relTypeCount: 1, nodeCount: 2, relCount: 1, labels: { Actor: 1, Person: 2 }, relTypesCount: { KNOWS: 1 } });
    expect(stats!.relTypes).to.deep.equal({ '()-[:KNOWS]->()': 1, '(:Person)-[:KNOWS]->()': 1, '()-[:KNOWS]->(:Actor)': 1, '()-[:KNOWS]->(:Person)': 1 });
    const indexes = await run('CALL apoc.schema.nodes() YIELD name, label, properties, status, type');
    expect(indexes).to.deep.equal([{ name: 'person_born', label: 'Person', properties: ['born'], status: 'ONLINE', type: 'RANGE' }]);
    expect(await run('CALL db.ping()')).to.deep.equal([{ success: true }]);
    expect((await run('CALL db.info() YIELD name RETURN name'))[0]!.name).to.equal('neo4j');
    expect((await run('RETURN apoc.version() AS v'))[0]!.v).to.match(/^5\./);
    expect(await run("CALL dbms.listConfig('default_database') YIELD name, value")).to.deep.equal([{ name: 'initial.dbms.default_database', value: 'neo4j' }]);
  });

  it('SHOW DATABASES, SHOW DATABASE name and SHOW DEFAULT DATABASE list the collections, on the default and the system database', async () => {
    await run('CREATE (:A)');
    // Another database is another collection.
    expect((await call(s.url, 'PUT', '/collections/other', { vectors: { size: 2, distance: 'Cosine' } })).status).to.equal(200);
    await run('CREATE (:B)', 'other');
    const all = await run('SHOW DATABASES');
    expect(Object.keys(all[0]!)).to.deep.equal(['name', 'type', 'aliases', 'access', 'address', 'role', 'writer', 'requestedStatus', 'currentStatus', 'statusMessage', 'default', 'home', 'constituents']);
    expect(all.map((r) => [r.name, r.type, r.default, r.currentStatus])).to.deep.equal([
      ['neo4j', 'standard', true, 'online'],
      ['other', 'standard', false, 'online'],
      ['system', 'system', false, 'online'],
    ]);
    expect(await run('SHOW DATABASES YIELD name, home WHERE home', 'system')).to.deep.equal([{ name: 'neo4j', home: true }]);
    expect(await run('SHOW DATABASE other YIELD name, access', 'system')).to.deep.equal([{ name: 'other', access: 'read-write' }]);
    const def = await run('SHOW DEFAULT DATABASE', 'system');
    expect(def.map((r) => r.name)).to.deep.equal(['neo4j']);
    expect(Object.keys(def[0]!)).to.not.include('default');
    const refused = await failure('MATCH (n) RETURN n', 'system');
    expect(refused?.code).to.equal('Neo.ClientError.Statement.NotSystemDatabaseError');
    expect((await failure('CREATE (:X)', 'system'))?.code).to.equal('Neo.ClientError.Statement.NotSystemDatabaseError');
    expect((await run('CALL dbms.components() YIELD name', 'system'))[0]!.name).to.equal('Neo4j Kernel');
    expect((await failure('RETURN 1', 'nope'))?.code).to.equal('Neo.ClientError.Database.DatabaseNotFound');
  });

  it('SHOW PROCEDURES and SHOW FUNCTIONS list what CALL and expressions can name, with YIELD and WHERE', async () => {
    const procs = await run("SHOW PROCEDURES YIELD name, mode WHERE name STARTS WITH 'db.schema'");
    expect(procs).to.deep.equal([
      { name: 'db.schema.nodeTypeProperties', mode: 'READ' },
      { name: 'db.schema.relTypeProperties', mode: 'READ' },
      { name: 'db.schema.visualization', mode: 'READ' },
    ]);
    expect(Object.keys((await run('SHOW PROCEDURES'))[0]!)).to.deep.equal(['name', 'description', 'mode', 'worldAffecting']);
    const fns = await run("SHOW FUNCTIONS YIELD name, category WHERE name IN ['count', 'apoc.version', 'date']");
    expect(fns).to.deep.equal([
      { name: 'apoc.version', category: 'Scalar' },
      { name: 'count', category: 'Aggregating' },
      { name: 'date', category: 'Scalar' },
    ]);
    const unknown = await failure('CALL db.nothing()');
    expect(unknown?.message).to.include('db.schema.nodeTypeProperties').and.to.include('apoc.meta.schema').and.to.include('db.ping');
  });

  it("schema commands report query type 's', SHOW INDEXES lists the two LOOKUP indexes, which cannot be dropped", async () => {
    const created = await driver.executeQuery('CREATE INDEX person_name FOR (p:Person) ON (p.name)');
    expect(created.summary.queryType).to.equal('s');
    expect(created.summary.counters.updates().indexesAdded).to.equal(1);
    const shown = await driver.executeQuery('SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, indexProvider');
    expect(shown.summary.queryType).to.equal('r');
    expect(rows(shown.records)).to.deep.equal([
      { name: 'person_name', type: 'RANGE', entityType: 'NODE', labelsOrTypes: ['Person'], indexProvider: 'range-1.0' },
      { name: 'index_343aff4e', type: 'LOOKUP', entityType: 'NODE', labelsOrTypes: null, indexProvider: 'token-lookup-1.0' },
      { name: 'index_f7700477', type: 'LOOKUP', entityType: 'RELATIONSHIP', labelsOrTypes: null, indexProvider: 'token-lookup-1.0' },
    ]);
    expect((await run('SHOW LOOKUP INDEXES YIELD name')).map((r) => r.name)).to.deep.equal(['index_343aff4e', 'index_f7700477']);
    expect((await run('SHOW RANGE INDEXES YIELD name')).map((r) => r.name)).to.deep.equal(['person_name']);
    const dropLookup = await failure('DROP INDEX index_343aff4e');
    expect(dropLookup?.code).to.equal('Neo.DatabaseError.Schema.IndexDropFailed');
    expect(dropLookup?.message).to.include('LOOKUP');
    // In an explicit transaction too.
    const session = driver.session();
    try {
      const r = await session.executeWrite((tx) => tx.run('DROP INDEX person_name'));
      expect(r.summary.queryType).to.equal('s');
    } finally {
      await session.close();
    }
  });

  it('a FAILURE carries the GQL status Neo4j documents for its error, and its classification', async () => {
    const cases: [string, string, string][] = [
      ['RETURN 1 +', 'Neo.ClientError.Statement.SyntaxError', '42001'],
      ['RETURN 1 / 0', 'Neo.ClientError.Statement.ArithmeticError', '22012'],
      ['CALL nothing.here()', 'Neo.ClientError.Procedure.ProcedureNotFound', '42N08'],
      ['DROP INDEX nope', 'Neo.DatabaseError.Schema.IndexDropFailed', '50N10'],
      ['DROP CONSTRAINT nope', 'Neo.DatabaseError.Schema.ConstraintDropFailed', '50N12'],
      ['RETURN $missing', 'Neo.ClientError.Statement.ParameterMissing', '42N51'],
    ];
    for (const [text, code, gql] of cases) {
      const e = await failure(text);
      expect([text, e?.code, e?.gqlStatus]).to.deep.equal([text, code, gql]);
      expect(e?.classification).to.equal(code.startsWith('Neo.ClientError') ? 'CLIENT_ERROR' : 'DATABASE_ERROR');
    }
    // A server fault Neo4j has no status for: its "unexpected error".
    await run('CREATE INDEX twice FOR (p:P) ON (p.x)');
    const twice = await failure('CREATE INDEX twice FOR (p:Q) ON (p.y)');
    expect([twice?.code, twice?.gqlStatus]).to.deep.equal(['Neo.ClientError.Schema.IndexWithNameAlreadyExists', '22N71']);
  });

  it('LangChain Neo4jGraph.refreshSchema describes dates, points and floats by their types', async () => {
    await run(GRAPH);
    const graph = await Neo4jGraph.initialize({ url: url(), username: 'neo4j', password: 'any' });
    try {
      await graph.refreshSchema();
      const person = graph.getStructuredSchema().nodeProps.Person!;
      const types = Object.fromEntries(person.map((p) => [p.property, p.type]));
      expect(types).to.deep.include({ born: 'DATE', home: 'POINT', seen: 'DATE_TIME', ratio: 'FLOAT', big: 'INTEGER' });
      expect(graph.getSchema()).to.include('born: DATE').and.to.include('home: POINT').and.to.include('weight: FLOAT');
    } finally {
      await graph.close();
    }
  });
});
