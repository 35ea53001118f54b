import { expect } from 'chai';
import { cypherFailure as fails, cypherGraph as graph } from '../../helpers/cypher-graph.js';

/**
 * A chain with a shortcut, relationships weighted:
 * a:S -2-> b -3-> c -1-> d:E, and a -5-> d.
 */
function chain() {
  const g = graph();
  g.run(`CREATE (a:S {n: 'a'})-[:T {w: 2}]->(b {n: 'b'})-[:T {w: 3}]->(c {n: 'c'})-[:T {w: 1}]->(d:E {n: 'd'}),
    (a)-[:T {w: 5}]->(d)`);
  return g;
}

/**
 * Two starts and one end: s -> x -> t, s -> y -> t, s -> z -> w -> t, s2 -> y (all :R).
 * From s, two paths of length 2 and one of length 3 reach t; from s2, one of length 2.
 */
function diamond() {
  const g = graph();
  g.run(`CREATE (s:S {n: 's'}), (s2:S {n: 's2'}), (t:T {n: 't'}), (x {n: 'x'}), (y {n: 'y'}), (z {n: 'z'}), (w {n: 'w'}),
    (s)-[:R]->(x)-[:R]->(t), (s)-[:R]->(y)-[:R]->(t), (s)-[:R]->(z)-[:R]->(w)-[:R]->(t), (s2)-[:R]->(y)`);
  return g;
}

