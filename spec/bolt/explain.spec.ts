import { expect } from 'chai';
import neo4j, { type Driver } from 'neo4j-driver';
import { useTestServer } from '../helpers/http.js';

describe('bolt: EXPLAIN and PROFILE through neo4j-driver', () => {
  // A Cypher replica is running: EXPLAIN and PROFILE must still answer here, where the plan is made.
  const server = useTestServer({ SERVICE_CYPHER_WORKERS: '1' });
  let driver: Driver;
  before(() => {
    driver = neo4j.driver(`bolt://127.0.0.1:${server.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'));
  });
  after(() => driver.close());

  it("EXPLAIN answers no rows, the query's keys, a plan and its type; EXPLAIN CREATE writes nothing", async () => {
    await driver.executeQuery("CREATE (:Person {name: 'Ann'})-[:KNOWS]->(:Person {name: 'Bob'})");
    const read = await driver.executeQuery('EXPLAIN MATCH (p:Person)-[:KNOWS]->(f) RETURN p.name AS name, f.name AS friend');
    expect(read.records).to.deep.equal([]);
    expect(read.keys).to.deep.equal(['name', 'friend']);
    expect(read.summary.queryType).to.equal('r');
    expect(read.summary.hasPlan()).to.equal(true);
    expect(read.summary.hasProfile()).to.equal(false);
    const plan = read.summary.plan as { operatorType: string; identifiers: string[]; arguments: Record<string, unknown>; children: { operatorType: string }[] };
    expect(plan.operatorType).to.equal('ProduceResults');
    expect(plan.identifiers).to.deep.equal(['name', 'friend']);
    expect(plan.arguments.Details).to.equal('name, friend');
    expect(plan.children[0]!.operatorType).to.equal('Projection');

    const session = driver.session();
    try {
      const explained = await session.run("EXPLAIN CREATE (n:Ghost {name: 'boo'}) RETURN n");
      expect(explained.records).to.deep.equal([]);
      expect(explained.summary.queryType).to.equal('rw');
      expect(explained.summary.counters.containsUpdates()).to.equal(false);
      expect((explained.summary.plan as { children: { children: { operatorType: string }[] }[] }).children[0]!.children[0]!.operatorType).to.equal('Create');
      expect((await session.run('EXPLAIN MATCH (n) DETACH DELETE n')).summary.queryType).to.equal('w');
      expect((await session.run('EXPLAIN CREATE INDEX person_name FOR (p:Person) ON (p.name)')).summary.queryType).to.equal('s');
    } finally {
      await session.close();
    }
    // Nothing was written, and a read session may explain a write.
    const reader = driver.session({ defaultAccessMode: neo4j.session.READ });
    try {
      expect((await reader.run("EXPLAIN CREATE (:Ghost)")).summary.queryType).to.equal('w');
    } finally {
      await reader.close();
    }
    const { records } = await driver.executeQuery('MATCH (n) RETURN count(n) AS n, count{ (:Ghost) } AS ghosts');
    expect(records[0]!.get('n').toNumber()).to.equal(2);
    expect(records[0]!.get('ghosts').toNumber()).to.equal(0);
    const indexes = await driver.executeQuery('SHOW INDEXES YIELD name WHERE name = "person_name" RETURN name');
    expect(indexes.records).to.deep.equal([]);
  });

  it('PROFILE runs the query and carries the profile with rows and dbHits', async () => {
    const r = await driver.executeQuery('PROFILE MATCH (p:Person) RETURN p.name AS name ORDER BY name');
    expect(r.records.map((x) => x.get('name'))).to.deep.equal(['Ann', 'Bob']);
    expect(r.summary.hasProfile()).to.equal(true);
    const profile = r.summary.profile as { operatorType: string; rows: number; dbHits: number; children: { operatorType: string; rows: number }[] };
    expect(profile.operatorType).to.equal('ProduceResults');
    expect(profile.rows).to.equal(2);
    expect(profile.children[0]!.operatorType).to.equal('Sort');
    expect(profile.children[0]!.rows).to.equal(2);

    const written = await driver.executeQuery("PROFILE CREATE (n:Made) RETURN n");
    expect(written.summary.counters.updates().nodesCreated).to.equal(1);
    expect((written.summary.profile as { rows: number }).rows).to.equal(1);
  });
});
