import { expect } from 'chai';
import { cypherFailure as fails, cypherGraph as graph } from '../../helpers/cypher-graph.js';
import type { PlanOperator } from '../../../query/cypher/explain-plan.js';
import { compileQuery } from '../../../query/cypher/run-query.js';


/** The movie graph of Neo4j's examples, small. */
function movies() {
  const g = graph();
  g.run(`CREATE (keanu:Person:Actor {name: 'Keanu', born: 1964}), (carrie:Person:Actor {name: 'Carrie', born: 1967}),
    (lana:Person:Director {name: 'Lana', born: 1965}), (m:Movie {title: 'The Matrix'}), (j:Movie {title: 'Johnny Mnemonic'}),
    (keanu)-[:ACTED_IN {roles: ['Neo']}]->(m), (carrie)-[:ACTED_IN {roles: ['Trinity']}]->(m),
    (keanu)-[:ACTED_IN {roles: ['Johnny']}]->(j), (lana)-[:DIRECTED]->(m)`);
  return g;
}


/** Every operator type in the plan, root first, depth first. */
const operators = (p: PlanOperator): string[] => [p.operatorType, ...p.children.flatMap(operators)];

describe('query/cypher Neo4j 5 syntax', () => {
  describe('EXPLAIN and PROFILE', () => {
    it('EXPLAIN answers the columns and a plan, no rows, and runs nothing: a write writes nothing', () => {
      const g = movies();
      const r = g.run("EXPLAIN MATCH (p:Person)-[:ACTED_IN]->(m:Movie) WHERE p.born > 1960 RETURN p.name AS name, m.title AS title ORDER BY name LIMIT 2");
      expect(r.columns).to.deep.equal(['name', 'title']);
      expect(r.rows).to.deep.equal([]);
      expect(r.profile).to.equal(undefined);
      const plan = r.plan!;
      expect(plan.operatorType).to.equal('ProduceResults');
      expect(plan.identifiers).to.deep.equal(['name', 'title']);
      expect(operators(plan)).to.deep.equal(['ProduceResults', 'Top', 'Projection', 'Filter', 'Expand(All)', 'NodeByLabelScan', 'Argument']);
      expect(plan.children[0]!.children[0]!.children[0]!.children[0]!.args.Details).to.equal('(p:Person)-[:ACTED_IN]->(m:Movie)');
      expect(JSON.stringify(plan)).not.to.contain('"rows"');

      const before = g.rows('MATCH (n) RETURN count(n)');
      const explained = g.run("EXPLAIN CREATE (x:Ghost {name: 'boo'}) RETURN x");
      expect(explained.changes).to.deep.equal([]);
      expect(explained.columns).to.deep.equal(['x']);
      expect(operators(explained.plan!)).to.deep.equal(['ProduceResults', 'Projection', 'Create', 'Argument']);
      expect(g.rows('MATCH (n) RETURN count(n)')).to.deep.equal(before);
      expect(g.run('EXPLAIN MATCH (n:Person) DETACH DELETE n').changes).to.deep.equal([]);
      expect(g.rows('MATCH (n:Person) RETURN count(n)')).to.deep.equal([[3]]);
    });

    it('EXPLAIN still checks the query: an error is the same error', () => {
      expect(fails(() => compileQuery('EXPLAIN MATCH (n) RETURN m')).detail).to.equal('UndefinedVariable');
      expect(fails(() => compileQuery('EXPLAIN')).message).to.match(/expected a clause/);
    });

    it('PROFILE runs the query and counts the rows each clause handed on and the nodes it examined', () => {
      const g = movies();
      const r = g.run('PROFILE MATCH (p:Person) WHERE p.born < 1966 RETURN p.name AS name ORDER BY name');
      expect(r.rows).to.deep.equal([['Keanu'], ['Lana']]);
      expect(r.plan).to.equal(undefined);
      const root = r.profile!;
      expect(root.operatorType).to.equal('ProduceResults');
      expect(root.rows).to.equal(2);
      const sort = root.children[0]!;
      expect(sort.operatorType).to.equal('Sort');
      expect(sort.rows).to.equal(2);
      const filter = sort.children[0]!.children[0]!;
      expect(filter.operatorType).to.equal('Filter');
      expect(filter.rows).to.equal(2);
      expect(filter.dbHits).to.equal(3);
      expect(sort.dbHits).to.equal(0);

      const written = g.run("PROFILE UNWIND [1, 2, 3] AS i CREATE (:Made {i: i})");
      expect(written.changes.length).to.equal(3);
      expect(operators(written.profile!)).to.deep.equal(['ProduceResults', 'Create', 'Unwind', 'Argument']);
      expect(written.profile!.children[0]!.rows).to.equal(3);
      expect(g.rows('MATCH (n:Made) RETURN count(n)')).to.deep.equal([[3]]);
    });

    it('plans UNION, subqueries and seeks by how they run', () => {
      const g = movies();
      const union = g.run('EXPLAIN MATCH (n:Movie) RETURN n.title AS t UNION MATCH (n:Person) RETURN n.name AS t').plan!;
      expect(union.children[0]!.operatorType).to.equal('Distinct');
      expect(union.children[0]!.children[0]!.operatorType).to.equal('Union');
      const seek = g.run("EXPLAIN MATCH (n {name: 'Keanu'}) CALL (n) { MATCH (n)-->(m) RETURN m } RETURN m").plan!;
      expect(operators(seek)).to.deep.equal(['ProduceResults', 'Projection', 'Apply', 'NodeIndexSeek', 'Argument', 'Projection', 'Expand(All)', 'Projection', 'Argument']);
    });
  });

  describe('scoped subqueries CALL (x) { }', () => {
    it('imports the listed variables, nothing with (), everything with (*)', () => {
      const g = movies();
      expect(g.rows("MATCH (p:Person {name: 'Keanu'}) CALL (p) { MATCH (p)-[:ACTED_IN]->(m) RETURN count(m) AS films } RETURN p.name, films")).to.deep.equal([['Keanu', 2]]);
      expect(g.rows("WITH 1 AS x, 2 AS y CALL (x, y) { RETURN x + y AS s } RETURN s")).to.deep.equal([[3]]);
      expect(g.rows("WITH 5 AS x CALL (*) { RETURN x * 2 AS d } RETURN d")).to.deep.equal([[10]]);
      expect(g.rows('UNWIND [1, 2] AS i CALL () { MATCH (m:Movie) RETURN count(m) AS movies } RETURN i, movies')).to.deep.equal([[1, 2], [2, 2]]);
      // () imports nothing: a variable of the same name inside is a new one, not the outer node.
      expect(g.rows("MATCH (p:Person {name: 'Keanu'}) CALL () { MATCH (q:Person) RETURN count(q) AS people } RETURN people")).to.deep.equal([[3]]);
      expect(fails(() => compileQuery('WITH 1 AS x CALL () { RETURN x AS y } RETURN y')).detail).to.equal('UndefinedVariable');
      expect(fails(() => compileQuery('CALL (z) { RETURN 1 AS y } RETURN y')).detail).to.equal('UndefinedVariable');
    });

    it('takes write bodies, UNION bodies and IN TRANSACTIONS', () => {
      const g = graph();
      g.run('UNWIND [1, 2, 3] AS i CALL (i) { CREATE (:N {i: i}) } IN TRANSACTIONS OF 2 ROWS');
      expect(g.rows('MATCH (n:N) RETURN sum(n.i)')).to.deep.equal([[6]]);
      expect(g.rows('WITH 2 AS k CALL (k) { RETURN k AS v UNION RETURN k * 10 AS v } RETURN v ORDER BY v')).to.deep.equal([[2], [20]]);
      expect(fails(() => compileQuery('CALL (x) RETURN 1')).message).to.match(/'\{' opening the subquery/);
    });
  });

  describe('label expressions', () => {
    it('in node patterns: | & ! % and parentheses; :A:B stays a conjunction', () => {
      const g = movies();
      const names = (pattern: string) => g.rows(`MATCH ${pattern} RETURN coalesce(n.name, n.title) AS x ORDER BY x`).map((r) => r[0]);
      expect(names('(n:Actor|Director)')).to.deep.equal(['Carrie', 'Keanu', 'Lana']);
      expect(names('(n:Person&Actor)')).to.deep.equal(['Carrie', 'Keanu']);
      expect(names('(n:Person:Actor)')).to.deep.equal(['Carrie', 'Keanu']);
      expect(names('(n:!Person)')).to.deep.equal(['Johnny Mnemonic', 'The Matrix']);
      expect(names('(n:Person&!Actor)')).to.deep.equal(['Lana']);
      expect(names('(n:(Movie|Director)&!Actor)')).to.deep.equal(['Johnny Mnemonic', 'Lana', 'The Matrix']);
      expect(names('(n:%)')).to.have.length(5);
      g.run('CREATE (:Unlabelled)');
      g.run('MATCH (n:Unlabelled) REMOVE n:Unlabelled');
      expect(g.rows('MATCH (n:!%) RETURN count(n)')).to.deep.equal([[1]]);
    });

    it('in relationship types and in WHERE', () => {
      const g = movies();
      expect(g.rows("MATCH (p)-[r:!ACTED_IN]->(m) RETURN p.name, type(r)")).to.deep.equal([['Lana', 'DIRECTED']]);
      expect(g.rows('MATCH (p)-[r:ACTED_IN|DIRECTED]->(m:Movie {title: "The Matrix"}) RETURN count(r)')).to.deep.equal([[3]]);
      expect(g.rows('MATCH (p)-[r:ACTED_IN|:DIRECTED]->() RETURN count(r)')).to.deep.equal([[4]]);
      expect(g.rows('MATCH (n) WHERE n:Director|Movie RETURN count(n)')).to.deep.equal([[3]]);
      expect(g.rows('MATCH (n) WHERE n:Person&!Director RETURN count(n)')).to.deep.equal([[2]]);
      expect(g.rows('MATCH ()-[r]->() WHERE r:DIRECTED|NONE RETURN count(r)')).to.deep.equal([[1]]);
      // In a comprehension's WHERE, | starts the mapping; parentheses make it a disjunction.
      expect(g.rows('MATCH (n) WITH collect(n) AS all RETURN [x IN all WHERE x:Director | x.name]')).to.deep.equal([[['Lana']]]);
      expect(g.rows('MATCH (n) WITH collect(n) AS all RETURN size([x IN all WHERE (x:Director|Movie) | 1])')).to.deep.equal([[3]]);
    });

    it('CREATE, MERGE and SET refuse them by name', () => {
      expect(fails(() => compileQuery('CREATE (n:A|B)')).detail).to.equal('InvalidLabelExpression');
      expect(fails(() => compileQuery('MERGE (n:!A)')).detail).to.equal('InvalidLabelExpression');
      expect(fails(() => compileQuery('MATCH (n) SET n:A|B')).detail).to.equal('InvalidLabelExpression');
    });
  });

  describe('inline WHERE in patterns', () => {
    it('filters nodes and relationships in MATCH, OPTIONAL MATCH, pattern comprehensions and EXISTS', () => {
      const g = movies();
      expect(g.rows('MATCH (p:Person WHERE p.born > 1965) RETURN p.name')).to.deep.equal([['Carrie']]);
      expect(g.rows("MATCH (p)-[r:ACTED_IN WHERE 'Neo' IN r.roles]->(m) RETURN p.name, m.title")).to.deep.equal([['Keanu', 'The Matrix']]);
      expect(g.rows("MATCH (p:Person WHERE p.born < 1965)-[r:ACTED_IN WHERE 'Johnny' IN r.roles]->(m) WHERE m.title STARTS WITH 'J' RETURN m.title")).to.deep.equal([['Johnny Mnemonic']]);
      expect(g.rows("MATCH (m:Movie {title: 'The Matrix'}) OPTIONAL MATCH (m)<-[:DIRECTED]-(d WHERE d.born > 2000) RETURN d")).to.deep.equal([[null]]);
      expect(g.rows("MATCH (m:Movie {title: 'The Matrix'}) RETURN [(m)<-[:ACTED_IN]-(a WHERE a.born > 1965) | a.name]")).to.deep.equal([[['Carrie']]]);
      expect(g.rows('MATCH (p:Person) WHERE EXISTS { (p)-[:ACTED_IN]->(m WHERE m.title = "Johnny Mnemonic") } RETURN p.name')).to.deep.equal([['Keanu']]);
      // A variable may still be called where.
      expect(g.rows('MATCH (where:Movie) RETURN count(*)')).to.deep.equal([[2]]);
      expect(g.rows('MATCH ()-[where]->() RETURN count(*)')).to.deep.equal([[4]]);
    });

    it('is refused in CREATE and on a variable-length relationship', () => {
      expect(fails(() => compileQuery('CREATE (n:A WHERE n.x = 1)')).detail).to.equal('InvalidClauseComposition');
      expect(fails(() => compileQuery('MATCH (a)-[r*1..2 WHERE r.x = 1]->(b) RETURN a')).detail).to.equal('InvalidRelationshipPattern');
    });
  });

  describe('COLLECT { }', () => {
    it('lists the one column its subquery returns', () => {
      const g = movies();
      expect(g.rows("MATCH (p:Person {name: 'Keanu'}) RETURN COLLECT { MATCH (p)-[:ACTED_IN]->(m) RETURN m.title ORDER BY m.title } AS films")).to.deep.equal([[['Johnny Mnemonic', 'The Matrix']]]);
      expect(g.rows("MATCH (p:Person {name: 'Lana'}) RETURN COLLECT { MATCH (p)-[:ACTED_IN]->(m) RETURN m } AS films")).to.deep.equal([[[]]]);
      expect(g.rows('RETURN COLLECT { UNWIND [1, 2, 2] AS x RETURN DISTINCT x } AS xs')).to.deep.equal([[[1, 2]]]);
      expect(g.rows("MATCH (p:Person) WHERE 'The Matrix' IN COLLECT { MATCH (p)-[:DIRECTED]->(m) RETURN m.title } RETURN p.name")).to.deep.equal([['Lana']]);
    });

    it('refuses a body without one returned column, and writes', () => {
      expect(fails(() => compileQuery('RETURN COLLECT { MATCH (n) RETURN n, n.x } AS x')).message).to.match(/exactly one column/);
      expect(fails(() => compileQuery('RETURN COLLECT { (n)-->(m) } AS x')).message).to.match(/ending in RETURN inside COLLECT/);
      expect(fails(() => compileQuery('RETURN COLLECT { MATCH (n) CREATE (m) RETURN m } AS x')).detail).to.equal('InvalidClauseComposition');
    });
  });

  describe('||, CASE with several values, type predicates', () => {
    it('|| joins strings and lists, null gives null, anything else is a type error', () => {
      const g = graph();
      expect(g.rows("RETURN 'a' || 'b' || 'c', [1] || [2, 3], 'a' || null")).to.deep.equal([['abc', [1, 2, 3], null]]);
      expect(g.rows("RETURN 'n' || toString(1 + 1) AS x")).to.deep.equal([['n2']]);
      expect(fails(() => g.rows("RETURN 'a' || 1")).message).to.match(/\|\| joins two strings or two lists/);
    });

    it('CASE x WHEN 1, 2 THEN ...', () => {
      const g = graph();
      expect(g.rows("UNWIND [1, 2, 3, 4] AS x RETURN CASE x WHEN 1, 2 THEN 'low' WHEN 3 THEN 'three' ELSE 'high' END")).to.deep.equal([['low'], ['low'], ['three'], ['high']]);
      expect(fails(() => compileQuery("RETURN CASE WHEN true, false THEN 1 END")).message).to.match(/expected THEN/);
    });

    it('x IS [NOT] :: TYPE [NOT NULL], and x :: TYPE', () => {
      const g = graph();
      expect(g.rows('RETURN 1 IS :: INTEGER, 1.5 IS :: INTEGER, 1.5 IS :: FLOAT, "s" IS NOT :: STRING, null IS :: INTEGER, null IS :: INTEGER NOT NULL, 1 :: INT')).to.deep.equal([[true, false, true, false, true, false, true]]);
      expect(g.rows('RETURN [1] IS :: LIST<ANY>, {a: 1} IS :: MAP, true IS :: BOOLEAN, date("2024-01-01") IS :: DATE, null IS :: NULL, 1 IS :: ANY, 1 IS :: SIGNED INTEGER')).to.deep.equal([[true, true, true, true, true, true, true]]);
      g.run('CREATE (:T)-[:R]->()');
      expect(g.rows('MATCH p = (n)-[r]->() RETURN n IS :: NODE, r IS :: RELATIONSHIP, p IS :: PATH, n IS :: RELATIONSHIP')).to.deep.equal([[true, true, true, false]]);
      expect(g.rows('UNWIND [1, "a", null, 2.0] AS x WITH x WHERE x IS :: INTEGER NOT NULL RETURN x')).to.deep.equal([[1]]);
      expect(fails(() => compileQuery('RETURN 1 IS :: WIDGET')).message).to.match(/unknown type WIDGET/);
      expect(fails(() => compileQuery('RETURN [1] IS :: LIST<INTEGER>')).detail).to.equal('Unsupported');
    });
  });

  describe('quantified relationships and path patterns', () => {
    it('a quantified relationship is the variable-length one it equals', () => {
      const g = graph();
      g.run("CREATE (:S {n: 0})-[:T]->(:S {n: 1})-[:T]->(:S {n: 2})-[:T]->(:S {n: 3})");
      const ends = (rel: string) => g.rows(`MATCH (a:S {n: 0})${rel}(b) RETURN b.n ORDER BY b.n`).map((r) => r[0]);
      expect(ends('-[:T]->{1,2}')).to.deep.equal([1, 2]);
      expect(ends('-[:T]->{2}')).to.deep.equal([2]);
      expect(ends('-[:T]->{2,}')).to.deep.equal([2, 3]);
      expect(ends('-[:T]->{,1}')).to.deep.equal([0, 1]);
      expect(ends('-[:T]->+')).to.deep.equal([1, 2, 3]);
      expect(ends('-[:T]->*')).to.deep.equal([0, 1, 2, 3]);
      expect(g.rows('MATCH (:S {n: 0})-[r:T]->{1,3}(b {n: 3}) RETURN size(r)')).to.deep.equal([[3]]);
      expect(fails(() => compileQuery('MATCH (a)-[:T*1..2]->{1,2}(b) RETURN a')).detail).to.equal('InvalidRelationshipPattern');
      expect(fails(() => compileQuery('MATCH (a)-[:T]->{3,1}(b) RETURN a')).detail).to.equal('InvalidRelationshipPattern');
      // With a WHERE it is the quantified path pattern it abbreviates: the WHERE reads r as one relationship.
      expect(g.rows('MATCH (:S {n: 0})-[r:T WHERE r.x IS NULL]->{1,2}(b) RETURN b.n, size(r) ORDER BY b.n')).to.deep.equal([[1, 1], [2, 2]]);
    });

    it('parenthesised groups and path selectors compile (quantified-paths.spec.ts runs them)', () => {
      for (const q of ['MATCH ((a)-[:T]->(b)){1,3} RETURN a', 'MATCH (x)((a)-[:T]->(b))+(y) RETURN x', 'MATCH p = SHORTEST 1 (a)-[:T]-+(b) RETURN p']) compileQuery(q);
    });
  });
});
