import { expect } from 'chai';
import { CypherError } from '../../../query/cypher/errors.js';
import { parseQuery } from '../../../query/cypher/parser.js';

function syntaxError(text: string): CypherError {
  try {
    parseQuery(text);
  } catch (err) {
    expect(err).to.be.instanceOf(CypherError);
    return err as CypherError;
  }
  return expect.fail(`parsed: ${text}`);
}

describe('query/cypher parser', () => {
  it('builds clauses, patterns and projections with source positions and column names as written', () => {
    const q = parseQuery('MATCH p = (a:A:B {x: 1})-[r:T|U*2..]->(b), (c)\nWHERE a.x > 1\nRETURN DISTINCT a.x AS x, cOuNt( * ) ORDER BY x DESC SKIP 1 LIMIT $n');
    expect(q.clauses.map((c) => c.kind)).to.deep.equal(['match', 'return']);
    const match = q.clauses[0]!;
    if (match.kind !== 'match') throw new Error('not a match');
    const [part, second] = match.patterns;
    expect(part!.pathVariable).to.equal('p');
    expect(part!.nodes[0]).to.include({ variable: 'a' });
    expect(part!.nodes[0]!.labels).to.deep.equal(['A', 'B']);
    expect(part!.rels[0]).to.deep.include({ variable: 'r', types: ['T', 'U'], direction: 'out', length: { min: 2, max: Infinity } });
    expect(second!.nodes[0]!.variable).to.equal('c');
    expect(match.where!.pos).to.deep.equal({ line: 2, column: 7 });
    const ret = q.clauses[1]!;
    if (ret.kind !== 'return') throw new Error('not a return');
    expect(ret.projection.distinct).to.equal(true);
    expect(ret.projection.items.map((i) => i.name)).to.deep.equal(['x', 'cOuNt( * )']);
    expect(ret.projection.orderBy[0]!.descending).to.equal(true);
    expect(ret.projection.limit).to.deep.include({ kind: 'param', name: 'n' });
  });

  it('reads every relationship shape and length form', () => {
    const rels = (p: string) => {
      const c = parseQuery(`MATCH ${p} RETURN 1`).clauses[0]!;
      return c.kind === 'match' ? c.patterns[0]!.rels.map((r) => [r.direction, r.length]) : [];
    };
    expect(rels('(a)-->(b)<--(c)--(d)<-->(e)')).to.deep.equal([['out', null], ['in', null], ['both', null], ['both', null]]);
    expect(rels('(a)-[*]->(b)-[*3]-(c)<-[*..5]-(d)-[*0..1]->(e)')).to.deep.equal([
      ['out', { min: 1, max: Infinity }], ['both', { min: 3, max: 3 }], ['in', { min: 1, max: 5 }], ['out', { min: 0, max: 1 }],
    ]);
  });

  it('follows openCypher precedence: OR < AND < NOT < comparison < IN/STARTS WITH/IS NULL < arithmetic', () => {
    const ret = parseQuery('RETURN NOT a = b OR c AND d IS NULL, 1 + 2 * 3 IN [7], n.embedding <-> $q < 0.5').clauses[0]!;
    if (ret.kind !== 'return') throw new Error('not a return');
    const [first, second, third] = ret.projection.items.map((i) => i.expr);
    expect(first).to.deep.include({ kind: 'binary', op: 'or' });
    expect(second).to.deep.include({ kind: 'binary', op: 'in' });
    expect(third).to.deep.include({ kind: 'compare', ops: ['<'] });
  });

  it('names line, column and what was expected in a syntax error', () => {
    const e = syntaxError('MATCH (n\nRETURN n');
    expect(e.message).to.match(/line 2, column 1/).and.match(/expected/).and.match(/'RETURN'/);
    expect(syntaxError('MATCH (n) RETURN').message).to.match(/expected an expression but found the end of the query/);
    expect(syntaxError('MATCH (n) WHERE RETURN n').message).to.match(/line 1, column 17: expected an expression but found 'RETURN'/);
    expect(syntaxError('RETURN 1 2').message).to.match(/column 10: expected a clause .* but found '2'/);
  });

  it('says LOAD CSV and LOOKUP indexes are unsupported', () => {
    for (const [text, word] of [['LOAD CSV FROM "x" AS row RETURN row', 'LOAD'], ['CREATE LOOKUP INDEX t FOR (n) ON EACH labels(n)', 'LOOKUP indexes (every label is looked up by the label index already)']]) {
      const e = syntaxError(text!);
      expect(e.code).to.equal(400);
      expect(e.message).to.include(`${word} is not supported`);
    }
  });

  it('parses procedure calls with YIELD, subqueries, and schema commands as procedures of their own', () => {
    const standalone = parseQuery('CALL db.index.vector.queryNodes("v", 3, $q)').clauses[0]!;
    expect(standalone).to.deep.include({ kind: 'procedure', name: 'db.index.vector.querynodes', yields: null, standalone: true });
    const inQuery = parseQuery('MATCH (n) CALL apoc.create.addLabels(n, ["X"]) YIELD node AS m WHERE m.x = 1 RETURN m').clauses[1]!;
    if (inQuery.kind !== 'procedure') throw new Error('not a procedure');
    expect(inQuery.standalone).to.equal(false);
    expect(inQuery.yields).to.deep.equal([{ name: 'node', alias: 'm' }]);
    expect(inQuery.where).to.not.equal(null);
    const sub = parseQuery('UNWIND [1] AS x CALL { WITH x CREATE (:A {x: x}) } IN TRANSACTIONS OF 100 ROWS RETURN x').clauses[1]!;
    if (sub.kind !== 'subquery') throw new Error('not a subquery');
    expect(sub.body.map((c) => c.kind)).to.deep.equal(['with', 'create']);
    const index = parseQuery('CREATE VECTOR INDEX v IF NOT EXISTS FOR (n:Doc) ON (n.embedding) OPTIONS {indexConfig: {`vector.dimensions`: 3}}').clauses[0]!;
    if (index.kind !== 'procedure') throw new Error('not a procedure');
    expect(index.name).to.equal('$create.index');
    expect(index.args.slice(0, 3).map((a) => (a.kind === 'literal' ? a.value : a.kind))).to.deep.equal(['v', 'VECTOR', 'Doc']);
    const constraint = parseQuery('CREATE CONSTRAINT FOR (p:Person) REQUIRE (p.a, p.b) IS NODE KEY').clauses[0]!;
    if (constraint.kind !== 'procedure') throw new Error('not a procedure');
    expect(constraint.args[1]).to.deep.include({ kind: 'literal', value: 'NODE_KEY' });
    expect(parseQuery('SHOW VECTOR INDEXES YIELD name').clauses[0]).to.deep.include({ kind: 'procedure', name: '$show.indexes' });
    expect(parseQuery('DROP CONSTRAINT c IF EXISTS').clauses[0]).to.deep.include({ kind: 'procedure', name: '$drop.constraint' });
    const union = parseQuery('CALL { MATCH (n) RETURN n UNION ALL MATCH (n) RETURN n } RETURN n').clauses[0]!;
    if (union.kind !== 'subquery') throw new Error('not a subquery');
    expect(union.unions.map((u) => u.all)).to.deep.equal([true]);
    const fulltext = parseQuery('CREATE FULLTEXT INDEX words FOR (n:Doc) ON EACH [n.title, n.body]').clauses[0]!;
    if (fulltext.kind !== 'procedure') throw new Error('not a procedure');
    expect(fulltext.args[3]).to.deep.include({ kind: 'list' });
  });
});
