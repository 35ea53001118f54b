import { expect } from 'chai';
import { Document } from '@langchain/core/documents';
import { GraphDocument, Neo4jGraph, Neo4jVectorStore, Node, Relationship } from '@langchain/neo4j';
import neo4j from 'neo4j-driver';
import { useTestServer } from '../helpers/http.js';
import { BagOfWordsEmbeddings, docs } from './bag-of-words.js';

/**
 * LangChain's own Neo4j package (@langchain/neo4j, which @langchain/community's Neo4j classes
 * moved to): the vector store first (it makes the default database with its index), then a
 * knowledge graph in the same database, then the schema it gives an LLM, plain and enhanced
 * (`enhancedSchema` reads apoc.meta.graphSample, apoc.any.property and
 * apoc.schema.properties.distinct, and samples values with aggregations).
 */
describe('clients: @langchain/neo4j 0.1 (Neo4jVectorStore, Neo4jGraph with enhancedSchema) over Bolt', function () {
  this.timeout(60_000);
  const s = useTestServer();
  const connection = () => ({ url: `bolt://127.0.0.1:${s.service.boltPort}`, username: 'neo4j', password: 'any' });

  it('the vector store searches with a metadata filter, then a knowledge graph shares its database', async () => {
    const store = await Neo4jVectorStore.fromDocuments(docs, new BagOfWordsEmbeddings(), connection());
    try {
      const filtered = await store.similaritySearch('cats sleep', 3, { filter: { topic: { $eq: 'code' } } });
      expect(filtered.map((d) => d.metadata.topic)).to.deep.equal(['code', 'code']);
    } finally {
      await store.close();
    }
    const graph = await Neo4jGraph.initialize(connection());
    try {
      await graph.query('UNWIND [["Ann", 30], ["Bob", 41], ["Cy", 35]] AS p CREATE (:Person {name: p[0], age: p[1]})');
      await graph.query('MATCH (a:Person {name: "Ann"}), (b:Person {name: "Bob"}) CREATE (a)-[:KNOWS {since: 2019}]->(b)');
      const source = new Document({ pageContent: 'Ann works at Acme', metadata: { source: 'note' } });
      const ann = new Node({ id: 'Ann', type: 'Person' });
      const acme = new Node({ id: 'Acme', type: 'Company', properties: { founded: 1999 } });
      await graph.addGraphDocuments([new GraphDocument({ nodes: [ann, acme], relationships: [new Relationship({ source: ann, target: acme, type: 'WORKS_AT' })], source })], { baseEntityLabel: true, includeSource: true });
      const entities = await graph.query('MATCH (n:__Entity__) RETURN n.id AS id, labels(n) AS labels ORDER BY id');
      expect(entities).to.deep.equal([
        { id: 'Acme', labels: ['__Entity__', 'Company'] },
        { id: 'Ann', labels: ['__Entity__', 'Person'] },
      ]);
      await graph.refreshSchema();
      const schema = graph.getSchema();
      expect(schema).to.include('Person {age: INTEGER, id: STRING, name: STRING}');
      // LangChain writes the patterns with spaces: (: Person) - [: KNOWS] -> (:Person).
      expect(schema).to.match(/\(: ?Person\) ?- ?\[: ?KNOWS\] ?-> ?\(:Person\)/).and.to.match(/\(: ?Person\) ?- ?\[: ?WORKS_AT\] ?-> ?\(:Company\)/);
    } finally {
      await graph.close();
    }
  });

  it("the enhanced schema names each property's values or range, read from the graph", async () => {
    const graph = await Neo4jGraph.initialize({ ...connection(), enhancedSchema: true });
    try {
      const schema = graph.getSchema();
      expect(schema).to.match(/`age`: INTEGER Min: 30, Max: 41/);
      expect(schema).to.match(/`name`: STRING Available options: \[?'?Ann'?, '?Bob'?, '?Cy'?\]?/);
      expect(schema).to.match(/`since`: INTEGER Min: 2019, Max: 2019/);
      const person = graph.getStructuredSchema().nodeProps.Person!.find((p) => p.property === 'age') as { min?: string; max?: string; distinct_count?: unknown };
      expect(person).to.include({ min: '30', max: '41' });
    } finally {
      await graph.close();
    }
  });

  it('apoc.any.property(ies) read nodes, relationships, virtual ones and maps; apoc.schema.properties.distinct lists a property\'s values', async () => {
    const driver = neo4j.driver(connection().url, neo4j.auth.basic('neo4j', 'any'), { disableLosslessIntegers: true });
    try {
      const rows = async (q: string) => (await driver.executeQuery(q)).records.map((r) => r.toObject());
      expect(await rows("MATCH (n:Person {name: 'Bob'}) RETURN apoc.any.property(n, 'age') AS age, apoc.any.properties(n, ['name', 'nope']) AS some")).to.deep.equal([{ age: 41, some: { name: 'Bob' } }]);
      expect(await rows("MATCH ()-[r:KNOWS]->() RETURN apoc.any.property(r, 'since') AS since")).to.deep.equal([{ since: 2019 }]);
      expect(await rows("RETURN apoc.any.property({a: 1}, 'a') AS a, apoc.any.property(null, 'a') AS none")).to.deep.equal([{ a: 1, none: null }]);
      const sample = await rows("CALL apoc.meta.graphSample() YIELD nodes, relationships RETURN [n IN nodes | [apoc.any.property(n, 'name'), apoc.any.property(n, 'count')]] AS labels, [r IN relationships | apoc.any.property(r, 'type')] AS types");
      expect(sample[0]!.labels).to.deep.include.members([['Person', 4], ['Company', 1]]);
      expect(sample[0]!.types).to.include.members(['KNOWS', 'WORKS_AT']);
      expect(await rows("CALL apoc.schema.properties.distinct('Person', 'age') YIELD value RETURN value")).to.deep.equal([{ value: [30, 41, 35] }]);
      const err = await rows("RETURN apoc.any.property(1, 'a')").then(() => null, (e: Error) => e);
      expect(err?.message).to.contain('apoc.any.property').and.to.contain('expected a node, a relationship or a map');
    } finally {
      await driver.close();
    }
  });
});
