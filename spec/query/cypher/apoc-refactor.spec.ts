import { expect } from 'chai';
import neo4j from 'neo4j-driver';
import { cypherFailure, cypherGraph } from '../../helpers/cypher-graph.js';
import { useTestServer } from '../../helpers/http.js';

const sorted = (xs: unknown[]) => [...xs].sort();

describe('query/cypher: apoc.refactor and apoc.convert.toList', () => {
  describe('apoc.refactor.rename.label and rename.type', () => {
    it('renames a label on every node carrying it, or on the nodes given, with APOC result columns', () => {
      const { rows, run } = cypherGraph();
      run("CREATE (:Old {n: 1}), (:Old {n: 2}), (:Old:Keep {n: 3}), (:Other {n: 4})");
      const r = run("CALL apoc.refactor.rename.label('Old', 'New')");
      expect(r.columns).to.deep.equal(['batches', 'total', 'timeTaken', 'committedOperations', 'failedOperations', 'failedBatches', 'retries', 'errorMessages', 'batch', 'operations', 'constraints', 'indexes']);
      expect(r.rows[0]!.slice(0, 7)).to.deep.equal([1, 3, 0, 3, 0, 0, 0]);
      expect(r.counts).to.deep.include({ labelsAdded: 3, labelsRemoved: 3 });
      expect(rows('MATCH (n:New) RETURN n.n ORDER BY n.n')).to.deep.equal([[1], [2], [3]]);
      expect(rows('MATCH (n:Old) RETURN count(n)')).to.deep.equal([[0]]);
      run("MATCH (n:New) WHERE n.n = 1 CALL apoc.refactor.rename.label('New', 'Chosen', [n]) YIELD total RETURN total");
      expect(rows('MATCH (n:Chosen) RETURN n.n')).to.deep.equal([[1]]);
    });

    it('renames a relationship type by making each relationship again with its properties and weight', () => {
      const { rows, run } = cypherGraph();
      run("CREATE (a:P {n: 'a'})-[:OLD {since: 2020, weight: 2.5}]->(b:P {n: 'b'}), (b)-[:OLD]->(a), (a)-[:OTHER]->(b)");
      const [[total]] = rows("CALL apoc.refactor.rename.type('OLD', 'NEW') YIELD total RETURN total") as [[number]];
      expect(total).to.equal(2);
      expect(rows("MATCH (x)-[r:NEW]->(y) RETURN x.n, y.n, r.since, r.weight ORDER BY x.n")).to.deep.equal([
        ['a', 'b', 2020, 2.5],
        ['b', 'a', null, 1],
      ]);
      expect(rows('MATCH ()-[r:OLD]->() RETURN count(r)')).to.deep.equal([[0]]);
      expect(rows('MATCH ()-[r:OTHER]->() RETURN count(r)')).to.deep.equal([[1]]);
      expect(cypherFailure(() => run("CALL apoc.refactor.rename.type('NEW', 'X', [], {bachSize: 3})")).message).to.include("unknown configuration key 'bachSize'");
    });
  });

  describe('apoc.refactor.rename.nodeProperty, rename.typeProperty and invert', () => {
    it('move a property to a new key where it is set, and turn a relationship around', () => {
      const { rows } = cypherGraph();
      rows("CREATE (:P {nm: 'a'})-[:R {w8: 3}]->(:P {nm: 'b'}), (:P {other: 1})");
      expect(rows("CALL apoc.refactor.rename.nodeProperty('nm', 'name') YIELD total RETURN total")).to.deep.equal([[2]]);
      expect(rows("CALL apoc.refactor.rename.typeProperty('w8', 'strength') YIELD total RETURN total")).to.deep.equal([[1]]);
      expect(rows('MATCH (a)-[r:R]->(b) RETURN a.name, a.nm, r.strength, r.w8, b.name')).to.deep.equal([['a', null, 3, null, 'b']]);
      expect(rows("MATCH ()-[r:R]->() CALL apoc.refactor.invert(r) YIELD output RETURN startNode(output).name, endNode(output).name, output.strength")).to.deep.equal([['b', 'a', 3]]);
      expect(rows('MATCH ()-[r:R]->() RETURN count(r)')).to.deep.equal([[1]]);
    });
  });

  describe('apoc.refactor.setType', () => {
    it('answers the old id, the new relationship and no error; the old one is gone', () => {
      const { rows } = cypherGraph();
      rows("CREATE (:P {n: 'a'})-[:KNOWS {x: 1}]->(:P {n: 'b'})");
      const [[input, oldId, type, x, error]] = rows("MATCH ()-[r:KNOWS]->() WITH r, id(r) AS oldId CALL apoc.refactor.setType(r, 'LIKES') YIELD input, output, error RETURN input, oldId, type(output), output.x, error") as unknown[][];
      expect([input, type, x, error]).to.deep.equal([oldId, 'LIKES', 1, null]);
      expect(rows('MATCH (a)-[r]->(b) RETURN a.n, type(r), b.n')).to.deep.equal([['a', 'LIKES', 'b']]);
    });
  });

  describe('apoc.refactor.mergeNodes', () => {
    const people = () => {
      const g = cypherGraph();
      g.run(`CREATE (a:Person {name: 'Ann', age: 30, tags: ['x']}), (b:Person:Admin {name: 'Anne', city: 'Oslo', tags: ['y', 'x']}),
        (c:City {name: 'Oslo'}), (d:Person {name: 'Dan'}),
        (a)-[:LIVES_IN {since: 1}]->(c), (b)-[:LIVES_IN {since: 2}]->(c), (d)-[:KNOWS]->(b), (a)-[:KNOWS]->(b)`);
      return g;
    };
    const merge = (g: ReturnType<typeof cypherGraph>, config: string) =>
      g.rows(`MATCH (a:Person {name: 'Ann'}), (b:Person {name: 'Anne'}) CALL apoc.refactor.mergeNodes([a, b], ${config}) YIELD node RETURN node.name, node.age, node.city, node.tags, labels(node)`)[0];

    it('overwrites properties by default, moves relationships and labels onto the first node and deletes the others', () => {
      const g = people();
      const [name, age, city, tags, labels] = merge(g, '{}')!;
      expect([name, age, city, tags]).to.deep.equal(['Anne', 30, 'Oslo', ['y', 'x']]);
      expect(sorted(labels as string[])).to.deep.equal(['Admin', 'Person']);
      expect(g.rows("MATCH (p:Person) RETURN count(p)")).to.deep.equal([[2]]);
      expect(g.rows("MATCH (:Person {name: 'Anne'})-[r:LIVES_IN]->(:City) RETURN r.since ORDER BY r.since")).to.deep.equal([[1], [2]]);
      expect(g.rows("MATCH (:Person {name: 'Dan'})-[:KNOWS]->(p) RETURN p.name")).to.deep.equal([['Anne']]);
      // The KNOWS between the two became a loop on the merged node (produceSelfRel defaults to true).
      expect(g.rows("MATCH (p)-[:KNOWS]->(p) RETURN p.name")).to.deep.equal([['Anne']]);
    });

    it('keeps the first values with "discard", and combines them into lists with "combine"', () => {
      const discard = merge(people(), "{properties: 'discard'}")!;
      expect(discard.slice(0, 4)).to.deep.equal(['Ann', 30, 'Oslo', ['x']]);
      const combine = merge(people(), "{properties: 'combine'}")!;
      expect(combine.slice(0, 4)).to.deep.equal([['Ann', 'Anne'], 30, 'Oslo', ['x', 'y']]);
      const byKey = merge(people(), "{properties: {name: 'discard', tags: 'combine'}}")!;
      expect(byKey.slice(0, 4)).to.deep.equal(['Ann', 30, 'Oslo', ['x', 'y']]);
    });

    it('merges parallel relationships with mergeRels, combining their properties, and drops loops without produceSelfRel', () => {
      const g = people();
      merge(g, '{mergeRels: true, produceSelfRel: false}');
      expect(g.rows("MATCH (:Person {name: 'Anne'})-[r:LIVES_IN]->(:City) RETURN r.since")).to.deep.equal([[[1, 2]]]);
      expect(g.rows('MATCH (p)-[:KNOWS]->(p) RETURN count(*)')).to.deep.equal([[0]]);
    });

    it('refuses an unknown configuration key or properties mode', () => {
      const g = people();
      expect(cypherFailure(() => merge(g, "{properties: 'merge'}")).message).to.match(/Failed to invoke procedure `apoc.refactor.mergeNodes`: .*properties must be one of overwrite, override, discard, combine/);
      expect(cypherFailure(() => merge(g, '{mergeRelationships: true}')).message).to.include("unknown configuration key 'mergeRelationships'");
    });
  });

  describe('apoc.refactor.cloneNodes', () => {
    it('clones nodes with their labels and properties (some skipped), and their relationships on request', () => {
      const { rows } = cypherGraph();
      rows("CREATE (a:Doc:Draft {title: 't', secret: 's'})-[:CITES {w: 1}]->(b:Doc {title: 'u'})");
      const [[error, labels, title, secret]] = rows("MATCH (a:Draft) CALL apoc.refactor.cloneNodes([a], true, ['secret']) YIELD output, error RETURN error, labels(output), output.title, output.secret") as unknown[][];
      expect([error, sorted(labels as string[]), title, secret]).to.deep.equal([null, ['Doc', 'Draft'], 't', null]);
      expect(rows("MATCH (a:Draft)-[r:CITES]->(b {title: 'u'}) RETURN a.secret, r.w ORDER BY a.secret")).to.deep.equal([
        ['s', 1],
        [null, 1],
      ]);
    });
  });

  describe('apoc.convert.toList and toSet', () => {
    it('keep a list, make one of any other value, and list a path as its nodes and relationships', () => {
      const { rows } = cypherGraph();
      expect(rows('RETURN apoc.convert.toList([1, 2]), apoc.convert.toList("a"), apoc.convert.toList(null), apoc.convert.toSet([1, 2, 1, "1"])')).to.deep.equal([[[1, 2], ['a'], null, [1, 2, '1']]]);
      rows("CREATE (:A {n: 1})-[:R]->(:B {n: 2})");
      expect(rows('MATCH p = (:A)-[:R]->(:B) WITH apoc.convert.toList(p) AS l RETURN size(l), l[0].n, type(l[1]), l[2].n')).to.deep.equal([[3, 1, 'R', 2]]);
    });
  });

  describe('through the server', () => {
    const server = useTestServer({}, 'each');

    it('logs the refactoring as a Cypher write: it survives a restart (neo4j-driver)', async () => {
      const url = () => `bolt://127.0.0.1:${server.service.boltPort}`;
      let driver = neo4j.driver(url(), neo4j.auth.basic('neo4j', 'any'));
      try {
        await driver.executeQuery("CREATE (:Old {n: 1})-[:T]->(:Old {n: 2}), (:Dup {k: 'a', x: 1}), (:Dup {k: 'a', y: 2})");
        await driver.executeQuery("CALL apoc.refactor.rename.label('Old', 'New') YIELD total RETURN total");
        await driver.executeQuery("MATCH ()-[r:T]->() CALL apoc.refactor.setType(r, 'U') YIELD output RETURN output");
        await driver.executeQuery("MATCH (d:Dup) WITH collect(d) AS ds CALL apoc.refactor.mergeNodes(ds) YIELD node RETURN node");
      } finally {
        await driver.close();
      }
      await server.restart();
      driver = neo4j.driver(url(), neo4j.auth.basic('neo4j', 'any'));
      try {
        const r = await driver.executeQuery('MATCH (a:New)-[r]->(b:New) WITH a, r, b MATCH (d:Dup) RETURN type(r) AS t, count(d) AS dups, d.x AS x, d.y AS y');
        expect(r.records.map((x) => [x.get('t'), x.get('dups').toNumber(), x.get('x').toNumber(), x.get('y').toNumber()])).to.deep.equal([['U', 1, 1, 2]]);
      } finally {
        await driver.close();
      }
    });
  });
});
