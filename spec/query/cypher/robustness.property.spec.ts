import { expect } from 'chai';
import fc from 'fast-check';
import { Collection } from '../../../storage/collection.js';
import { DbError } from '../../../storage/errors.js';
import { compileQuery, executeQuery } from '../../../query/cypher/run-query.js';

/** Pieces of Cypher that recombine into near-valid queries, the kind a person mistypes. */
const PIECES = [
  'MATCH', 'OPTIONAL MATCH', 'WHERE', 'RETURN', 'WITH', 'UNWIND', 'AS', 'CREATE', 'SET', 'REMOVE', 'DELETE', 'DETACH DELETE',
  'ORDER BY', 'SKIP', 'LIMIT', 'DISTINCT', 'AND', 'OR', 'NOT', 'XOR', 'IN', 'IS NULL', 'STARTS WITH', 'CONTAINS',
  '(n)', '(m:L)', '(a {x: 1})', '-[r:T]->', '<-[:T*1..3]-', '--', '-[*]-', 'n', 'm', 'r', 'x', 'p =', 'n.x', 'n.embedding', '<->',
  '$q', '$n', '1', '-1', '2.5', "'s'", 'null', 'true', '[1, 2]', '{k: 3}', 'count(*)', 'sum(n.x)', 'collect(n)', 'id(n)',
  'labels(n)', 'size(x)', 'range(1, 3)', 'x[0]', '(', ')', '[', ']', '{', '}', ',', ':', '.', '=', '<', '>=', '<>', '+', '*', '/', '%',
];

describe('query/cypher robustness (property)', () => {
  const c = new Collection('g', { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 32, ml: 0.5 }, 1);
  c.upsert(Array.from({ length: 20 }, (_, id) => ({ id, vector: Float32Array.of(id, 1), payload: { x: id, s: `s${id}` }, labels: id % 2 ? ['L'] : [] })));
  for (let i = 0; i < 19; i++) c.graph.add(i, i + 1, 'T', 1);
  const params = { q: [1, 1], n: 2 };

  /** Runs a query; anything thrown must be a 4xx DbError (a person's mistake), never an internal error. */
  const survive = (text: string) => {
    try {
      executeQuery(c, compileQuery(text), params, { timeoutMs: 2000 });
    } catch (err) {
      if (!(err instanceof DbError) || err.code < 400 || err.code >= 500) throw new Error(`${JSON.stringify(text)} threw ${(err as Error).stack}`);
    }
  };

  it('answers any string with rows or a 4xx error, never an internal error', () => {
    fc.assert(fc.property(fc.string({ maxLength: 80 }), survive), { numRuns: 2000 });
  });

  it('answers recombined Cypher fragments with rows or a 4xx error, and never changes the collection', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 12 }), (pieces) => survive(pieces.join(' '))),
      { numRuns: 5000 },
    );
    expect(c.store.liveCount, 'executeQuery writes only to its overlay').to.equal(20);
    expect(c.graph.edgeCount).to.equal(19);
  });
});
