import { expect } from 'chai';
import { cypherFailure as fails, cypherGraph as graph } from '../../helpers/cypher-graph.js';
import { jsonText } from '../../../query/api/json-text.js';
import { toTypedJson } from '../../../query/cypher/present.js';
import { compileQuery, executeQuery } from '../../../query/cypher/run-query.js';



describe('query/cypher executor', () => {
  it('refuses a query naming parameters it was not given, as Neo4j, even where no row would read them; EXPLAIN needs none', () => {
    const { rows } = graph();
    const e = fails(() => rows('MATCH (n:Nowhere) WHERE n.x = $a OR n.y = $b OR n.z = $a RETURN n', { b: 1 }));
    expect(e.kind).to.equal('ParameterMissing');
    expect(e.message).to.include('Expected parameter(s): a');
    expect(rows('MATCH (n:Nowhere) WHERE n.x = $a RETURN n', { a: 1 })).to.deep.equal([]);
    expect(rows('EXPLAIN MATCH (n) WHERE n.x = $a RETURN n')).to.deep.equal([]);
  });

  it('lets a list of relationships bound earlier drive a variable-length pattern: the one walk along it, in order, direction and bounds', () => {
    const { rows } = graph();
    rows('CREATE (a:A), (b:B), (c:C) CREATE (a)-[:Y]->(b), (b)-[:Y]->(c)');
    const along = (match: string, ret: string) => rows(`MATCH (:A)-[r1]->()-[r2]->(:C) WITH [r1, r2] AS rs, [r2, r1] AS back ${match} RETURN ${ret}`);
    expect(along('MATCH (x)-[rs*]->(y)', 'labels(x), labels(y)')).to.deep.equal([[['A'], ['C']]]);
    expect(along('MATCH (x)-[rs*]-(y)', 'labels(x), labels(y)')).to.deep.equal([[['A'], ['C']]]);
    expect(along('MATCH (x)-[back*]->(y)', 'x')).to.deep.equal([]);
    expect(along('MATCH (x)<-[rs*]-(y)', 'x')).to.deep.equal([]);
    expect(along('MATCH (x)<-[back*]-(y)', 'labels(x), labels(y)')).to.deep.equal([[['C'], ['A']]]);
    expect(along('MATCH (x)-[rs*1..1]->(y)', 'x')).to.deep.equal([]);
    expect(along('MATCH (x)-[rs:Z*]->(y)', 'x')).to.deep.equal([]);
    expect(along('MATCH p = (x)-[rs*]->(y:C)', 'length(p), size(rs), labels(nodes(p)[1])')).to.deep.equal([[2, 2, ['B']]]);
    expect(rows('WITH 1 AS rs MATCH (x)-[rs*]->(y) RETURN x')).to.deep.equal([]);
  });

  it('creates whole patterns with new ids above every id used, and returns them as DECISIONS shapes', () => {
    const g = graph();
    g.c.upsert([{ id: 41, vector: [1, 1] as unknown as Float32Array, payload: {}, labels: [] }]);
    g.c.remove(41);
    const r = g.run("CREATE (a:Person {name: 'Ann', embedding: [0.5, 0.5]})-[k:KNOWS {since: 2020}]->(b:Person {name: 'Bob'}) RETURN a, k, b");
    expect(r.columns).to.deep.equal(['a', 'k', 'b']);
    const [a, k, b] = r.rows[0] as any[];
    expect(a).to.deep.equal({ id: 42, labels: ['Person'], properties: { name: 'Ann' } });
    expect(b.id).to.equal(43);
    expect(k).to.deep.equal({ id: 0, type: 'KNOWS', start: 42, end: 43, properties: { since: 2020, weight: 1 } });
    expect(g.c.store.vectorOf(g.c.store.slotOf(42))[0]).to.equal(0.5);
    expect(g.rows('MATCH (n:Person) RETURN n.embedding ORDER BY n.name')).to.deep.equal([[[0.5, 0.5]], [null]]);
  });

  it('matches directed, undirected, typed, alternated and variable-length patterns, and named paths', () => {
    const g = graph();
    g.run("CREATE (a {n: 'a'})-[:T]->(b {n: 'b'})-[:T]->(c {n: 'c'})-[:U]->(d {n: 'd'}), (c)-[:T]->(c)");
    expect(g.rows("MATCH ({n: 'b'})--(x) RETURN x.n ORDER BY x.n")).to.deep.equal([['a'], ['c']]);
    expect(g.rows("MATCH ({n: 'c'})<-[:T|U]-(x) RETURN x.n ORDER BY x.n")).to.deep.equal([['b'], ['c']]);
    expect(g.rows("MATCH (c {n: 'c'})-[r]-(c) RETURN count(r)"), 'a self-loop matches once undirected').to.deep.equal([[1]]);
    expect(g.rows("MATCH ({n: 'a'})-[:T*1..2]->(x) RETURN x.n ORDER BY x.n")).to.deep.equal([['b'], ['c']]);
    expect(g.rows("MATCH ({n: 'a'})-[*]->(x {n: 'd'}) RETURN count(*)"), 'with and without the loop').to.deep.equal([[2]]);
    const [[path]] = g.rows("MATCH p = ({n: 'a'})-[:T*2]->(x) RETURN p") as any[][];
    expect(path.nodes.map((n: any) => n.properties.n)).to.deep.equal(['a', 'b', 'c']);
    expect(path.relationships).to.have.length(2);
    expect(g.rows("MATCH (x {n: 'a'}) OPTIONAL MATCH (x)<--(y) RETURN x.n, y")).to.deep.equal([['a', null]]);
  });

  it('filters, groups, orders, skips and limits as openCypher does', () => {
    const g = graph();
    g.run("UNWIND [['x', 3], ['y', 1], ['x', 2], ['z', null]] AS p CREATE (:Item {k: p[0], v: p[1]})");
    expect(g.rows('MATCH (i:Item) RETURN i.k AS k, count(*) AS n, sum(i.v) AS s, collect(i.v) AS vs ORDER BY k')).to.deep.equal([
      ['x', 2, 5, [3, 2]], ['y', 1, 1, [1]], ['z', 1, 0, []],
    ]);
    expect(g.rows("MATCH (i:Item) WHERE i.k STARTS WITH 'x' OR i.v IS NULL RETURN i.k ORDER BY i.v DESC")).to.deep.equal([['z'], ['x'], ['x']]);
    expect(g.rows('MATCH (i:Item) RETURN DISTINCT i.k ORDER BY i.k SKIP 1 LIMIT $n', { n: 1 })).to.deep.equal([['y']]);
    expect(g.rows('MATCH (i:Item) WHERE i.v IN [1, 3] RETURN avg(i.v), min(i.v), max(i.v), count(DISTINCT i.k)')).to.deep.equal([[2, 1, 3, 2]]);
    expect(g.rows('MATCH (i:Item) WHERE exists(i.v) RETURN count(*)')).to.deep.equal([[3]]);
  });

  it('sets and removes properties, deletes with and without DETACH', () => {
    const g = graph();
    g.run("CREATE (:P {name: 'a', tmp: 1})-[:R {w: 1}]->(:P {name: 'b'})");
    g.run("MATCH (p:P {name: 'a'})-[r:R]->() SET p.age = 3, p.tmp = null, r.w = 2, r.weight = 0.5");
    expect(g.rows("MATCH (p {name: 'a'})-[r]->() RETURN properties(p), r")).to.deep.equal([
      [{ name: 'a', age: 3 }, { id: 0, type: 'R', start: 0, end: 1, properties: { w: 2, weight: 0.5 } }],
    ]);
    expect(g.c.graph.edge(0)!.weight).to.equal(0.5);
    const e = fails(() => g.run("MATCH (p {name: 'a'}) DELETE p"));
    expect(e.detail).to.equal('DeleteConnectedNode');
    expect(g.c.store.liveCount, 'nothing applied').to.equal(2);
    g.run("MATCH (p {name: 'a'}) DETACH DELETE p");
    expect(g.c.store.liveCount).to.equal(1);
    expect(g.c.graph.edgeCount).to.equal(0);
  });

  it('keeps a vector and its place in the index when SET changes only properties or labels', () => {
    const g = graph();
    g.c.upsert(Array.from({ length: 50 }, (_, id) => ({ id, vector: Float32Array.of(id, 1), payload: { id }, labels: [] })));
    while (g.c.indexSome(1000));
    g.run('MATCH (n) WHERE id(n) < 10 SET n.seen = true, n:Seen');
    expect(g.c.index.removedCount, 'no point was re-inserted').to.equal(0);
    expect(g.c.pendingCount).to.equal(0);
    expect(g.rows('MATCH (n:Seen) WHERE n.id = 3 RETURN n.embedding, n.seen')).to.deep.equal([[[3, 1], true]]);
    g.run('MATCH (n) WHERE id(n) = 3 SET n.embedding = [30, 1]');
    expect(g.rows('MATCH (n) WHERE id(n) = 3 RETURN n.embedding, labels(n)')).to.deep.equal([[[30, 1], ['Seen']]]);
    expect(g.c.pendingCount, 'a new vector waits for the indexer').to.equal(1);
    g.run('MATCH (n:Seen) REMOVE n:Seen, n.seen');
    expect(g.rows('MATCH (n) WHERE n.seen IS NOT NULL OR n:Seen RETURN count(*)')).to.deep.equal([[0]]);
  });

  it('creates from parameter maps and sets whole maps, as Neo4j loads data', () => {
    const g = graph();
    const rows = [{ name: 'a', age: 3 }, { name: 'b', age: 4, embedding: [1, 2] }];
    expect(g.rows('UNWIND $rows AS row CREATE (n:P) SET n += row RETURN count(*)', { rows })).to.deep.equal([[2]]);
    expect(g.rows('CREATE (n:Q $props) RETURN properties(n)', { props: { k: 1 } })).to.deep.equal([[{ k: 1 }]]);
    expect(g.rows("MATCH (n:P {name: 'b'}) RETURN n.age, n.embedding")).to.deep.equal([[4, [1, 2]]]);
    g.run("MATCH (n:P {name: 'a'}) SET n = {name: 'a2', extra: true}");
    expect(g.rows("MATCH (n:P) WHERE n.name STARTS WITH 'a' RETURN properties(n)")).to.deep.equal([[{ name: 'a2', extra: true }]]);
    g.run("MATCH (a:P {name: 'a2'}), (b:P {name: 'b'}) CREATE (a)-[r:R {x: 1}]->(b) SET r += {y: 2, weight: 3}");
    expect(g.rows('MATCH ()-[r:R]->() RETURN properties(r)')).to.deep.equal([[{ x: 1, y: 2, weight: 3 }]]);
    expect(fails(() => g.run('MATCH (n:P) SET n += 5')).detail).to.equal('InvalidPropertyType');
    expect(fails(() => compileQuery('MATCH (n $p) RETURN n')).detail).to.equal('InvalidParameterUse');
  });

  it('applies nothing when a write query fails halfway', () => {
    const g = graph();
    g.run('CREATE (:A {i: 1}), (:A {i: 2})');
    const e = fails(() => g.run("MATCH (a:A) CREATE (:B) SET a.bad = CASE_NOT_HERE"));
    expect(e.detail).to.equal('UndefinedVariable');
    const t = fails(() => g.run('MATCH (a:A) CREATE (:B {from: a.i}) SET a.m = {nested: 1}'));
    expect(t.detail).to.equal('InvalidPropertyType');
    expect(g.rows('MATCH (n) RETURN count(*)')).to.deep.equal([[2]]);
  });

  it('answers the vector predicate from the HNSW index with the raw distance', () => {
    const g = graph();
    const points = Array.from({ length: 2000 }, (_, i) => ({ id: i, vector: Float32Array.of(i % 50, Math.floor(i / 50)), payload: { i }, labels: ['V'] }));
    g.c.upsert(points);
    while (g.c.indexSome(10_000));
    const r = g.run('MATCH (n:V) WHERE n.embedding <-> $q < 1.5 RETURN n.i ORDER BY n.i', { q: [10, 10] });
    expect(r.rows.map((x) => x[0])).to.deep.equal([459, 460, 461, 509, 510, 511, 559, 560, 561]);
    expect(r.nodesScanned, 'a handful of index hits, not a scan of 2000').to.be.below(200);
    expect(g.rows('MATCH (n) WHERE id(n) = 0 RETURN n.embedding <-> [3, 4]')).to.deep.equal([[5]]);
  });

  it('stops a runaway query at its deadline and refuses huge ranges, instead of holding the process', () => {
    const g = graph();
    g.run('UNWIND range(1, 200) AS i CREATE (:N {i: i})');
    const e = fails(() => executeQuery(g.c, compileQuery('MATCH (a), (b), (c) RETURN count(*)'), {}, { timeoutMs: 0 }));
    expect(e.detail).to.equal('QueryTimeout');
    expect(g.rows('MATCH (a), (b) RETURN count(*)'), 'the default deadline lets real queries finish').to.deep.equal([[40_000]]);
    expect(fails(() => g.run('RETURN size(range(0, 1000000000000))')).detail).to.equal('MemoryLimitExceeded');
  });

  it('stops matching once a plain LIMIT has its rows, and not before an ORDER BY or aggregate has seen them all', () => {
    const g = graph();
    g.run('UNWIND range(1, 500) AS i CREATE (:N {i: i})');
    const limited = g.run('MATCH (n:N) RETURN n.i SKIP 2 LIMIT 3');
    expect(limited.rows).to.have.length(3);
    expect(limited.nodesScanned, 'five nodes looked at, not 500').to.equal(5);
    expect(g.run('MATCH (n:N) WHERE n.i > 400 WITH n LIMIT 2 RETURN count(*)').rows).to.deep.equal([[2]]);
    expect(g.rows('MATCH (n:N) RETURN n.i ORDER BY n.i DESC LIMIT 2')).to.deep.equal([[500], [499]]);
    expect(g.rows('MATCH (n:N) RETURN count(*) LIMIT 1')).to.deep.equal([[500]]);
    expect(g.rows('MATCH (n:N) RETURN DISTINCT n.i % 3 AS r LIMIT 5')).to.have.length(3);
  });

  it('raises type errors at run time for values of the wrong type', () => {
    const g = graph();
    g.run("CREATE ({s: 'x'})");
    expect(fails(() => g.run('MATCH (n) RETURN n.s.x')).detail).to.equal('InvalidArgumentType');
    expect(fails(() => g.run('MATCH (n) RETURN sum(n.s)')).detail).to.equal('InvalidArgumentType');
    expect(fails(() => g.run('RETURN 1 LIMIT $l', { l: -1 })).detail).to.equal('NegativeIntegerArgument');
    expect(fails(() => g.run('RETURN $missing')).detail).to.equal('MissingParameter');
    expect(fails(() => g.run("CREATE ({embedding: [1, 2, 3]})")).detail).to.equal('InvalidPropertyType');
  });

  it('CASE picks the first WHEN equal to its subject, or the first true WHEN, else ELSE or null', () => {
    const g = graph();
    expect(g.rows("UNWIND [1, 2, 3, null] AS x RETURN CASE x WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END, CASE WHEN x > 1 THEN 'big' WHEN x IS NULL THEN 'none' END")).to.deep.equal([
      ['one', null],
      ['two', 'big'],
      ['many', 'big'],
      ['many', 'none'],
    ]);
    expect(fails(() => g.run('RETURN CASE 1 END')).message).to.match(/expected WHEN/);
  });

  it('MERGE finds the pattern or creates it whole, row by row, with ON CREATE and ON MATCH', () => {
    const g = graph();
    expect(g.rows("MERGE (p:Person {name: 'ann'}) ON CREATE SET p.new = true ON MATCH SET p.seen = true RETURN p.new, p.seen")).to.deep.equal([[true, null]]);
    expect(g.rows("MERGE (p:Person {name: 'ann'}) ON CREATE SET p.new = true ON MATCH SET p.seen = true RETURN p.new, p.seen")).to.deep.equal([[true, true]]);
    expect(g.rows("UNWIND ['bob', 'ann', 'bob'] AS n MERGE (p:Person {name: n}) RETURN id(p)"), 'a later row finds what an earlier one made').to.deep.equal([[1], [0], [1]]);
    const link = "MATCH (a:Person {name: 'ann'}), (b:Person {name: 'bob'}) MERGE (a)-[r:KNOWS]->(b) ON CREATE SET r.since = 2020 RETURN r.since";
    expect(g.rows(link)).to.deep.equal([[2020]]);
    expect(g.rows(link)).to.deep.equal([[2020]]);
    expect(g.rows('MATCH ()-[r:KNOWS]->() RETURN count(r)')).to.deep.equal([[1]]);
    expect(g.rows("MERGE (:City {name: 'oslo'})-[:IN]->(c:Country {name: 'no'}) RETURN c.name")).to.deep.equal([['no']]);
    expect(g.rows('MATCH (n) RETURN count(n)')).to.deep.equal([[4]]);
  });

  it('list comprehensions, all/any/none/single and reduce bind their variable inside only, with three-valued logic', () => {
    const g = graph();
    expect(g.rows('RETURN [x IN range(1, 10) WHERE x % 2 = 0 | x * 10], [x IN [1, 2, 3]], [x IN null | x]')).to.deep.equal([[[20, 40, 60, 80, 100], [1, 2, 3], null]]);
    expect(g.rows('RETURN all(x IN [1, 2] WHERE x > 0), any(x IN [1, null] WHERE x > 1), none(x IN [] WHERE x > 0), single(x IN [1, 2, 3] WHERE x = 2), single(x IN [2, 2] WHERE x = 2)')).to.deep.equal([[true, null, true, true, false]]);
    expect(g.rows('RETURN reduce(s = 0, x IN [1, 2, 3] | s + x), reduce(s = "", w IN ["a", "b"] | s + w)')).to.deep.equal([[6, 'ab']]);
    expect(g.rows('WITH 5 AS x RETURN [x IN [1, 2] | x], x')).to.deep.equal([[[1, 2], 5]]);
    expect(fails(() => g.run('RETURN [x IN [1] | y]')).message).to.match(/UndefinedVariable/);
    expect(fails(() => g.run('RETURN [x IN range(1, 100000000) | x]')).message).to.match(/memory budget/);
  });

  it('split, substring, replace, left, right and round with a precision', () => {
    const g = graph();
    expect(g.rows("RETURN split('a,b,,c', ','), substring('hello', 1, 3), substring('hello', 2), replace('aaa', 'a', 'bb'), left('hello', 2), right('hello', 3), round(3.14159, 2), round(2.5)")).to.deep.equal([
      [['a', 'b', '', 'c'], 'ell', 'llo', 'bbbbbb', 'he', 'llo', 3.14, 3],
    ]);
    expect(g.rows('RETURN split(null, ","), substring("x", null), left(null, 1)')).to.deep.equal([[null, null, null]]);
    expect(fails(() => g.run("RETURN substring('x', -1)")).message).to.match(/NegativeIntegerArgument/);
  });

  it('map projections, list slices and =~ (whole-string regular expressions)', () => {
    const g = graph();
    g.run("CREATE (:P {name: 'Ann', born: 1980})");
    expect(g.rows('MATCH (p:P) RETURN p {.name, age: 2024 - p.born, .missing}, p {.*}')).to.deep.equal([[{ name: 'Ann', age: 44, missing: null }, { name: 'Ann', born: 1980 }]]);
    expect(g.rows("RETURN [1, 2, 3, 4, 5][1..3], [1, 2, 3][..2], [1, 2, 3][-2..], [1, 2, 3][1..null]")).to.deep.equal([[[2, 3], [1, 2], [2, 3], null]]);
    expect(g.rows("RETURN 'Hello' =~ 'H.*o', 'hello' =~ '(?i)HELLO', 'ab' =~ 'a', 'x' =~ null")).to.deep.equal([[true, true, false, null]]);
    expect(fails(() => g.run("RETURN 'a' =~ '('")).message).to.match(/^ArgumentError \(InvalidArgumentValue\): invalid regular expression/);
  });

  it('UNION keeps one of each distinct row, UNION ALL every row; the parts must agree on their columns', () => {
    const g = graph();
    expect(g.rows('RETURN 1 AS x UNION RETURN 1 AS x UNION RETURN 2 AS x')).to.deep.equal([[1], [2]]);
    expect(g.rows('RETURN 1 AS x UNION ALL RETURN 1 AS x')).to.deep.equal([[1], [1]]);
    expect(g.rows("CREATE (:A) RETURN 'a' AS k UNION CREATE (:B) RETURN 'b' AS k")).to.deep.equal([['a'], ['b']]);
    expect(g.rows('MATCH (n) RETURN count(n)'), 'both parts wrote, as one query').to.deep.equal([[2]]);
    expect(fails(() => g.run('RETURN 1 AS x UNION RETURN 1 AS y')).message).to.match(/DifferentColumnsInUnion/);
    expect(fails(() => g.run('RETURN 1 AS x UNION ALL RETURN 1 AS x UNION RETURN 2 AS x')).message).to.match(/InvalidClauseComposition/);
  });
  it('CALL { } runs its body per row: a returning body joins its rows, a unit body writes and passes the row on', () => {
    const g = graph();
    expect(g.rows('UNWIND [1, 2] AS x CALL { WITH x UNWIND range(1, x) AS y RETURN y * 10 AS z } RETURN x, z')).to.deep.equal([[1, 10], [2, 10], [2, 20]]);
    expect(g.rows('UNWIND [1, 2, 3] AS x CALL { WITH x CREATE (:N {x: x}) } IN TRANSACTIONS OF 2 ROWS RETURN count(*) AS rows')).to.deep.equal([[3]]);
    expect(g.rows('MATCH (n:N) CALL { WITH n DETACH DELETE n } RETURN count(*) AS deleted')).to.deep.equal([[3]]);
    expect(g.rows('MATCH (n:N) RETURN count(n)')).to.deep.equal([[0]]);
    expect(fails(() => g.run('WITH 1 AS x CALL { RETURN 2 AS x } RETURN x')).message).to.match(/VariableAlreadyBound/);
  });

  it('procedures: YIELD renames and filters columns, writes join the query\'s one event, an unknown name or output is refused', () => {
    const g = graph();
    g.run('CREATE (:A {k: 1})-[:R]->(:B {k: 2}), (:B {k: 3})');
    expect(g.rows('CALL db.labels() YIELD label AS l WHERE l <> "A" RETURN collect(l) AS ls')).to.deep.equal([[['B']]]);
    expect(g.run('CALL db.relationshipTypes()').columns).to.deep.equal(['relationshipType']);
    const r = g.run('MATCH (b:B) CALL apoc.create.addLabels(b, ["C"]) YIELD node RETURN node.k AS k ORDER BY k');
    expect(r.rows).to.deep.equal([[2], [3]]);
    expect(r.changes).to.have.length(2);
    expect(g.rows('MATCH (c:C) RETURN count(c)')).to.deep.equal([[2]]);
    expect(fails(() => g.run('CALL db.nothing()')).kind).to.equal('Procedure');
    expect(fails(() => g.run('CALL db.labels() YIELD nope RETURN nope')).message).to.match(/has no output `nope`/);
    expect(fails(() => g.run('MATCH (n) CALL db.labels() YIELD label')).message).to.match(/cannot end with a CALL that returns rows/);
  });
  it('keeps INTEGER and FLOAT apart: float arithmetic, integer division, typed aggregates and conversions, floats written with a point', () => {
    const g = graph();
    const text = (q: string) => jsonText(executeQuery(g.c, compileQuery(q), {}, {}, { present: toTypedJson }).rows);
    expect(text('RETURN 3.0 / 2, toFloat(13) / 15, 7 / 2, 1 + 1.0, 2 ^ 2, sqrt(16), toInteger(2.9), -1.0, 7 % 3')).to.equal(`[[1.5,${13 / 15},3,2.0,4.0,4.0,2,-1.0,1]]`);
    expect(text('UNWIND [1, 2, 4] AS x RETURN sum(x), avg(x), sum(x * 1.0), min(x)')).to.equal(`[[7,${7 / 3},7.0,1]]`);
    expect(text('RETURN 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, 1.0E20, 1 = 1.0, toString(1.0), toString(1.0E20), 1.0 + "x"')).to.equal('[[1e999,-1e999,"NaN",1.0E20,true,"1.0","1.0E20","1.0x"]]');
    expect(JSON.parse(text('RETURN 1.0E20'))).to.deep.equal([[1e20]]);
    expect(g.rows('UNWIND [1, 1.0, 2] AS x RETURN count(DISTINCT x)')).to.deep.equal([[2]]);
    expect(fails(() => g.run('RETURN 7 % 0')).detail).to.equal('DivisionByZero');
    expect(g.rows('RETURN 9007199254740991 + 2, 3037000499 * 3037000499, 9223372036854775807 / 2, -9223372036854775807 % 10')).to.deep.equal([[9007199254740993n, 9223372030926249001n, 4611686018427387903n, -7]]);
    expect(fails(() => g.run('RETURN 9223372036854775807 + 1')).detail).to.equal('IntegerOverflow');
    expect(fails(() => g.run('RETURN 3037000500 * 3037000500 * 2')).detail).to.equal('IntegerOverflow');
  });
  it('pattern predicates, EXISTS { }, COUNT { } and pattern comprehensions run with the row\'s variables', () => {
    const g = graph();
    g.run("CREATE (a:P {name: 'a'})-[:KNOWS]->(b:P {name: 'b'})-[:KNOWS]->(c:P {name: 'c'}), (a)-[:LIKES]->(c), (:P {name: 'd'})");
    expect(g.rows('MATCH (n:P) WHERE (n)-[:KNOWS]->() RETURN n.name ORDER BY n.name')).to.deep.equal([['a'], ['b']]);
    expect(g.rows('MATCH (n:P) WHERE NOT (n)--() RETURN n.name')).to.deep.equal([['d']]);
    expect(g.rows('MATCH (n:P) WHERE exists((n)-[:LIKES]->()) RETURN n.name')).to.deep.equal([['a']]);
    expect(g.rows("MATCH (n:P) WHERE EXISTS { MATCH (n)-[:KNOWS]->(m) WHERE m.name = 'c' } RETURN n.name")).to.deep.equal([['b']]);
    expect(g.rows('MATCH (n:P) RETURN n.name, COUNT { (n)--() } AS degree ORDER BY n.name')).to.deep.equal([['a', 2], ['b', 2], ['c', 2], ['d', 0]]);
    expect(g.rows('MATCH (n:P) RETURN n.name, [(n)-[:KNOWS|LIKES]->(m) WHERE m.name <> "b" | m.name] AS out ORDER BY n.name')).to.deep.equal([['a', ['c']], ['b', ['c']], ['c', []], ['d', []]]);
    expect(g.rows("MATCH (a:P {name: 'a'}) RETURN [p = (a)-[:KNOWS*]->() | length(p)] AS lengths")).to.deep.equal([[[1, 2]]]);
    expect(g.rows('RETURN (1 + 2) * 3, [(1), 2]')).to.deep.equal([[9, [1, 2]]]);
    expect(fails(() => g.run('MATCH (n) WHERE (n)-->(m) RETURN n')).detail).to.equal('UndefinedVariable');
    expect(fails(() => g.run('MATCH (n) RETURN size((n)-->())')).detail).to.equal('UnexpectedSyntax');
    expect(fails(() => g.run('MATCH (n) WHERE EXISTS { MATCH (n)-->(m) SET m.x = 1 } RETURN n')).detail).to.equal('InvalidClauseComposition');
  });

  it('shortestPath and allShortestPaths find the fewest hops, stopping at a bound end', () => {
    const g = graph();
    g.run("CREATE (x:Q {name: 'x'})-[:R]->(y1:Q {name: 'y1'})-[:R]->(z:Q {name: 'z'}), (x)-[:R]->(y2:Q {name: 'y2'})-[:R]->(z), (z)-[:R]->(w:Q {name: 'w'}), (x)-[:S]->(w)");
    expect(g.rows("MATCH p = shortestPath((x:Q {name: 'x'})-[*]->(w:Q {name: 'w'})) RETURN length(p)")).to.deep.equal([[1]]);
    expect(g.rows("MATCH p = allShortestPaths((x:Q {name: 'x'})-[:R*]->(z:Q {name: 'z'})) RETURN [n IN nodes(p) | n.name] AS path ORDER BY path")).to.deep.equal([[['x', 'y1', 'z']], [['x', 'y2', 'z']]]);
    expect(g.rows("MATCH p = shortestPath((w:Q {name: 'w'})<-[:R*]-(x:Q {name: 'x'})) RETURN [n IN nodes(p) | n.name]")).to.deep.equal([[['w', 'z', 'y1', 'x']]]);
    expect(g.rows("MATCH (x:Q {name: 'x'}) MATCH p = shortestPath((x)-[:R*..1]->(o)) RETURN o.name ORDER BY o.name")).to.deep.equal([['y1'], ['y2']]);
    expect(g.rows("MATCH (x:Q {name: 'x'}), (w:Q {name: 'w'}) OPTIONAL MATCH p = shortestPath((w)-[:R*]->(x)) RETURN p")).to.deep.equal([[null]]);
    expect(fails(() => g.run('MATCH p = shortestPath((a)-->(b)-->(c)) RETURN p')).detail).to.equal('InvalidArgumentExpression');
  });

  it('hexadecimal and octal literals, stDev and percentiles', () => {
    const g = graph();
    expect(g.rows('RETURN 0x1F, -0x10, 0o17')).to.deep.equal([[31, -16, 15]]);
    expect(fails(() => g.run('RETURN 0xZ')).detail).to.equal('InvalidNumberLiteral');
    const [row] = g.rows('UNWIND [1, 2, 3, 4] AS x RETURN stDev(x), stDevP(x), percentileDisc(x, 0.5), percentileCont(x, 0.5)');
    expect(row![0]).to.be.closeTo(1.2910, 1e-4);
    expect(row![1]).to.be.closeTo(1.1180, 1e-4);
    expect(row!.slice(2)).to.deep.equal([2, 2.5]);
  });
  it('FOREACH runs its updating clauses for each element and passes the row on once', () => {
    const g = graph();
    expect(g.rows("CREATE (a:Hub {name: 'h'}) FOREACH (i IN range(1, 3) | CREATE (a)-[:HAS]->(:Leaf {i: i})) RETURN a.name")).to.deep.equal([['h']]);
    expect(g.rows('MATCH (:Hub)-[:HAS]->(l:Leaf) RETURN l.i ORDER BY l.i')).to.deep.equal([[1], [2], [3]]);
    g.run('MATCH (h:Hub) FOREACH (x IN [1, 2] | SET h.seen = x FOREACH (y IN [x] | MERGE (:Tag {v: y})))');
    expect(g.rows('MATCH (h:Hub) RETURN h.seen')).to.deep.equal([[2]]);
    expect(g.rows('MATCH (t:Tag) RETURN count(t)')).to.deep.equal([[2]]);
    expect(fails(() => g.run('FOREACH (x IN [1] | MATCH (n) SET n.x = x)')).detail).to.equal('InvalidClauseComposition');
  });
  it('seeks by a property whose value comes from an earlier variable, in a MATCH and in MERGE while the query writes', () => {
    const g = graph();
    g.run('UNWIND range(1, 1000) AS i CREATE (:N {i: i})');
    const matched = g.run('UNWIND range(1, 10) AS i MATCH (n:N {i: i}) RETURN count(n)');
    expect(matched.rows).to.deep.equal([[10]]);
    expect(matched.nodesScanned, 'one index lookup per row, not a label scan').to.be.at.most(10);
    const merged = g.run('UNWIND [1, 2, 2000, 2000, 2001] AS i MERGE (n:N {i: i}) RETURN count(DISTINCT n)');
    expect(merged.rows).to.deep.equal([[4]]);
    expect(merged.nodesScanned, 'the nodes MERGE wrote are found without a scan').to.be.at.most(10);
    expect(g.rows('MATCH (n:N) RETURN count(n)')).to.deep.equal([[1002]]);
  });
  it('CALL { } joins UNION parts (UNION keeps distinct rows); full-text indexes rank a label\'s nodes by BM25', () => {
    const g = graph();
    g.run("CREATE (:Doc {text: 'graphs and vectors'}), (:Doc {text: 'vectors vectors everywhere'}), (:Doc {text: 'nothing here'})");
    expect(g.rows('CALL { RETURN 1 AS x UNION RETURN 1 AS x UNION RETURN 2 AS x } RETURN x ORDER BY x')).to.deep.equal([[1], [2]]);
    expect(g.rows('CALL { RETURN 1 AS x UNION ALL RETURN 1 AS x } RETURN count(*)')).to.deep.equal([[2]]);
    expect(fails(() => g.run('CALL { RETURN 1 AS x UNION RETURN 1 AS y } RETURN x')).detail).to.equal('DifferentColumnsInUnion');
    const schema = g.run('CREATE FULLTEXT INDEX words IF NOT EXISTS FOR (d:Doc) ON EACH [d.text]');
    expect(schema.schema).to.not.equal(null);
    g.c.settings = { ...g.c.settings, ...Object.fromEntries(Object.entries(schema.schema!).map(([k, v]) => [k, { ...(g.c.settings[k] ?? {}), ...v }])) };
    const hits = g.rows("CALL db.index.fulltext.queryNodes('words', 'Vectors', {limit: 5}) YIELD node, score RETURN node.text, score");
    expect(hits.map((h) => h[0])).to.deep.equal(['vectors vectors everywhere', 'graphs and vectors']);
    expect(hits[0]![1]).to.be.greaterThan(hits[1]![1] as number);
    expect(g.rows("CALL db.index.fulltext.queryNodes('words', 'absent') YIELD node RETURN count(node)")).to.deep.equal([[0]]);
    expect(fails(() => g.run("CALL db.index.fulltext.queryNodes('nope', 'x') YIELD node RETURN node")).detail).to.equal('ProcedureCallFailed');
    expect(fails(() => g.run("CALL db.index.fulltext.queryNodes('words', 'x', {analyzer: 'english'}) YIELD node RETURN node")).message).to.include('`analyzer`');
    expect(fails(() => g.run("CALL apoc.meta.data({excludes: ['Doc']})")).message).to.include('`excludes`');
    expect(g.run('CALL apoc.meta.data({sample: 10})').rows.length).to.be.greaterThan(0);

    g.run("CREATE (:Note {body: 'vectors in notes'}), (:Doc:Note {text: 'vectors twice', body: 'vectors'})");
    const multi = g.run('CREATE FULLTEXT INDEX both FOR (n:Doc|Note) ON EACH [n.text, n.body]');
    g.c.settings = { ...g.c.settings, ...Object.fromEntries(Object.entries(multi.schema!).map(([k, v]) => [k, { ...(g.c.settings[k] ?? {}), ...v }])) };
    const found = g.rows("CALL db.index.fulltext.queryNodes('both', 'vectors') YIELD node RETURN coalesce(node.text, node.body)");
    expect(found.map((r) => r[0]).sort(), 'nodes of either label, each once').to.deep.equal(['graphs and vectors', 'vectors in notes', 'vectors twice', 'vectors vectors everywhere']);
    expect(g.rows("SHOW FULLTEXT INDEXES YIELD name, labelsOrTypes, createStatement WHERE name = 'both' RETURN labelsOrTypes, createStatement")).to.deep.equal([
      [['Doc', 'Note'], 'CREATE FULLTEXT INDEX `both` FOR (n:`Doc`|`Note`) ON EACH [n.`text`, n.`body`]'],
    ]);
  });
  it('ORDER BY after an aggregation reads returned columns, properties and aggregates, and names what it cannot use', () => {
    const g = graph();
    g.run('UNWIND [[1, 5], [1, 7], [2, 1]] AS r CREATE (:P {age: r[0], score: r[1]})');
    expect(g.rows('MATCH (p:P) RETURN p.age AS age, count(p.score) AS c, sum(p.score) AS s ORDER BY p.age + sum(p.score) DESC')).to.deep.equal([[1, 2, 12], [2, 1, 1]]);
    expect(g.rows('MATCH (p:P) RETURN p.age AS age, sum(p.score) AS s ORDER BY $k - sum(p.score)', { k: 0 })).to.deep.equal([[1, 12], [2, 1]]);
    expect(fails(() => g.run('MATCH (p:P), (q:P) RETURN count(q.age) AS c ORDER BY p.age + count(q.age)')).detail).to.equal('UndefinedVariable');
    expect(fails(() => g.run('MATCH (p:P) RETURN p.age + p.score, count(*) AS c ORDER BY p.age + p.score + count(*)')).detail).to.equal('AmbiguousAggregationExpression');
    expect(fails(() => g.run("RETURN all(x IN ['a', 'b'] WHERE x % 2 = 0)")).detail).to.equal('InvalidArgumentType');
  });
  it('elementId, vector similarity as Neo4j scores it, math functions, and db.propertyKeys', () => {
    const g = graph();
    g.run("CREATE (:K {name: 'a'})-[:R {since: 1}]->(:K {title: 'b'})");
    expect(g.rows('MATCH (n:K {name: "a"}) RETURN elementId(n) = toString(id(n))')).to.deep.equal([[true]]);
    const [sim] = g.rows('RETURN vector.similarity.cosine([1, 0], [0, 1]), vector.similarity.cosine([1, 0], [2, 0]), vector.similarity.euclidean([0, 0], [3, 4]), vector.similarity.cosine([0, 0], [1, 0])');
    expect(sim).to.deep.equal([0.5, 1, 1 / 26, null]);
    expect(fails(() => g.run('RETURN vector.similarity.cosine([1], [1, 2])')).detail).to.equal('InvalidArgumentValue');
    const [math] = g.rows('RETURN exp(0), log(1), log10(100), sin(0), cos(0), atan2(0, 1), degrees(pi()), radians(180) = pi(), sign(-2.5), abs(-2)');
    expect(math).to.deep.equal([1, 0, 2, 0, 1, 0, 180, true, -1, 2]);
    expect(g.rows('CALL db.propertyKeys() YIELD propertyKey RETURN collect(propertyKey)')).to.deep.equal([[['name', 'since', 'title', 'weight']]]);
  });
});

