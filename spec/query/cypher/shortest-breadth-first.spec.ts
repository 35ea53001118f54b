import { expect } from 'chai';
import fc from 'fast-check';
import { cypherGraph } from '../../helpers/cypher-graph.js';

/**
 * SHORTEST 1 and ALL SHORTEST over one quantified relationship are found breadth-first; with a
 * predicate of the pattern's own (here `WHERE true`) the same query searches trail by trail,
 * shortest first (selector-by-length.spec.ts checks that search against every trail). Both must
 * give the same fits: the same path lengths for each pair of end nodes (SHORTEST 1 picks any one
 * of equally short paths), and for ALL SHORTEST the same paths.
 */
function randomGraph(n: number, edges: [number, number][]) {
  const g = cypherGraph();
  g.run('UNWIND range(0, $n - 1) AS i CREATE (:N {i: i})', { n });
  g.run('UNWIND $edges AS e MATCH (a:N {i: e[0]}), (b:N {i: e[1]}) CREATE (a)-[:T]->(b)', { edges });
  return g;
}

const ends = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();

describe('query/cypher SHORTEST 1 and ALL SHORTEST found breadth-first, as the trail enumeration finds them', () => {
  const graphs = fc.integer({ min: 1, max: 7 }).chain((n) =>
    fc.record({ n: fc.constant(n), edges: fc.array(fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 0, max: n - 1 })), { maxLength: 7 }) }),
  );
  const arrows = ['-[:T]->', '<-[:T]-', '-[:T]-'];

  it('gives the enumeration\'s fits on random graphs with cycles, self-loops and parallel edges, every direction, bounds and bound ends', () => {
    fc.assert(
      fc.property(graphs, fc.constantFrom(...arrows), fc.constantFrom('+', '{1,3}', '*', '{0,2}', '{1,}'), fc.boolean(), ({ n, edges }, arrow, quantifier, boundEnd) => {
        const g = randomGraph(n, edges);
        const rel = `${arrow}${quantifier}`;
        const end = boundEnd ? '(b:N {i: 0})' : '(b:N)';
        for (const selector of ['SHORTEST 1', 'ALL SHORTEST']) {
          const fast = g.rows(`MATCH p = ${selector} (a:N)${rel}${end} RETURN a.i, b.i, length(p)${selector === 'ALL SHORTEST' ? ', [r IN relationships(p) | elementId(r)]' : ''}`);
          const slow = g.rows(`MATCH ${selector} (p = (a:N)${rel}${end} WHERE true) RETURN a.i, b.i, length(p)${selector === 'ALL SHORTEST' ? ', [r IN relationships(p) | elementId(r)]' : ''}`);
          expect(ends(fast), `${selector} (a:N)${rel}${end} on ${JSON.stringify(edges)}`).to.deep.equal(ends(slow));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('finds the shortest cycle back to the start, which a breadth-first search never lands on', () => {
    // 0 -> 1 -> 2 -> 0 and 0 -> 3 -> 0: the shortest cycle through 0 has 2 hops, through 1 three.
    const g = randomGraph(4, [[0, 1], [1, 2], [2, 0], [0, 3], [3, 0]]);
    expect(g.rows('MATCH p = ANY SHORTEST (a:N {i: 0})-[:T]->+(b:N {i: 0}) RETURN [n IN nodes(p) | n.i]')).to.deep.equal([[[0, 3, 0]]]);
    expect(g.rows('MATCH p = SHORTEST 1 (a:N {i: 1})-[:T]->+(a) RETURN length(p)')).to.deep.equal([[3]]);
    // Undirected, a triangle 0-1-2 and a pendant 0-3: only the triangle closes a trail back to 0.
    const t = randomGraph(4, [[0, 1], [1, 2], [2, 0], [0, 3]]);
    expect(t.rows('MATCH p = ALL SHORTEST (a:N {i: 0})-[:T]-+(b:N {i: 0}) RETURN [n IN nodes(p) | n.i]').map((r) => JSON.stringify(r)).sort()).to.deep.equal(['[[0,1,2,0]]', '[[0,2,1,0]]']);
  });

  it('answers on a graph where listing every trail would not end (300 nodes, 900 relationships)', () => {
    const g = cypherGraph();
    g.run('UNWIND range(1, 300) AS i CREATE (:P {i: i})');
    g.run('MATCH (a:P), (b:P) WHERE b.i = (a.i * 7 + 3) % 300 + 1 OR b.i = (a.i * 13 + 5) % 300 + 1 OR b.i = a.i + 1 CREATE (a)-[:K]->(b)');
    const shortest = g.rows('MATCH p = shortestPath((a:P {i: 1})-[:K*]-(b:P {i: 150})) RETURN length(p)');
    expect(g.rows('MATCH p = SHORTEST 1 (a:P {i: 1})-[:K]-+(b:P {i: 150}) RETURN length(p)')).to.deep.equal(shortest);
    expect(g.rows('MATCH p = ALL SHORTEST (a:P {i: 1})-[:K]-+(b:P {i: 150}) RETURN count(*) > 0')).to.deep.equal([[true]]);
  });
});
