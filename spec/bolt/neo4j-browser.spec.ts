import { expect } from 'chai';
import neo4j, { type Driver } from 'neo4j-driver';
import { startTestServer, useTestServer } from '../helpers/http.js';

/**
 * What Neo4j Browser (and cypher-shell) run when they connect and fill the sidebar, as their
 * sources write them, through neo4j-driver on the databases they name: Browser reads the server's
 * version, the user, the client settings, the databases, the labels, types and keys, the counts,
 * and the procedures and functions with their signatures.
 */
const META_TYPES = `
CALL db.labels() YIELD label
RETURN {name:'labels', data:COLLECT(label)[..1000]} AS result
UNION ALL
CALL db.relationshipTypes() YIELD relationshipType
RETURN {name:'relationshipTypes', data:COLLECT(relationshipType)[..1000]} AS result
UNION ALL
CALL db.propertyKeys() YIELD propertyKey
RETURN {name:'propertyKeys', data:COLLECT(propertyKey)[..1000]} AS result
`;
const META_COUNTS = `
MATCH () RETURN { name:'nodes', data:count(*) } AS result
UNION ALL
MATCH ()-[]->() RETURN { name:'relationships', data: count(*)} AS result
`;

describe('bolt: the queries Neo4j Browser runs when it connects', () => {
  const server = useTestServer({ SERVICE_API_KEYS: 'browser-key' });
  let driver: Driver;
  before(async () => {
    driver = neo4j.driver(`bolt://127.0.0.1:${server.service.boltPort}`, neo4j.auth.basic('alice', 'browser-key'), { disableLosslessIntegers: true });
    await driver.executeQuery('CREATE (:Person {name: "Ann"})-[:KNOWS]->(:Person {name: "Bob"})');
  });
  after(() => driver?.close());

  const rows = async (query: string, database?: string) => (await driver.executeQuery(query, {}, database ? { database } : {})).records.map((r) => r.toObject());

  it('reads the version, the user it logged on as and the client settings from the system database', async () => {
    expect(await rows('CALL dbms.components() YIELD name, versions, edition', 'system')).to.deep.equal([{ name: 'Neo4j Kernel', versions: ['5.26.0'], edition: 'community' }]);
    expect(await rows('CALL dbms.showCurrentUser()', 'system')).to.deep.equal([{ username: 'alice', roles: null, flags: [] }]);
    expect(await rows('SHOW CURRENT USER', 'system')).to.deep.equal([{ user: 'alice', roles: null, passwordChangeRequired: false, suspended: null, home: null }]);
    const settings = Object.fromEntries((await rows('CALL dbms.clientConfig()', 'system')).map((r) => [r.name, r.value]));
    // Browser asks for credentials only when the server says it checks them.
    expect(settings['dbms.security.auth_enabled']).to.equal('true');
    expect(settings['browser.post_connect_cmd']).to.equal('');
    expect(settings['browser.retain_connection_credentials']).to.equal('true');
  });

  it('says that credentials are not checked when authentication is off', async () => {
    const s = await startTestServer();
    const open = neo4j.driver(`bolt://127.0.0.1:${s.service.boltPort}`, neo4j.auth.basic('neo4j', 'anything'));
    try {
      const settings = (await open.executeQuery('CALL dbms.clientConfig() YIELD name, value', {}, { database: 'system' })).records.map((r) => [r.get('name'), r.get('value')]);
      expect(settings).to.deep.include(['dbms.security.auth_enabled', 'false']);
    } finally {
      await open.close();
      await s.stop();
      s.remove();
    }
  });

  it('lists the databases with their roles, then the labels, types, keys and counts of the one in use', async () => {
    expect(await rows('SHOW DATABASES YIELD role, name WHERE name = "neo4j"', 'system')).to.deep.equal([{ role: 'primary', name: 'neo4j' }]);
    expect(await rows(META_TYPES)).to.deep.equal([
      { result: { name: 'labels', data: ['Person'] } },
      { result: { name: 'relationshipTypes', data: ['KNOWS'] } },
      { result: { name: 'propertyKeys', data: ['name', 'weight'] } },
    ]);
    expect(await rows(META_COUNTS)).to.deep.equal([{ result: { name: 'nodes', data: 2 } }, { result: { name: 'relationships', data: 1 } }]);
  });

  it('lists procedures and functions with signatures, the default columns staying Neo4j 5 defaults', async () => {
    const procedures = await rows('SHOW PROCEDURES yield name, description, signature', 'system');
    expect(procedures.find((p) => p.name === 'db.labels')).to.deep.equal({ name: 'db.labels', description: '', signature: 'db.labels() :: (label :: ANY)' });
    expect(procedures.find((p) => p.name === 'db.index.vector.queryNodes')!.signature).to.equal('db.index.vector.queryNodes(arg1 :: ANY, arg2 :: ANY, arg3 :: ANY) :: (node :: ANY, score :: ANY)');
    const functions = await rows('SHOW FUNCTIONS yield name, description, signature', 'system');
    expect(functions.find((f) => f.name === 'coalesce')!.signature).to.match(/^coalesce\(arg1 :: ANY(, arg\d = null :: ANY)+, rest = null :: ANY\) :: ANY$/);
    expect(functions.find((f) => f.name === 'count')!.signature).to.equal('count(arg1 :: ANY) :: ANY');
    expect(Object.keys((await rows('SHOW PROCEDURES'))[0]!)).to.deep.equal(['name', 'description', 'mode', 'worldAffecting']);
    expect(Object.keys((await rows('SHOW FUNCTIONS'))[0]!)).to.deep.equal(['name', 'category', 'description']);
    const all = (await rows("SHOW FUNCTIONS YIELD * WHERE name = 'percentileCont'"))[0]!;
    expect(all).to.include({ aggregating: true, isBuiltIn: true, signature: 'percentileCont(arg1 :: ANY, arg2 :: ANY) :: ANY' });
  });

  it('answers a SHOW it does not have with a syntax error naming the ones it has', async () => {
    const err = await rows('SHOW USERS', 'system').then(() => null, (e: Error & { code: string }) => e);
    expect(err?.code).to.equal('Neo.ClientError.Statement.SyntaxError');
    expect(err?.message).to.contain('expected INDEXES, CONSTRAINTS, DATABASES, PROCEDURES, FUNCTIONS or CURRENT USER after SHOW');
  });
});
