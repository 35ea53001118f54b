import { expect } from 'chai';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { Document } from '@langchain/core/documents';
import { GraphDocument, Node, Relationship } from '@langchain/community/graphs/document';
import { Neo4jGraph } from '@langchain/community/graphs/neo4j_graph';
import { Neo4jChatMessageHistory } from '@langchain/community/stores/message/neo4j';
import { Neo4jVectorStore } from '@langchain/community/vectorstores/neo4j_vector';
import neo4j from 'neo4j-driver';
import { call, useTestServer } from '../helpers/http.js';
import { BAG_DIMENSIONS, BagOfWordsEmbeddings, docs } from './bag-of-words.js';

// LangChain turns driver Integers into strings; numbers sent as whole floats come back as
// Integers here (issue 13: typed numbers), so numeric metadata is compared by value.
describe('clients: LangChain Neo4jVectorStore, Neo4jGraph and Neo4jChatMessageHistory (@langchain/community 1.1) over Bolt, changing nothing but the URL', function () {
  this.timeout(60_000);
  const s = useTestServer({}, 'each');
  const connection = () => ({ url: `bolt://127.0.0.1:${s.service.boltPort}`, username: 'neo4j', password: 'any' });

  it('Neo4jVectorStore.fromDocuments makes the default database with the vector index, then similaritySearch, a metadata filter and fromExistingIndex find by meaning', async () => {
    const store = await Neo4jVectorStore.fromDocuments(docs, new BagOfWordsEmbeddings(), connection());
    try {
      const info = await call(s.url, 'GET', '/collections/neo4j');
      expect(info.status).to.equal(200);
      expect(JSON.stringify(info.body)).to.include(`"size":${BAG_DIMENSIONS}`);
      const found = await store.similaritySearch('cats sleep', 2);
      expect(found.map((d) => Number(d.metadata.n))).to.have.members([1, 5]);
      expect(found[0]!.pageContent).to.include('cats');
      expect(found[0]!.metadata).to.not.have.property('embedding');
      const scored = await store.similaritySearchWithScore('compiles code', 2);
      expect(scored.map(([d]) => d.metadata.topic)).to.deep.equal(['code', 'code']);
      expect(scored[0]![1]).to.be.at.least(scored[1]![1]).and.to.be.at.most(1);
      // Neo4j 5.18+ filters by metadata with a generated WHERE and vector.similarity.cosine().
      const filtered = await store.similaritySearch('cats sleep', 3, { filter: { topic: { $eq: 'code' } } });
      expect(filtered.map((d) => d.metadata.topic)).to.deep.equal(['code', 'code']);
    } finally {
      await store.close();
    }
    const again = await Neo4jVectorStore.fromExistingIndex(new BagOfWordsEmbeddings(), { ...connection(), indexName: 'vector' });
    try {
      const found = await again.similaritySearch('dogs fetch ball', 1);
      expect(Number(found[0]!.metadata.n)).to.equal(2);
    } finally {
      await again.close();
    }
  });

  it('Neo4jVectorStore hybrid search: a FULLTEXT keyword index beside the vector index, both queried in a CALL { ... UNION ... }', async () => {
    const config = { ...connection(), searchType: 'hybrid' as const, indexName: 'hybrid_vector', keywordIndexName: 'hybrid_keyword', nodeLabel: 'Passage' };
    const store = await Neo4jVectorStore.fromDocuments(docs, new BagOfWordsEmbeddings(), config);
    try {
      const found = await store.similaritySearchWithScore('typescript javascript', 2);
      expect(found[0]![0].pageContent).to.include('typescript');
      expect(found[0]![1]).to.be.closeTo(1, 1e-9);
    } finally {
      await store.close();
    }
    const again = await Neo4jVectorStore.fromExistingIndex(new BagOfWordsEmbeddings(), config);
    try {
      expect((await again.similaritySearch('dogs bark', 1))[0]!.pageContent).to.include('dogs');
    } finally {
      await again.close();
    }
  });

  it('Neo4jGraph: addGraphDocuments loads entities with apoc.merge.node/relationship and refreshSchema describes them from apoc.meta.data', async () => {
    const graph = await Neo4jGraph.initialize(connection());
    try {
      const alice = new Node({ id: 'Alice', type: 'Person', properties: { born: 1990 } });
      const bob = new Node({ id: 'Bob', type: 'Person' });
      const acme = new Node({ id: 'Acme', type: 'Company' });
      const source = new Document({ pageContent: 'Alice knows Bob. Alice works at Acme.', metadata: { id: 'doc-1' } });
      const doc = new GraphDocument({
        nodes: [alice, bob, acme],
        relationships: [new Relationship({ source: alice, target: bob, type: 'knows' }), new Relationship({ source: alice, target: acme, type: 'works at', properties: { since: 2020 } })],
        source,
      });
      await graph.addGraphDocuments([doc], { baseEntityLabel: true, includeSource: true });
      // Loading the same document twice merges rather than duplicates.
      await graph.addGraphDocuments([doc], { baseEntityLabel: true, includeSource: true });
      const people = await graph.query('MATCH (p:Person) RETURN p.id AS id, p.born AS born ORDER BY id');
      expect(people.map((p) => [p.id, p.born === null ? null : Number(p.born)])).to.deep.equal([['Alice', 1990], ['Bob', null]]);
      const rels = await graph.query('MATCH (a)-[r]->(b:__Entity__) RETURN a.id AS a, type(r) AS type, b.id AS b, r.since AS since ORDER BY type, b');
      expect(rels.map((r) => ({ ...r, since: r.since === null ? null : Number(r.since) }))).to.deep.equal([
        { a: 'Alice', type: 'KNOWS', b: 'Bob', since: null },
        { a: 'doc-1', type: 'MENTIONS', b: 'Acme', since: null },
        { a: 'doc-1', type: 'MENTIONS', b: 'Alice', since: null },
        { a: 'doc-1', type: 'MENTIONS', b: 'Bob', since: null },
        { a: 'Alice', type: 'WORKS_AT', b: 'Acme', since: 2020 },
      ]);
      await graph.refreshSchema();
      const schema = graph.getStructuredSchema();
      expect(schema.nodeProps.Person!.map((p) => p.property)).to.include.members(['id', 'born']);
      expect(schema.relationships).to.deep.include({ start: 'Person', type: 'KNOWS', end: 'Person' });
      expect(schema.relationships).to.deep.include({ start: 'Person', type: 'WORKS_AT', end: 'Company' });
      expect(schema.relProps.WORKS_AT!.map((p) => p.property)).to.include('since');
      const constraints = schema.metadata?.constraint as { labelsOrTypes: string[]; properties: string[] }[];
      expect(constraints.some((c) => c.labelsOrTypes[0] === '__Entity__' && c.properties[0] === 'id')).to.equal(true);
      expect(graph.getSchema()).to.include('Person {').and.to.include('(: Person) - [: WORKS_AT] -> (:Company)');
    } finally {
      await graph.close();
    }
  });

  it('Neo4jChatMessageHistory keeps a conversation in order as a linked list of nodes and clears it', async () => {
    const history = await Neo4jChatMessageHistory.initialize({ ...connection(), sessionId: 'chat-1' });
    try {
      await history.addMessage(new HumanMessage('hello'));
      await history.addMessage(new AIMessage('hi, how can I help?'));
      await history.addMessage(new HumanMessage('tell me about cats'));
      const messages = await history.getMessages();
      expect(messages.map((m) => [m.getType(), m.content])).to.deep.equal([
        ['human', 'hello'],
        ['ai', 'hi, how can I help?'],
        ['human', 'tell me about cats'],
      ]);
      await history.clear();
      expect(await history.getMessages()).to.deep.equal([]);
    } finally {
      await history.close();
    }
  });

  it('procedures and schema commands answer in Neo4j terms: unknown procedures, mixing schema and data, mismatched vector indexes', async () => {
    const driver = neo4j.driver(connection().url, neo4j.auth.basic('neo4j', 'any'));
    const failure = (text: string, params = {}) => driver.executeQuery(text, params).then(() => null, (e: { code: string; message: string }) => e);
    try {
      const unknown = await failure('CALL apoc.nothing.here()');
      expect(unknown?.code).to.equal('Neo.ClientError.Procedure.ProcedureNotFound');
      expect(unknown?.message).to.include('db.index.vector.queryNodes');
      // Nothing made the default database yet: reads see an empty one, and it is made with the first vector index.
      expect((await driver.executeQuery('MATCH (n) RETURN count(n) AS n')).records[0]!.get('n').toNumber()).to.equal(0);
      expect((await call(s.url, 'GET', '/collections/neo4j')).status).to.equal(404);
      await driver.executeQuery('CREATE VECTOR INDEX docs IF NOT EXISTS FOR (d:Doc) ON (d.embedding) OPTIONS {indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: "euclidean"}}');
      await driver.executeQuery('CREATE VECTOR INDEX docs IF NOT EXISTS FOR (d:Doc) ON (d.embedding) OPTIONS {indexConfig: {`vector.dimensions`: 3}}');
      const unknownSetting = await failure('CREATE VECTOR INDEX other FOR (d:Doc) ON (d.embedding) OPTIONS {indexConfig: {`vector.hnsw.m`: 32}}');
      expect(unknownSetting?.code).to.equal('Neo.ClientError.Schema.IndexCreationFailed');
      expect(unknownSetting?.message).to.include('`vector.hnsw.m`');
      const unknownOption = await failure('CREATE CONSTRAINT c FOR (d:Doc) REQUIRE d.id IS UNIQUE OPTIONS {fast: true}');
      expect(unknownOption?.message).to.include('`fast`');
      const again = await failure('CREATE VECTOR INDEX other FOR (d:Doc) ON (d.embedding)');
      expect(again?.code).to.equal('Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists');
      const wrongSize = await failure("CALL db.index.vector.createNodeIndex('big', 'Other', 'embedding', 8, 'euclidean')");
      expect(wrongSize?.code).to.equal('Neo.ClientError.Schema.IndexCreationFailed');
      expect(wrongSize?.message).to.include('3 dimensions');
      const mixed = await failure('CREATE INDEX names FOR (n:Doc) ON (n.name) WITH 1 AS x CREATE (:Doc)');
      expect(mixed).to.not.equal(null);
      await driver.executeQuery('UNWIND range(1, 5) AS i CREATE (d:Doc {i: i}) WITH d, i CALL db.create.setNodeVectorProperty(d, "embedding", [i, 0, 0])');
      const near = await driver.executeQuery('CALL db.index.vector.queryNodes("docs", 2, [4.2, 0, 0]) YIELD node, score RETURN node.i AS i, score');
      expect(near.records.map((r) => r.get('i').toNumber())).to.deep.equal([4, 5]);
      expect(near.records[0]!.get('score')).to.be.closeTo(1 / (1 + 0.2 * 0.2), 1e-6);
      const indexes = await driver.executeQuery('SHOW VECTOR INDEXES YIELD name, options RETURN name, options.indexConfig AS config');
      expect(indexes.records.map((r) => [r.get('name'), r.get('config')['vector.similarity_function']])).to.deep.equal([['docs', 'EUCLIDEAN']]);
      const dropped = await driver.executeQuery('DROP INDEX docs');
      expect(dropped.summary.counters.updates().indexesRemoved).to.equal(1);
      // Only Neo4j's two built-in LOOKUP indexes are left.
      expect((await driver.executeQuery('SHOW INDEXES')).records.map((r) => r.get('type'))).to.deep.equal(['LOOKUP', 'LOOKUP']);
      expect((await failure('DROP INDEX docs'))?.code).to.equal('Neo.DatabaseError.Schema.IndexDropFailed');
      await driver.executeQuery('DROP INDEX docs IF EXISTS');
    } finally {
      await driver.close();
    }
  });

  it('schema commands over the REST Cypher route are logged and survive a restart', async () => {
    await call(s.url, 'PUT', '/collections/kg', { vectors: { size: 2, distance: 'Cosine' } });
    const created = await call(s.url, 'POST', '/collections/kg/graph/query', { query: 'CREATE CONSTRAINT person_id FOR (p:Person) REQUIRE p.id IS UNIQUE' });
    expect(created.status).to.equal(200);
    await s.restart();
    const shown = await call(s.url, 'POST', '/collections/kg/graph/query', { query: 'SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties' });
    expect(shown.status).to.equal(200);
    expect(JSON.stringify(shown.body)).to.include('person_id').and.to.include('UNIQUENESS').and.to.include('Person');
  });
});
