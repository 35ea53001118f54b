import { expect } from 'chai';
import { cypherFailure as fails, cypherGraph } from '../../helpers/cypher-graph.js';
import { WholeFloat } from '../../../query/cypher/numbers.js';
import { formatTemporal } from '../../../query/cypher/temporal/format.js';
import { isTemporal } from '../../../query/cypher/temporal/types.js';
import { compileQuery } from '../../../query/cypher/run-query.js';

type Rows = ReturnType<typeof cypherGraph>['rows'];

/** The single value of a one-row, one-column query (a temporal as its text). */
function value(run: Rows, text: string, params?: Record<string, unknown>): unknown {
  const v = run(text, params)[0]![0];
  return isTemporal(v) ? formatTemporal(v) : v;
}


describe('query/cypher functions and expressions as Neo4j 5 has them', () => {
  const run = cypherGraph().rows;
  const one = (text: string, params?: Record<string, unknown>) => value(run, `RETURN ${text} AS v`, params);

  it('has timestamp(), randomUUID(), isEmpty(), isNaN(), char_length(), lower() and upper()', () => {
    const before = Date.now();
    const [[ts, millis]] = run('RETURN timestamp(), datetime().epochMillis') as [[number, number]];
    expect(ts).to.be.within(before, Date.now()).and.equal(millis);
    const [[a, b]] = run('RETURN randomUUID() AS a, randomUUID() AS b') as [[string, string]];
    expect(a).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/).and.not.equal(b);
    expect(run("RETURN isEmpty(''), isEmpty('a'), isEmpty([]), isEmpty([null]), isEmpty({}), isEmpty({a: 1}), isEmpty(null)")).to.deep.equal([[true, false, true, false, true, false, null]]);
    expect(fails(() => run('RETURN isEmpty(1)')).detail).to.equal('InvalidArgumentType');
    expect(run('RETURN isNaN(0 / 0.0), isNaN(1.5), isNaN(1), isNaN(null)')).to.deep.equal([[true, false, false, null]]);
    expect(run("RETURN char_length('Alice'), character_length('😀b'), lower('HeLLo'), upper('hello'), char_length(null)")).to.deep.equal([[5, 2, 'hello', 'HELLO', null]]);
  });

  it('converts with the OrNull and List forms, and toBoolean() takes integers', () => {
    expect(run("RETURN toIntegerOrNull('42'), toIntegerOrNull('x'), toIntegerOrNull(true), toIntegerOrNull(['A']), toIntegerOrNull(1.9)")).to.deep.equal([[42, null, 1, null, 1]]);
    expect(value(run, "RETURN toFloatOrNull('11.5')")).to.equal(11.5);
    expect(run('RETURN toFloatOrNull(true), toStringOrNull([1]), toBooleanOrNull(1.5)')).to.deep.equal([[null, null, null]]);
    expect(run("RETURN toStringOrNull(11.5), toStringOrNull(true), toBooleanOrNull('TRUE'), toBooleanOrNull(0), toBoolean(7)")).to.deep.equal([['11.5', 'true', true, false, true]]);
    expect(run("RETURN toIntegerList(['a string', 2, '5', null, ['A','B']]), toBooleanList(['a', true, 'false', null, 0])")).to.deep.equal([[[null, 2, 5, null, null], [null, true, false, null, false]]]);
    expect(run("RETURN toFloatList(['a', 2, '3.5', null]) AS l, valueType(toFloatList([2])) AS t")).to.deep.equal([[[null, 2, 3.5, null], 'LIST<FLOAT NOT NULL> NOT NULL']]);
    expect(value(run, "RETURN toStringList(['x', 2, date('1955-11-05'), null, ['A']])")).to.deep.equal(['x', '2', '1955-11-05', null, null]);
    expect(run('RETURN toIntegerList(null)')).to.deep.equal([[null]]);
    expect(fails(() => run('RETURN toIntegerList(1)')).kind).to.equal('TypeError');
    expect(fails(() => run('RETURN toBoolean(1.0)')).message).to.match(/^TypeError \(InvalidArgumentValue\)/);
  });

  it('answers valueType() in Neo4j\'s normalised type names', () => {
    const cases: [string, string][] = [
      ['1', 'INTEGER NOT NULL'],
      ['1.5', 'FLOAT NOT NULL'],
      ["'a'", 'STRING NOT NULL'],
      ['null', 'NULL'],
      ['[1, 2]', 'LIST<INTEGER NOT NULL> NOT NULL'],
      ["[1, 'a']", 'LIST<STRING NOT NULL | INTEGER NOT NULL> NOT NULL'],
      ['[]', 'LIST<NOTHING> NOT NULL'],
      ['[1, null]', 'LIST<INTEGER> NOT NULL'],
      ['[null]', 'LIST<NULL> NOT NULL'],
      ['[[1], [\'a\']]', 'LIST<LIST<STRING NOT NULL> NOT NULL | LIST<INTEGER NOT NULL> NOT NULL> NOT NULL'],
      ['[[1, null], [1]]', 'LIST<LIST<INTEGER> NOT NULL> NOT NULL'],
      ['[[], [1]]', 'LIST<LIST<INTEGER NOT NULL> NOT NULL> NOT NULL'],
      ['[1.5, 2]', 'LIST<INTEGER NOT NULL | FLOAT NOT NULL> NOT NULL'],
      ['{a: 1}', 'MAP NOT NULL'],
      ['[date()]', 'LIST<DATE NOT NULL> NOT NULL'],
      ['datetime()', 'ZONED DATETIME NOT NULL'],
      ['localtime()', 'LOCAL TIME NOT NULL'],
      ["duration('P1D')", 'DURATION NOT NULL'],
      ['point({x: 1, y: 2})', 'POINT NOT NULL'],
    ];
    for (const [expr, type] of cases) expect(one(`valueType(${expr})`), expr).to.equal(type);
    run('CREATE (:V)-[:R]->(:V)');
    expect(run('MATCH p = (a:V)-[r]->() RETURN valueType(a), valueType(r), valueType(p)')).to.deep.equal([['NODE NOT NULL', 'RELATIONSHIP NOT NULL', 'PATH NOT NULL']]);
  });

  it('trims the given characters, normalizes to each normal form, and splits at a list of delimiters', () => {
    expect(run("RETURN btrim('   hello    '), btrim('xxyyhelloxyxy', 'xy'), ltrim('xxyyhelloxyxy', 'xy'), rtrim('xxyyhelloxyxy', 'xy'), btrim('😀a😀', '😀')")).to.deep.equal([['hello', 'hello', 'helloxyxy', 'xxyyhello', 'a']]);
    expect(run("RETURN ltrim('  a'), rtrim('a  '), btrim('a', null), btrim(null, 'x')")).to.deep.equal([['a', 'a', null, null]]);
    expect(run("RETURN trim(BOTH 'x' FROM 'xxaxx'), trim(LEADING 'x' FROM 'xxaxx'), trim(TRAILING 'x' FROM 'xxaxx'), trim('x' FROM 'xax'), trim(LEADING FROM '  a  '), trim(FROM ' a ')")).to.deep.equal([['a', 'axx', 'xxa', 'a', 'a  ', 'a']]);
    // A variable called `both` is still one, but for the word the form has before FROM.
    expect(run("WITH '  b ' AS both RETURN trim(both), trim(both FROM 'xbothx')")).to.deep.equal([['b', 'xbothx']]);
    expect(run("RETURN normalize('\\u212B') = '\\u00C5', normalize('\\uFE64', NFKC) = '<', normalize('\\u03D3', NFD) = '\\u03D2\\u0301', normalize('\\u03D3', nfkd) = '\\u03A5\\u0301', normalize(null)")).to.deep.equal([[true, true, true, true, null]]);
    expect(fails(() => run("RETURN normalize('a', 'NFX')")).kind).to.equal('ArgumentError');
    expect(run("RETURN split('a,b;c', [',', ';']), split('', ','), split('a,b', [',', null])")).to.deep.equal([[['a', 'b', 'c'], [''], null]]);
  });

  it('rounds with a precision and each of Neo4j\'s rounding modes', () => {
    expect(run('RETURN round(3.141592), round(-1.5), round(-1.5, 0), round(-1.55, 1), round(3.141592, 3), round(2.5), round(-0.4), valueType(round(2)), toString(round(-0.4))')).to.deep.equal([[3, -1, -1, -1.6, 3.142, 3, 0, 'FLOAT NOT NULL', '0.0']]);
    const modes: Record<string, number[]> = {
      UP: [1.3, -1.3, 1.3, -1.4],
      DOWN: [1.2, -1.2, 1.2, -1.3],
      CEILING: [1.3, -1.2, 1.3, -1.3],
      FLOOR: [1.2, -1.3, 1.2, -1.4],
      HALF_UP: [1.2, -1.3, 1.3, -1.4],
      HALF_DOWN: [1.2, -1.3, 1.2, -1.3],
      HALF_EVEN: [1.2, -1.3, 1.2, -1.4],
    };
    for (const [mode, want] of Object.entries(modes)) {
      expect(run(`RETURN round(1.249, 1, '${mode}'), round(-1.251, 1, '${mode}'), round(1.25, 1, '${mode}'), round(-1.35, 1, '${mode}')`)[0], mode).to.deep.equal(want);
    }
    expect(run("RETURN round(2.5, 0, 'HALF_EVEN'), round(1.5, 0, 'HALF_DOWN'), round(1.0, 3, 'UNNECESSARY'), round(null, 1), round(1.5, 1, null)")).to.deep.equal([[2, 1, 1, null, null]]);
    expect(fails(() => run('RETURN round(1.5, -1)')).kind).to.equal('ArgumentError');
    expect(fails(() => run("RETURN round(1.5, 1, 'NEAREST')")).message).to.match(/HALF_UP/);
    expect(fails(() => run("RETURN round(1.25, 1, 'UNNECESSARY')")).kind).to.equal('ArgumentError');
  });

  it('sums and averages durations, and percentileDisc() answers one of its inputs (an INTEGER stays one)', () => {
    expect(value(run, "UNWIND [duration('P1D'), duration('PT12H'), duration('P1M')] AS d RETURN sum(d)")).to.equal('P1M1DT12H');
    expect(value(run, "UNWIND [duration('P2D'), duration('PT12H')] AS d RETURN avg(d)")).to.equal('P1DT6H');
    expect(fails(() => run("UNWIND [1, duration('P1D')] AS d RETURN sum(d)")).kind).to.equal('TypeError');
    expect(fails(() => run("UNWIND [duration('P1D'), 1] AS d RETURN avg(d)")).kind).to.equal('TypeError');
    expect(run('UNWIND [10, 20, 30, 40] AS x RETURN percentileDisc(x, 0.5), percentileDisc(x, 0), percentileDisc(x, 1), valueType(percentileDisc(x, 0.5))')).to.deep.equal([[20, 10, 40, 'INTEGER NOT NULL']]);
    expect(run('UNWIND [10.0, 20.0, 30.0] AS x RETURN percentileDisc(x, 0.5), valueType(percentileDisc(x, 0.5))')).to.deep.equal([[20, 'FLOAT NOT NULL']]);
    expect(value(run, 'UNWIND [10, 20, 30, 40] AS x RETURN percentileCont(x, 0.5)')).to.equal(25);
  });

  it('measures strings in code points: size, left, right, substring, reverse, split', () => {
    expect(run("RETURN size('😀'), size('a😀b'), left('😀bc', 1), right('ab😀', 1), substring('😀bc', 1), substring('a😀bc', 1, 2), reverse('a😀b'), split('😀😀', '')")).to.deep.equal([[1, 3, '😀', '😀', 'bc', '😀b', 'b😀a', ['😀', '😀']]]);
    expect(run("RETURN left('abc', 10), right('abc', 10), substring('abc', 5)")).to.deep.equal([['abc', 'abc', '']]);
  });

  it("matches =~ as Java does: '.' stops at line terminators, and inline flags work where JS can say them", () => {
    const matches = (s: string, p: string) => run('RETURN $s =~ $p', { s, p })[0]![0];
    expect(matches('a\nb', 'a.b')).to.equal(false);
    expect(matches('a\nb', '(?s)a.b')).to.equal(true);
    expect(matches('AbC', '(?i)abc')).to.equal(true);
    expect(matches('A\nB', '(?is)a.b')).to.equal(true);
    expect(matches('x\nfoo', '(?m)x$\\s^foo')).to.equal(true);
    expect(matches('x\nfoo', 'x$\\s^foo')).to.equal(false);
    expect(matches('abc', '(?x) a b # the rest\n c')).to.equal(true);
    expect(matches('a\nb', 'a(?s:.)b')).to.equal(true);
    expect(matches('a\nbc\nd', 'a(?s).b(?-s).c.d')).to.equal(false);
    expect(matches('a-b.c', 'a\\-b\\Q.\\Ec')).to.equal(true);
    expect(matches('😀', '.')).to.equal(true);
    for (const p of ['a(?i)bc', 'a++', '(?>a)', '[a[b]]']) {
      const err = fails(() => run('RETURN "abc" =~ $p', { p }));
      expect(err.kind, p).to.equal('ArgumentError');
      expect(err.message, p).to.include(JSON.stringify(p)).and.match(/cannot run/).and.not.include('/^(?:');
    }
    const bad = fails(() => run("RETURN 'a' =~ '(a'"));
    expect(bad.message).to.equal('ArgumentError (InvalidArgumentValue): invalid regular expression "(a": unterminated group');
  });

  it('refuses a float or negative SKIP/LIMIT parameter as Neo4j does (ArgumentError), saying how to send an integer', () => {
    const float = fails(() => run('UNWIND [1, 2, 3] AS x RETURN x LIMIT $l', { l: new WholeFloat(2) }));
    expect(float.kind).to.equal('ArgumentError');
    expect(float.message).to.include("LIMIT: Invalid input. '2.0' is not a valid value. Must be a non-negative integer.").and.include('neo4j.int(2)').and.include('toInteger($l)');
    expect(float.message).to.not.include('{"value"');
    const negative = fails(() => run('RETURN 1 SKIP $s', { s: -1 }));
    expect([negative.kind, negative.detail]).to.deep.equal(['ArgumentError', 'NegativeIntegerArgument']);
    expect(negative.message).to.include("SKIP: Invalid input. '-1' is not a valid value.");
    expect(run('UNWIND [1, 2, 3] AS x RETURN x LIMIT toInteger($l)', { l: new WholeFloat(2) })).to.deep.equal([[1], [2]]);
  });

  it('explains that ORDER BY after an aggregation or DISTINCT sees only the projected columns', () => {
    run("CREATE (:Person {name: 'A', born: 1970}), (:Person {name: 'B', born: 1960})");
    const err = fails(() => compileQuery('MATCH (p:Person) RETURN p.name, count(*) ORDER BY p.born'));
    expect(err.detail).to.equal('UndefinedVariable');
    expect(err.message).to.match(/`p` cannot be used here: after a RETURN with an aggregation, ORDER BY can only use the columns the RETURN projects/);
    expect(fails(() => compileQuery('MATCH (p:Person) RETURN DISTINCT p.name ORDER BY p.born')).message).to.match(/with DISTINCT/);
    expect(fails(() => compileQuery('MATCH (p:Person) WITH p.name AS name, count(*) AS c WHERE p.born > 1 RETURN name')).message).to.match(/its WHERE can only use the columns/);
    expect(run('MATCH (p:Person) RETURN p.name, count(*) ORDER BY p.name DESC')).to.deep.equal([['B', 1], ['A', 1]]);
    expect(run('MATCH (p:Person) RETURN p.born AS b, count(*) ORDER BY [x IN [b] | x][0]')).to.deep.equal([[1960, 1], [1970, 1]]);
    expect(fails(() => compileQuery('MATCH (p:Person) RETURN count(*) ORDER BY q')).message).to.match(/`q` is not defined/);
  });
});
