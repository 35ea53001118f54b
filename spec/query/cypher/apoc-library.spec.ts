import { createHash } from 'node:crypto';
import { expect } from 'chai';
import neo4j from 'neo4j-driver';
import { cypherFailure, cypherGraph } from '../../helpers/cypher-graph.js';
import { useTestServer } from '../../helpers/http.js';

/** The value of `RETURN <expr> AS v`. */
function value(expr: string, params: Record<string, unknown> = {}): unknown {
  return cypherGraph().rows(`RETURN ${expr} AS v`, params)[0]![0];
}

describe('query/cypher: the APOC functions and procedures LLM-written Cypher uses', () => {
  describe('apoc.coll', () => {
    it('computes sets, sums, orders and positions as APOC 5 does', () => {
      expect(value('apoc.coll.toSet([1, 2, 1, "a", 1.0, "a"])')).to.have.length(4);
      expect(value('apoc.coll.flatten([1, [2, [3]], [], 4])')).to.deep.equal([1, 2, [3], 4]);
      expect(value('apoc.coll.flatten([1, [2, [3, [4]]]], true)')).to.deep.equal([1, 2, 3, 4]);
      expect(value('apoc.coll.sum([1, 2, 3])')).to.equal(6);
      expect(value('apoc.coll.toSet([1, 2, 1, "a", "a"])')).to.deep.equal([1, 2, 'a']);
      expect(value('apoc.coll.sum([0.5, 1])')).to.equal(1.5);
      expect(value('apoc.coll.avg([1, 2])')).to.equal(1.5);
      expect(value('apoc.coll.min([3, 1, 2])')).to.equal(1);
      expect(value('apoc.coll.max(["b", "c", "a"])')).to.equal('c');
      expect(value('apoc.coll.sort([3, 1, 2])')).to.deep.equal([1, 2, 3]);
      expect(value('apoc.coll.reverse([1, 2, 3])')).to.deep.equal([3, 2, 1]);
      expect(value('apoc.coll.contains([1, 2], 2)')).to.equal(true);
      expect(value('apoc.coll.contains([1, 2], 2.0)')).to.equal(false);
      expect(value('apoc.coll.containsAll([1, 2, 3], [3, 1])')).to.equal(true);
      expect(value('apoc.coll.containsAll([1, 2, 3], [4])')).to.equal(false);
      expect(value('apoc.coll.indexOf(["a", "b"], "b")')).to.equal(1);
      expect(value('apoc.coll.indexOf(["a", "b"], "z")')).to.equal(-1);
    });

    it('combines lists: union, intersection, subtract, zip, pairs, frequencies, duplicates, partition', () => {
      expect(value('apoc.coll.union([1, 2], [2, 3])')).to.deep.equal([1, 2, 3]);
      expect(value('apoc.coll.intersection([1, 2, 2, 3], [2, 3, 4])')).to.deep.equal([2, 3]);
      expect(value('apoc.coll.subtract([1, 2, 2, 3], [2])')).to.deep.equal([1, 3]);
      expect(value('apoc.coll.zip([1, 2, 3], ["a", "b"])')).to.deep.equal([[1, 'a'], [2, 'b'], [3, null]]);
      expect(value('apoc.coll.pairs([1, 2, 3])')).to.deep.equal([[1, 2], [2, 3], [3, null]]);
      expect(value('apoc.coll.pairsMin([1, 2, 3])')).to.deep.equal([[1, 2], [2, 3]]);
      expect(value('apoc.coll.frequencies(["a", "b", "a"])')).to.deep.equal([{ item: 'a', count: 2 }, { item: 'b', count: 1 }]);
      expect(value('apoc.coll.duplicates([1, 2, 1, 3, 2, 1])')).to.deep.equal([1, 2]);
      expect(value('apoc.coll.partition([1, 2, 3, 4, 5], 2)')).to.deep.equal([[1, 2], [3, 4], [5]]);
    });

    it('answers for null lists as APOC does', () => {
      expect(value('apoc.coll.toSet(null)')).to.equal(null);
      expect(value('apoc.coll.flatten(null)')).to.deep.equal([]);
      expect(value('apoc.coll.sum(null)')).to.equal(null);
      expect(value('apoc.coll.sum([])')).to.equal(null);
      expect(value('apoc.coll.min(null)')).to.equal(null);
      expect(value('apoc.coll.sort(null)')).to.deep.equal([]);
      expect(value('apoc.coll.contains(null, 1)')).to.equal(false);
      expect(value('apoc.coll.union(null, [1])')).to.deep.equal([1]);
      expect(value('apoc.coll.intersection(null, [1])')).to.deep.equal([]);
      expect(value('apoc.coll.zip(null, [1])')).to.equal(null);
      expect(value('apoc.coll.frequencies(null)')).to.deep.equal([]);
    });

    it('sorts nodes by a property, descending unless it starts with ^', () => {
      const { rows } = cypherGraph();
      rows('CREATE (:P {name: "b", age: 2}), (:P {name: "a", age: 1}), (:P {name: "c", age: 3})');
      expect(rows('MATCH (p:P) WITH collect(p) AS ps RETURN [p IN apoc.coll.sortNodes(ps, "age") | p.name]')).to.deep.equal([[['c', 'b', 'a']]]);
      expect(rows('MATCH (p:P) WITH collect(p) AS ps RETURN [p IN apoc.coll.sortNodes(ps, "^age") | p.name]')).to.deep.equal([[['a', 'b', 'c']]]);
    });

    it('fails on a list of the wrong type as Neo4j words an APOC failure', () => {
      const err = cypherFailure(() => value('apoc.coll.sum(["x"])'));
      expect(err.detail).to.equal('ProcedureCallFailed');
      expect(err.message).to.include('Failed to invoke function `apoc.coll.sum`: Caused by: java.lang.RuntimeException: expected a list of numbers');
    });
  });

  describe('apoc.text', () => {
    it('joins, replaces and splits with Java regular expressions', () => {
      expect(value('apoc.text.join(["a", "b", "c"], "-")')).to.equal('a-b-c');
      expect(value('apoc.text.replace("Hello World", "o", "0")')).to.equal('Hell0 W0rld');
      expect(value('apoc.text.regreplace("a1b22c", "[0-9]+", "#")')).to.equal('a#b#c');
      expect(value('apoc.text.replace("John Smith", "(\\\\w+) (\\\\w+)", "$2, $1")')).to.equal('Smith, John');
      expect(value('apoc.text.split("a, b,c", ",\\\\s*")')).to.deep.equal(['a', 'b', 'c']);
      expect(value('apoc.text.split("a,b,,", ",")')).to.deep.equal(['a', 'b']);
      expect(value('apoc.text.split("a,b,c", ",", 2)')).to.deep.equal(['a', 'b,c']);
      expect(value('apoc.text.split(",a", ",")')).to.deep.equal(['', 'a']);
    });

    it('changes case as APOC does (snakeCase joins with "-", as APOC documents)', () => {
      expect(value('apoc.text.capitalize("neo4j")')).to.equal('Neo4j');
      expect(value('apoc.text.capitalizeAll("graph data base")')).to.equal('Graph Data Base');
      expect(value('apoc.text.decapitalize("Neo4j")')).to.equal('neo4j');
      expect(value('apoc.text.camelCase("FOO_BAR baz")')).to.equal('fooBarBaz');
      expect(value('apoc.text.upperCamelCase("foo bar")')).to.equal('FooBar');
      expect(value('apoc.text.snakeCase("test Snake Case")')).to.equal('test-snake-case');
      expect(value('apoc.text.snakeCase("FOO_BAR")')).to.equal('foo-bar');
      expect(value('apoc.text.snakeCase("fooBar")')).to.equal('foo-bar');
    });

    it('cleans, compares and measures distances', () => {
      expect(value('apoc.text.clean("$-Hello___Wörld!")')).to.equal('hellowoerld');
      expect(value('apoc.text.clean("Café")')).to.equal('cafe');
      expect(value('apoc.text.compareCleaned("Hello World!", "hello-world")')).to.equal(true);
      expect(value('apoc.text.levenshteinDistance("kitten", "sitting")')).to.equal(3);
      expect(value('apoc.text.distance("kitten", "sitting")')).to.equal(3);
      expect(value('apoc.text.levenshteinSimilarity("kitten", "sitting")')).to.be.closeTo(4 / 7, 1e-12);
      expect(value('apoc.text.levenshteinSimilarity("", "")')).to.equal(1);
      // APOC's documented outputs (1 - commons-text's Jaro-Winkler similarity).
      expect(value('apoc.text.jaroWinklerDistance("Neo4j", "Neo4j")')).to.equal(0);
      expect(value('apoc.text.jaroWinklerDistance("Neo4j", "Neoj4")')).to.be.closeTo(0.046666666666666745, 1e-15);
      expect(value('apoc.text.jaroWinklerDistance("Neo4j Aura", "Neo4j Graph Database")')).to.be.closeTo(0.15999999999999992, 1e-15);
      expect(value('apoc.text.jaroWinklerDistance(null, "a")')).to.equal(null);
      expect(value('apoc.text.sorensenDiceSimilarity("night", "nacht")')).to.equal(0.25);
      expect(value('apoc.text.sorensenDiceSimilarity("ab cd", "ab")')).to.be.closeTo(2 / 3, 1e-15);
      expect(value('apoc.text.sorensenDiceSimilarity("Hello", " hello", "en")')).to.equal(1);
      expect(value('apoc.text.sorensenDiceSimilarity("a", null)')).to.equal(null);
    });

    it('pads, formats, slugs, finds and repeats', () => {
      expect(value('apoc.text.lpad("12", 5, "0")')).to.equal('00012');
      expect(value('apoc.text.rpad("ab", 4)')).to.equal('ab  ');
      expect(value('apoc.text.lpad("abcdef", 3)')).to.equal('abcdef');
      expect(value('apoc.text.format("%s has %d items", ["cart", 3])')).to.equal('cart has 3 items');
      expect(value('apoc.text.slug(" Hello, World! ")')).to.equal('Hello-World-');
      expect(value('apoc.text.slug("a b", "_")')).to.equal('a_b');
      expect(value('apoc.text.indexOf("Hello World!", "World")')).to.equal(6);
      expect(value('apoc.text.indexOf("The quick brown fox.", " ", 4)')).to.equal(9);
      expect(value('apoc.text.indexOf("abc", "c", 0, 2)')).to.equal(-1);
      expect(value('apoc.text.indexesOf("banana", "a")')).to.deep.equal([1, 3, 5]);
      expect(value('apoc.text.indexesOf("banana", "a", 2, 5)')).to.deep.equal([3]);
      expect(value('apoc.text.repeat("ab", 3)')).to.equal('ababab');
    });

    it('answers null for a null text', () => {
      for (const f of ['join(null, ",")', 'replace(null, "a", "b")', 'split(null, ",")', 'capitalize(null)', 'camelCase(null)', 'clean(null)', 'levenshteinDistance(null, "a")', 'lpad(null, 3)', 'format(null, [])', 'slug(null)', 'indexOf(null, "a")']) {
        expect(value(`apoc.text.${f}`), f).to.equal(null);
      }
      expect(value('apoc.text.compareCleaned(null, "a")')).to.equal(false);
      expect(value('apoc.text.indexOf("abc", null)')).to.equal(-1);
    });
  });

  describe('apoc.map', () => {
    it('builds and merges maps', () => {
      expect(value('apoc.map.merge({a: 1, b: 2}, {b: 3, c: 4})')).to.deep.equal({ a: 1, b: 3, c: 4 });
      expect(value('apoc.map.merge(null, {a: 1})')).to.deep.equal({ a: 1 });
      expect(value('apoc.map.mergeList([{a: 1}, {a: 2, b: 3}])')).to.deep.equal({ a: 2, b: 3 });
      expect(value('apoc.map.fromPairs([["a", 1], ["b", 2]])')).to.deep.equal({ a: 1, b: 2 });
      expect(value('apoc.map.fromLists(["a", "b"], [1, 2])')).to.deep.equal({ a: 1, b: 2 });
      expect(value('apoc.map.fromValues(["a", 1, "b", 2])')).to.deep.equal({ a: 1, b: 2 });
      expect(value('apoc.map.setKey({a: 1}, "b", 2)')).to.deep.equal({ a: 1, b: 2 });
      expect(value('apoc.map.setEntry(null, "b", 2)')).to.deep.equal({ b: 2 });
      expect(cypherFailure(() => value('apoc.map.fromLists(["a"], [1, 2])')).message).to.include('keys and values lists have to be of equal size');
    });

    it('removes, cleans, flattens and picks keys', () => {
      expect(value('apoc.map.removeKey({a: 1, b: 2}, "a")')).to.deep.equal({ b: 2 });
      expect(value('apoc.map.removeKeys({a: 1, b: 2, c: {a: 3}}, ["a"], {recursive: true})')).to.deep.equal({ b: 2, c: {} });
      expect(value('apoc.map.clean({a: 1, b: null, c: "", d: 2}, ["a"], [""])')).to.deep.equal({ d: 2 });
      expect(value('apoc.map.flatten({a: {b: {c: 1}}, d: 2})')).to.deep.equal({ 'a.b.c': 1, d: 2 });
      expect(value('apoc.map.flatten({a: {b: 1}}, "_")')).to.deep.equal({ a_b: 1 });
      expect(value('apoc.map.unflatten({`a.b.c`: 1, d: 2})')).to.deep.equal({ a: { b: { c: 1 } }, d: 2 });
      expect(value('apoc.map.values({a: 1, b: 2}, ["b", "x"])')).to.deep.equal([2]);
      expect(value('apoc.map.values({a: 1, b: 2}, ["b", "x"], true)')).to.deep.equal([2, null]);
      expect(value('apoc.map.submap({a: 1, b: 2}, ["a"])')).to.deep.equal({ a: 1 });
      expect(value('apoc.map.submap({a: 1}, ["a", "z"], [0, 9])')).to.deep.equal({ a: 1, z: 9 });
      expect(cypherFailure(() => value('apoc.map.submap({a: 1}, ["z"])')).message).to.include('Key z is not of one of the existing keys [a]');
    });

    it('groups a list of maps by a key', () => {
      const people = '[{name: "a", city: "x"}, {name: "b", city: "y"}, {name: "c", city: "x"}, {name: "d"}]';
      expect(value(`apoc.map.groupBy(${people}, "city")`)).to.deep.equal({ x: { name: 'c', city: 'x' }, y: { name: 'b', city: 'y' } });
      expect(value(`apoc.map.groupByMulti(${people}, "city")`)).to.deep.equal({
        x: [{ name: 'a', city: 'x' }, { name: 'c', city: 'x' }],
        y: [{ name: 'b', city: 'y' }],
      });
    });
  });

  describe('apoc.convert and apoc.util hashes', () => {
    it('writes and reads JSON as APOC does', () => {
      expect(value('apoc.convert.toJson({a: 1, b: [1.0, "x", null], c: true})')).to.equal('{"a":1,"b":[1.0,"x",null],"c":true}');
      expect(value('apoc.convert.toJson(null)')).to.equal('null');
      expect(value('apoc.convert.fromJsonMap(\'{"a": 1, "b": [2, "x"]}\')')).to.deep.equal({ a: 1, b: [2, 'x'] });
      expect(value('apoc.convert.fromJsonList("[1, 2.5]")')).to.deep.equal([1, 2.5]);
      expect(value('apoc.convert.fromJsonMap(null)')).to.equal(null);
      expect(value('apoc.convert.toMap({a: 1})')).to.deep.equal({ a: 1 });
      expect(cypherFailure(() => value('apoc.convert.fromJsonMap("[1]")')).message).to.include('expected a JSON object');
      expect(cypherFailure(() => value('apoc.convert.fromJsonMap("{", "$.a")')).message).to.include('a JSON path');
    });

    it('writes a node as APOC shapes it', () => {
      const { rows } = cypherGraph();
      const [[json]] = rows('CREATE (n:Person {name: "Ann"}) RETURN apoc.convert.toJson(n)') as [[string]];
      expect(JSON.parse(json)).to.deep.include({ type: 'node', labels: ['Person'], properties: { name: 'Ann' } });
      expect(rows('MATCH (n:Person) RETURN apoc.convert.toMap(n)')).to.deep.equal([[{ name: 'Ann' }]]);
    });

    it('hashes the values joined as text', () => {
      const hex = (algorithm: string, text: string) => createHash(algorithm).update(text).digest('hex');
      expect(value('apoc.util.md5(["ab", 1, null, 2.5])')).to.equal(hex('md5', 'ab12.5'));
      expect(value('apoc.util.sha1(["x"])')).to.equal(hex('sha1', 'x'));
      expect(value('apoc.util.sha256(["x", true])')).to.equal(hex('sha256', 'xtrue'));
    });
  });

  describe('apoc.date', () => {
    it('formats and parses epoch times in a unit, UTC unless a zone is named', () => {
      expect(value('apoc.date.format(0)')).to.equal('1970-01-01 00:00:00');
      expect(value('apoc.date.format(1700000000, "s", "yyyy-MM-dd HH:mm")')).to.equal('2023-11-14 22:13');
      expect(value('apoc.date.format(1700000000, "s", "yyyy-MM-dd HH:mm", "Europe/Paris")')).to.equal('2023-11-14 23:13');
      expect(value('apoc.date.format(19675, "d", "yyyy-MM-dd")')).to.equal('2023-11-14');
      expect(value('apoc.date.parse("2023-11-14 22:13:20", "s")')).to.equal(1700000000);
      expect(value('apoc.date.parse("2023-11-14 23:13:20", "s", "yyyy-MM-dd HH:mm:ss", "Europe/Paris")')).to.equal(1700000000);
      expect(value('apoc.date.parse("2023-11-14", "ms", "yyyy-MM-dd")')).to.equal(1699920000000);
      expect(value('apoc.date.toISO8601(1700000000123)')).to.equal('2023-11-14T22:13:20.123Z');
      expect(value('apoc.date.fromISO8601("2023-11-14T22:13:20.123Z")')).to.equal(1700000000123);
      expect(value('apoc.date.currentTimestamp()')).to.be.a('number');
      for (const f of ['format(null)', 'parse(null)', 'toISO8601(null)', 'fromISO8601(null)']) expect(value(`apoc.date.${f}`), f).to.equal(null);
      expect(cypherFailure(() => value('apoc.date.format(1, "weeks")')).message).to.include('The unit: weeks is not correct');
    });
  });

  describe('apoc.create', () => {
    it('creates nodes and relationships with labels and types chosen at run time', () => {
      const { rows, run } = cypherGraph();
      const created = run('CALL apoc.create.node(["Person", $l], {name: "Ann", age: null}) YIELD node RETURN node', { l: 'Author' });
      expect(created.rows[0]![0]).to.deep.include({ labels: ['Person', 'Author'] });
      expect(rows('MATCH (n:Person:Author) RETURN n.name, keys(n)')).to.deep.equal([['Ann', ['name']]]);
      rows('CALL apoc.create.nodes(["City"], [{name: "Oslo"}, {name: "Rome"}]) YIELD node RETURN count(node)');
      const rel = rows('MATCH (a:Person), (c:City {name: "Oslo"}) CALL apoc.create.relationship(a, $type, {since: 2020}, c) YIELD rel RETURN rel', { type: 'LIVES_IN' });
      expect(rel[0]![0]).to.deep.include({ type: 'LIVES_IN' });
      expect(rows('MATCH (:Person)-[r:LIVES_IN]->(c:City) RETURN c.name, r.since')).to.deep.equal([['Oslo', 2020]]);
      expect(rows('MATCH (c:City) RETURN count(c)')).to.deep.equal([[2]]);
    });

    it('sets and removes properties and labels by name', () => {
      const { rows } = cypherGraph();
      rows('CREATE (:A:B {x: 1})-[:R]->(:C)');
      rows('MATCH (n:A) CALL apoc.create.setProperty(n, "y", 2) YIELD node RETURN node');
      rows('MATCH (n:A) CALL apoc.create.setProperties([n], ["z", "x"], [3, null]) YIELD node RETURN node');
      expect(rows('MATCH (n:A) RETURN n.x, n.y, n.z')).to.deep.equal([[null, 2, 3]]);
      rows('MATCH (n:A) CALL apoc.create.removeProperties(n, ["y"]) YIELD node RETURN node');
      expect(rows('MATCH (n:A) RETURN keys(n)')).to.deep.equal([[['z']]]);
      rows('MATCH ()-[r:R]->() CALL apoc.create.setRelProperty(r, "w", "v") YIELD rel RETURN rel');
      expect(rows('MATCH ()-[r:R]->() RETURN r.w')).to.deep.equal([['v']]);
      rows('MATCH (n:A) CALL apoc.create.setLabels(n, ["B", "D"]) YIELD node RETURN node');
      expect(rows('MATCH (n:D) RETURN labels(n)')).to.deep.equal([[['B', 'D']]]);
      rows('MATCH (n:D) CALL apoc.create.removeLabels(n, ["B"]) YIELD node RETURN node');
      expect(rows('MATCH (n:D) RETURN labels(n)')).to.deep.equal([[['D']]]);
    });

    it('refuses a missing node, an empty type and mismatched lists by name', () => {
      const { rows } = cypherGraph();
      rows('CREATE (:A)');
      expect(cypherFailure(() => rows('MATCH (a:A) CALL apoc.create.relationship(a, "R", {}, null) YIELD rel RETURN rel')).message).to.include('the start (argument 1) and end (argument 4) must be nodes');
      expect(cypherFailure(() => rows('MATCH (a:A) CALL apoc.create.relationship(a, "", {}, a) YIELD rel RETURN rel')).message).to.include('the relationship type cannot be empty');
      expect(cypherFailure(() => rows('MATCH (a:A) CALL apoc.create.setProperties(a, ["x"], [1, 2]) YIELD node RETURN node')).message).to.include('must be lists of the same length');
      expect(rows('MATCH (n) RETURN count(n)')).to.deep.equal([[1]]);
    });
  });

  describe('apoc.when, apoc.do.when, apoc.case', () => {
    it('runs the text the condition chooses, with the parameters given, one value map per row', () => {
      const { rows } = cypherGraph();
      rows('CREATE (:P {name: "a"}), (:P {name: "b"})');
      expect(rows('UNWIND [true, false] AS c CALL apoc.when(c, "MATCH (p:P) RETURN p.name AS name ORDER BY name", "RETURN $x AS name", {x: "none"}) YIELD value RETURN c, value.name')).to.deep.equal([
        [true, 'a'],
        [true, 'b'],
        [false, 'none'],
      ]);
      expect(rows('CALL apoc.when(false, "RETURN 1 AS x") YIELD value RETURN value')).to.deep.equal([]);
      expect(rows('CALL apoc.when(true, "WITH 1 AS y RETURN y + 1 AS x") YIELD value RETURN value')).to.deep.equal([[{ x: 2 }]]);
      expect(rows('CALL apoc.case([false, "RETURN 1 AS x", true, "RETURN 2 AS x"], "RETURN 3 AS x") YIELD value RETURN value.x')).to.deep.equal([[2]]);
      expect(rows('CALL apoc.case([false, "RETURN 1 AS x"], "RETURN 3 AS x") YIELD value RETURN value.x')).to.deep.equal([[3]]);
    });

    it('writes in the outer query\'s transaction with apoc.do.when, and refuses writes in apoc.when', () => {
      const { rows, run } = cypherGraph();
      const r = run('UNWIND ["x", "y"] AS name CALL apoc.do.when(name = "x", "CREATE (n:T {name: $n}) RETURN n.name AS made", "", {n: name}) YIELD value RETURN value.made');
      expect(r.rows).to.deep.equal([['x']]);
      expect(rows('MATCH (n:T) RETURN n.name')).to.deep.equal([['x']]);
      const err = cypherFailure(() => rows('CALL apoc.when(true, "CREATE (:T) RETURN 1 AS x") YIELD value RETURN value'));
      expect(err.message).to.include('Failed to invoke procedure `apoc.when`: Caused by: java.lang.RuntimeException: Write operations are not allowed in apoc.when: use apoc.do.when');
      expect(rows('MATCH (n:T) RETURN count(n)')).to.deep.equal([[1]]);
    });

    it('refuses a text that runs itself without end', () => {
      const q = 'CALL apoc.when(true, $q, "", {q: $q}) YIELD value RETURN value';
      expect(cypherFailure(() => cypherGraph().rows(q, { q })).message).to.include('the queries nest more than 32 levels deep');
    });
  });

  describe('over Bolt with neo4j-driver', () => {
    const server = useTestServer({}, 'all');

    it('creates with a dynamic type and counts the writes', async () => {
      const driver = neo4j.driver(`bolt://127.0.0.1:${server.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'));
      try {
        const made = await driver.executeQuery(
          'CALL apoc.create.node(["Doc"], {title: $t}) YIELD node AS d CALL apoc.create.node(["Tag"], {name: "x"}) YIELD node AS t CALL apoc.create.relationship(d, $type, {}, t) YIELD rel RETURN type(rel) AS type, apoc.text.join([d.title, t.name], "/") AS path',
          { t: 'Intro', type: 'TAGGED' },
        );
        expect(made.records.map((r) => [r.get('type'), r.get('path')])).to.deep.equal([['TAGGED', 'Intro/x']]);
        const counters = made.summary.counters.updates();
        expect([counters.nodesCreated, counters.relationshipsCreated, counters.labelsAdded, counters.propertiesSet]).to.deep.equal([2, 1, 2, 2]);
        const read = await driver.executeQuery('MATCH (:Doc)-[r:TAGGED]->(t:Tag) RETURN apoc.map.merge(properties(t), {n: 1}) AS m');
        expect(read.records[0]!.get('m')).to.deep.equal({ name: 'x', n: neo4j.int(1) });
        const when = await driver.executeQuery('MATCH (d:Doc) CALL apoc.do.when(d.title = $t, "CREATE (:Note {on: $t}) RETURN 1 AS made", "", {t: d.title}) YIELD value RETURN value.made AS made', { t: 'Intro' });
        expect(when.records.map((r) => r.get('made'))).to.deep.equal([neo4j.int(1)]);
        expect(when.summary.counters.updates().nodesCreated).to.equal(1);
        expect((await driver.executeQuery('MATCH (n:Note) RETURN n.on AS on')).records.map((r) => r.get('on'))).to.deep.equal(['Intro']);
      } finally {
        await driver.close();
      }
    });
  });
});
