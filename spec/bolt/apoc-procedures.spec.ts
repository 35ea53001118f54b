import { expect } from 'chai';
import neo4j, { type Driver, type Node, type Path, type Relationship } from 'neo4j-driver';
import { useTestServer } from '../helpers/http.js';

/** apoc.path, apoc.periodic and apoc.refactor as neo4j-driver sees them: paths, node and relationship lists, counters. */
describe('bolt: APOC path, periodic and refactor procedures with neo4j-driver', () => {
  const server = useTestServer();
  let driver: Driver;
  before(async () => {
    driver = neo4j.driver(`bolt://127.0.0.1:${server.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'));
    await driver.executeQuery("CREATE (:Stop {name: 'a'})-[:NEXT {km: 1}]->(:Stop {name: 'b'})-[:NEXT {km: 2}]->(:Stop {name: 'c'})");
  });
  after(() => driver.close());

  it('answers apoc.path.expandConfig paths as Path values with their segments', async () => {
    const r = await driver.executeQuery("MATCH (a:Stop {name: 'a'}) CALL apoc.path.expandConfig(a, {relationshipFilter: 'NEXT>', minLevel: 2}) YIELD path RETURN path");
    const path = r.records[0]!.get('path') as Path;
    expect(path.start.properties.name).to.equal('a');
    expect(path.end.properties.name).to.equal('c');
    expect(path.segments.map((s) => s.relationship.properties.km.toNumber())).to.deep.equal([1, 2]);
  });

  it('answers apoc.path.subgraphAll as lists of nodes and relationships', async () => {
    const r = await driver.executeQuery("MATCH (b:Stop {name: 'b'}) CALL apoc.path.subgraphAll(b, {relationshipFilter: 'NEXT'}) YIELD nodes, relationships RETURN nodes, relationships");
    const nodes = r.records[0]!.get('nodes') as Node[];
    const rels = r.records[0]!.get('relationships') as Relationship[];
    expect(nodes.map((n) => n.properties.name).sort()).to.deep.equal(['a', 'b', 'c']);
    expect(rels.map((x) => x.type)).to.deep.equal(['NEXT', 'NEXT']);
  });

  it('counts a refactoring in the summary, and an apoc.periodic.iterate batch apart from the query that called it', async () => {
    const refactor = await driver.executeQuery("MATCH ()-[r:NEXT {km: 2}]->() CALL apoc.refactor.setType(r, 'LAST') YIELD output RETURN type(output) AS t");
    expect(refactor.records[0]!.get('t')).to.equal('LAST');
    expect(refactor.summary.counters.updates()).to.deep.include({ relationshipsCreated: 1, relationshipsDeleted: 1 });
    const batches = await driver.executeQuery("CALL apoc.periodic.iterate('MATCH (s:Stop) RETURN s', 'SET s.seen = true', {batchSize: 1}) YIELD batches, updateStatistics RETURN batches, updateStatistics");
    expect(batches.records[0]!.get('batches').toNumber()).to.equal(3);
    expect(batches.records[0]!.get('updateStatistics').propertiesSet.toNumber()).to.equal(3);
    // Neo4j counts the batches' writes in their own transactions, not in the calling query's summary.
    expect(batches.summary.counters.updates().propertiesSet).to.equal(0);
  });
});
