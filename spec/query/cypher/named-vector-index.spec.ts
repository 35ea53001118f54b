import { expect } from 'chai';
import { Collection } from '../../../storage/collection.js';
import { applyEvent } from '../../../storage/engine/apply-event.js';
import type { CollectionConfig } from '../../../storage/events/types.js';
import { CypherError } from '../../../query/cypher/errors.js';
import { compileQuery, executeQuery } from '../../../query/cypher/run-query.js';

const hnsw = { m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) };
/** The unnamed vector is 2-d Euclid; `title` a named 3-d Cosine vector. */
const config: CollectionConfig = { size: 2, distance: 'Euclid', ...hnsw, named: { title: { size: 3, distance: 'Cosine', ...hnsw, onDisk: false } } };

function graph() {
  const collections = new Map<string, Collection>();
  applyEvent(collections, 1, { type: 'create_collection', name: 'g', config });
  const c = collections.get('g')!;
  let opId = 1;
  const run = (text: string) => {
    const r = executeQuery(c, compileQuery(text), {});
    if (r.changes.length > 0) {
      const applied = applyEvent(collections, ++opId, { type: 'graph_write', collection: 'g', changes: r.changes });
      if (applied.error) throw applied.error;
    }
    if (r.schema) applyEvent(collections, ++opId, { type: 'collection_settings', collection: 'g', settings: r.schema });
    return r.rows;
  };
  return { c, run };
}

describe('query/cypher: a vector index on a named vector', () => {
  it('searches the named dense vector its property names, and `embedding` stays the unnamed one', () => {
    const g = graph();
    g.c.upsert([
      { id: 1, vector: Float32Array.of(0, 0), named: { title: Float32Array.of(1, 0, 0) }, payload: {}, labels: ['Doc'] },
      { id: 2, vector: Float32Array.of(5, 5), named: { title: Float32Array.of(0, 1, 0) }, payload: {}, labels: ['Doc'] },
      { id: 3, vector: Float32Array.of(1, 1), payload: {}, labels: ['Doc'] },
    ]);
    g.run("CREATE VECTOR INDEX titles FOR (n:Doc) ON n.title OPTIONS {indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: 'cosine'}}");
    g.run("CREATE VECTOR INDEX bodies FOR (n:Doc) ON n.embedding OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean'}}");
    const titles = g.run("CALL db.index.vector.queryNodes('titles', 5, [0.1, 1, 0]) YIELD node, score RETURN id(node), score");
    expect(titles.map((r) => r[0]), 'node 3 has no title vector').to.deep.equal([2, 1]);
    const bodies = g.run("CALL db.index.vector.queryNodes('bodies', 1, [4, 4]) YIELD node RETURN id(node)");
    expect(bodies).to.deep.equal([[2]]);
  });

  it('refuses an index whose dimensions or similarity do not fit the named vector, naming it', () => {
    const g = graph();
    const refusal = (text: string) => {
      try {
        g.run(text);
      } catch (err) {
        expect(err).to.be.instanceOf(CypherError);
        return (err as Error).message;
      }
      return expect.fail('accepted');
    };
    expect(refusal("CREATE VECTOR INDEX t FOR (n:Doc) ON n.title OPTIONS {indexConfig: {`vector.dimensions`: 4, `vector.similarity_function`: 'cosine'}}")).to.include('vector "title" of database "g" has 3 dimensions');
    expect(refusal("CREATE VECTOR INDEX t FOR (n:Doc) ON n.title OPTIONS {indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: 'euclidean'}}")).to.include('vector "title" compares by Cosine distance');
    expect(refusal("CREATE VECTOR INDEX t FOR (n:Doc) ON n.colour OPTIONS {indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: 'cosine'}}")).to.include('or on the name of one of the collection\'s named dense vectors, got `colour`');
  });
});