/** Rows sorted by their JSON text, for results whose order the query leaves open. */
const sorted = (rows: unknown[][]) => [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

describe('query/cypher quantified path patterns and path selectors (Neo4j 5 GQL)', () => {
  describe('quantified path patterns', () => {
    it('repeats the group within its bounds, testing its WHERE on each repetition, and binds its variables as lists', () => {
      const g = chain();
      const rows = g.rows("MATCH (a:S)((x)-[r:T]->(y) WHERE r.w > 1){1,3}(b) RETURN b.n, [n IN x | n.n], [n IN y | n.n], [e IN r | e.w]");
      // c -> d weighs 1, so no repetition crosses it.
      expect(sorted(rows)).to.deep.equal([
        ['b', ['a'], ['b'], [2]],
        ['c', ['a', 'b'], ['b', 'c'], [2, 3]],
        ['d', ['a'], ['d'], [5]],
      ]);
    });

    it('takes {n}, {n,}, {,m}, + and *; zero repetitions stay on the node, with empty lists', () => {
      const g = chain();
      const ends = (q: string) => sorted(g.rows(`MATCH (a:S {n: 'a'})${q}(b) RETURN b.n, size(r)`));
      expect(ends('((x)-[r:T]->(y)){2}')).to.deep.equal([['c', 2]]);
      expect(ends('((x)-[r:T]->(y)){2,}')).to.deep.equal([['c', 2], ['d', 3]]);
      expect(ends('((x)-[r:T]->(y)){,1}')).to.deep.equal([['a', 0], ['b', 1], ['d', 1]]);
      expect(ends('((x)-[r:T]->(y))+')).to.deep.equal([['b', 1], ['c', 2], ['d', 1], ['d', 3]]);
      expect(ends('((x)-[r:T]->(y))*')).to.deep.equal([['a', 0], ['b', 1], ['c', 2], ['d', 1], ['d', 3]]);
      expect(g.rows("MATCH (a:S)((x)-[r:T]->(y)){0,1}(b) WHERE b = a RETURN x, y, r")).to.deep.equal([[[], [], []]]);
    });

    it('binds a path over the whole pattern, nodes and relationships in path order whichever end the match starts from', () => {
      const g = diamond();
      // From s (a property seek), growing right; from t (the rarer label), growing left: the same paths.
      for (const start of ["(s:S {n: 's'})", '(s:S)']) {
        const rows = g.rows(`MATCH p = ${start}((a)-[:R]->(m)-[:R]->(b))+(t:T) WHERE s.n = 's' RETURN [n IN nodes(p) | n.n], [n IN m | n.n], [n IN a | n.n], length(p)`);
        expect(sorted(rows), start).to.deep.equal([
          [['s', 'x', 't'], ['x'], ['s'], 2],
          [['s', 'y', 't'], ['y'], ['s'], 2],
        ]);
      }
      const back = g.rows("MATCH p = (t:T)((b)<-[r:R]-(a))+(s:S {n: 's'}) RETURN [n IN nodes(p) | n.n], [n IN a | n.n], size(relationships(p)) ORDER BY length(p), nodes(p)[1].n");
      expect(back).to.deep.equal([
        [['t', 'x', 's'], ['x', 's'], 2],
        [['t', 'y', 's'], ['y', 's'], 2],
        [['t', 'w', 'z', 's'], ['w', 'z', 's'], 3],
      ]);
    });

    it('uses each relationship once per match (TRAIL): nodes may repeat, so a cycle is walked once around', () => {
      const g = graph();
      g.run("CREATE (u {n: 'u'})-[:R]->(v {n: 'v'})-[:R]->(u)");
      const rows = g.rows("MATCH p = (u {n: 'u'})((a)-[:R]->(b))+(z) RETURN [n IN nodes(p) | n.n] ORDER BY length(p)");
      expect(rows).to.deep.equal([[['u', 'v']], [['u', 'v', 'u']]]);
      // The group and the relationship beside it share the rule too.
      expect(g.rows("MATCH (u {n: 'u'})((a)-[:R]->(b))+(z)-[:R]->(q) RETURN z.n, q.n")).to.deep.equal([['v', 'u']]);
    });

    it('reads variables of earlier clauses inside the group, and group variables as lists in the WHERE', () => {
      const g = diamond();
      const inside = g.rows("MATCH (m {n: 'x'}) MATCH (s:S {n: 's'})((a)-[:R]->(b WHERE b.n <> m.n))+(t:T) RETURN [n IN b | n.n]");
      expect(sorted(inside)).to.deep.equal([[['y', 't']], [['z', 'w', 't']]]);
      const outside = g.rows("MATCH (s:S {n: 's'})((a)-[:R]->(b))+(t:T) WHERE size(b) = 3 AND all(n IN b WHERE n.n <> 'x') RETURN [n IN a | n.n]");
      expect(outside).to.deep.equal([[['s', 'z', 'w']]]);
    });

    it('joins groups placed side by side, and groups beside fixed relationships', () => {
      const g = diamond();
      const rows = g.rows("MATCH p = (s:S {n: 's'})((a)-[:R]->(b)){1}((c)-[:R]->(d))+ RETURN [n IN nodes(p) | n.n], [n IN c | n.n]");
      expect(sorted(rows)).to.deep.equal([
        [['s', 'x', 't'], ['x']],
        [['s', 'y', 't'], ['y']],
        [['s', 'z', 'w', 't'], ['z', 'w']],
        [['s', 'z', 'w'], ['z']],
      ]);
      expect(sorted(g.rows("MATCH (s2:S {n: 's2'})-[:R]->(m)((a)-[:R]->(b))+ RETURN m.n, [n IN b | n.n]"))).to.deep.equal([['y', ['t']]]);
    });

    it('counts nothing for OPTIONAL MATCH that finds no repetition: the group variables are null', () => {
      const g = diamond();
      expect(g.rows("MATCH (t:T) OPTIONAL MATCH (t)((a)-[:R]->(b))+(z) RETURN t.n, a, z")).to.deep.equal([['t', null, null]]);
    });
  });

  describe('path selectors', () => {
    const lengths = (rows: unknown[][]) => sorted(rows);

    it('SHORTEST k, ALL SHORTEST, SHORTEST k GROUPS and ANY k choose among the paths with the same two ends', () => {
      const g = diamond();
      const run = (selector: string) => lengths(g.rows(`MATCH p = ${selector} (s:S)-[:R]->+(t:T) RETURN s.n, length(p)`));
      const one = [['s', 2], ['s2', 2]];
      expect(run('SHORTEST 1')).to.deep.equal(one);
      expect(run('ANY SHORTEST')).to.deep.equal(one);
      expect(run('SHORTEST 2')).to.deep.equal([['s', 2], ['s', 2], ['s2', 2]]);
      expect(run('SHORTEST 3 PATHS')).to.deep.equal([['s', 2], ['s', 2], ['s', 3], ['s2', 2]]);
      expect(run('ALL SHORTEST')).to.deep.equal([['s', 2], ['s', 2], ['s2', 2]]);
      expect(run('SHORTEST GROUP')).to.deep.equal([['s', 2], ['s', 2], ['s2', 2]]);
      expect(run('SHORTEST 2 GROUPS')).to.deep.equal([['s', 2], ['s', 2], ['s', 3], ['s2', 2]]);
      expect(run('ANY')).to.have.length(2);
      expect(run('ANY 2 PATHS').map((r) => r[0])).to.deep.equal(['s', 's', 's2']);
      expect(run('ALL')).to.deep.equal([['s', 2], ['s', 2], ['s', 3], ['s2', 2]]);
      expect(lengths(g.rows('MATCH p = SHORTEST $k (s:S)-[:R]->+(t:T) RETURN s.n, length(p)', { k: 3 }))).to.deep.equal([['s', 2], ['s', 2], ['s', 3], ['s2', 2]]);
    });

    it('returns the shortest paths of each partition in order of length', () => {
      const g = diamond();
      expect(g.rows("MATCH p = SHORTEST 3 (s:S {n: 's'})-[:R]->+(t:T) RETURN length(p)")).to.deep.equal([[2], [2], [3]]);
    });

    it('tests the pattern\'s own predicates before it selects, and the MATCH\'s WHERE after', () => {
      const g = diamond();
      // Before: the paths through x and y are gone, so the longer one is the shortest left.
      const pre = g.rows("MATCH p = ALL SHORTEST (s:S)((a)-[:R]->(b) WHERE NOT b.n IN ['x', 'y'])+(t:T) RETURN [n IN nodes(p) | n.n]");
      expect(pre).to.deep.equal([[['s', 'z', 'w', 't']]]);
      const inline = g.rows("MATCH p = ALL SHORTEST (s:S)-[:R]->(m WHERE NOT m.n IN ['x', 'y'])-[:R]->+(t:T) RETURN [n IN nodes(p) | n.n]");
      expect(inline).to.deep.equal([[['s', 'z', 'w', 't']]]);
      // After: the shortest paths are chosen first, then all of them fail the test.
      const post = g.rows("MATCH p = ALL SHORTEST (s:S)-[:R]->+(t:T) WHERE none(n IN nodes(p) WHERE n.n IN ['x', 'y']) RETURN p");
      expect(post).to.deep.equal([]);
      // A parenthesised pattern's WHERE is its own, and may read its path.
      const whole = g.rows("MATCH SHORTEST 1 (p = (s:S)-[:R]->+(t:T) WHERE length(p) > 2) RETURN [n IN nodes(p) | n.n]");
      expect(whole).to.deep.equal([[['s', 'z', 'w', 't']]]);
    });

    it('selects among quantified path patterns too, binding their group variables', () => {
      const g = chain();
      const rows = g.rows("MATCH p = SHORTEST 2 (a:S)((x)-[r:T]->(y))+(d:E) RETURN [n IN nodes(p) | n.n], [e IN r | e.w]");
      expect(rows).to.deep.equal([
        [['a', 'd'], [5]],
        [['a', 'b', 'c', 'd'], [2, 3, 1]],
      ]);
    });

    it('shows in EXPLAIN as StatefulShortestPath, a group as Repeat(Trail)', () => {
      const plan = JSON.stringify(diamond().run('EXPLAIN MATCH p = SHORTEST 1 (s:S)-->+(t:T) MATCH (s)((a)-->(b))+(u) RETURN p').plan);
      expect(plan).to.match(/"operatorType":"StatefulShortestPath"/);
      expect(plan).to.match(/"operatorType":"Repeat\(Trail\)","identifiers":\[[^\]]*"a"/);
    });

    it('keeps the row of an OPTIONAL MATCH whose selector finds no path', () => {
      const g = diamond();
      expect(g.rows("MATCH (s:S {n: 's2'}) OPTIONAL MATCH p = ANY SHORTEST (s)<-[:R]-+(x) RETURN s.n, p")).to.deep.equal([['s2', null]]);
    });
  });

  describe('refusals', () => {
    const refusal = (q: string) => fails(() => chain().rows(q));

    it('refuses what Neo4j refuses, naming the rule and the place', () => {
      const cases: [string, string, RegExp][] = [
        ['MATCH SHORTEST 1 (a:S)-[:T]->(d) RETURN d', 'InvalidPathPattern', /column 7: a path selector .* needs a pattern of variable length/],
        ['MATCH SHORTEST 1 (a:S)-[:T]->+(d), (x) RETURN d', 'InvalidPathPattern', /Multiple path patterns cannot be used in the same clause in combination with a selective path selector/],
        ['MATCH (a)((x)-->(y))+(b), (x) RETURN a', 'VariableAlreadyBound', /`x` occurs both inside and outside a quantified path pattern/],
        ['MATCH (a)((x)-->(y))+(b)((x)-->(z))+(c) RETURN a', 'VariableAlreadyBound', /`x` occurs in multiple quantified path patterns/],
        ['MATCH (x) MATCH (a)((x)-->(y))+(b) RETURN a', 'VariableAlreadyBound', /`x` is already defined in a previous clause/],
        ['MATCH (a)((x)-->(y) WHERE x.n = a.n)+(b) RETURN a', 'UndefinedVariable', /column 33: From within a quantified path pattern, one may only reference variables that are already bound in a previous MATCH clause/],
        ['MATCH ((x)-->(y)){0,3} RETURN x', 'InvalidPathPattern', /must match at least one element/],
        ['MATCH (a)((x)-[:T]->+(y))+(b) RETURN a', 'InvalidQuantifiedPathPattern', /column 14: a variable-length or quantified relationship cannot be part of a quantified path pattern/],
        ['MATCH (a)(((x)-->(y))+)+(b) RETURN a', 'InvalidQuantifiedPathPattern', /not allowed to be nested/],
        ['MATCH (a)((x))+(b) RETURN a', 'InvalidQuantifiedPathPattern', /at least one relationship/],
        ['MATCH (a)-->(b) (c)-->(d) RETURN a', 'InvalidPathPattern', /column 17: two node patterns cannot stand side by side/],
        ['MATCH (a)((x)-->(y))+-->(b) RETURN a', 'InvalidRelationshipPattern', /needs a node pattern before it/],
        ['MATCH (a)((x)-->(y))(b) RETURN a', 'InvalidPathPattern', /needs a quantifier/],
        ['MATCH (a)(p = (x)-->(y))+(b) RETURN a', 'Unsupported', /assigning a path inside a quantified path pattern is not supported/],
        ['CREATE (a)((x)-[:T]->(y))+(b)', 'InvalidClauseComposition', /CREATE cannot make a quantified path pattern/],
        ['MERGE p = SHORTEST 1 (a)-[:T]->+(b)', 'InvalidClauseComposition', /path selector/],
        ['MATCH ((x)-[r]->(z)){1,2} WHERE z.n > x.n RETURN x', 'InvalidArgumentType', /column 33: `z` is a list of nodes, which has no properties/],
        ['MATCH p = shortestPath((a)((x)-->(y))+(b)) RETURN p', 'InvalidArgumentExpression', /shortestPath\(\) takes a variable-length relationship, not a quantified path pattern/],
        ['MATCH p = SHORTEST (a)-->+(b) RETURN p', 'UnexpectedSyntax', /the number of paths \(SHORTEST 2\) or GROUPS/],
      ];
      for (const [q, detail, message] of cases) {
        const e = refusal(q);
        expect(e.detail, q).to.equal(detail);
        expect(e.message, q).to.match(message);
      }
    });

    it('refuses a selector count that is not a positive integer when it runs', () => {
      const e = refusal('MATCH p = SHORTEST 0 (a:S)-->+(b) RETURN p');
      expect(e.message).to.match(/the count of SHORTEST k must be a positive integer, got 0/);
      expect(fails(() => chain().rows('MATCH p = ANY $k (a:S)-->+(b) RETURN p', { k: 'two' })).message).to.match(/ANY k must be a positive integer, got a String/);
    });
  });
});
