import { expect } from 'chai';
import { CypherError } from '../../../query/cypher/errors.js';
import { tokenize } from '../../../query/cypher/lexer.js';

const kinds = (text: string) => tokenize(text).map((t) => `${t.kind}:${t.value}`);

describe('query/cypher lexer', () => {
  it('reads names, backquoted names, numbers, strings, parameters and operators with positions', () => {
    expect(kinds("MATCH (`my var`:Person {age: 4.5e1})<-[:KNOWS*1..3]-(b) WHERE b.name <> 'it''s' AND $p")).to.deep.equal([
      'ident:MATCH', 'op:(', 'ident:my var', 'op::', 'ident:Person', 'op:{', 'ident:age', 'op::', 'float:4.5e1', 'op:}', 'op:)',
      'op:<-', 'op:[', 'op::', 'ident:KNOWS', 'op:*', 'int:1', 'op:..', 'int:3', 'op:]', 'op:-', 'op:(', 'ident:b', 'op:)',
      'ident:WHERE', 'ident:b', 'op:.', 'ident:name', 'op:<>', 'string:it', 'string:s', 'ident:AND', 'param:p', 'eof:',
    ]);
    const t = tokenize('RETURN\n  n.x')[1]!;
    expect([t.line, t.column, t.offset]).to.deep.equal([2, 3, 9]);
  });

  it('tells the vector operator from arrows and unescapes strings', () => {
    expect(kinds('n.embedding <-> $q')).to.include('op:<->');
    expect(kinds('(a)<-->(b)').slice(3, 5)).to.deep.equal(['op:<-', 'op:->']);
    expect(tokenize(String.raw`'a\tb\u00e9\'' "x\"y"`).slice(0, 2).map((t) => t.value)).to.deep.equal(["a\tb\u00e9'", 'x"y']);
    expect(kinds('.5 1e3 -.1E-5')).to.deep.equal(['float:.5', 'float:1e3', 'op:-', 'float:.1E-5', 'eof:']);
  });

  it('drops line and block comments', () => {
    expect(kinds('RETURN 1 // one\n/* two\n lines */ AS x')).to.deep.equal(['ident:RETURN', 'int:1', 'ident:AS', 'ident:x', 'eof:']);
  });

  it('refuses bad literals with the openCypher error and the place', () => {
    const fails = (text: string, detail: string, column: number) => {
      try {
        tokenize(text);
      } catch (err) {
        expect(err).to.be.instanceOf(CypherError);
        expect((err as CypherError).detail).to.equal(detail);
        expect((err as CypherError).position?.column).to.equal(column);
        expect((err as CypherError).code).to.equal(400);
        return;
      }
      expect.fail(`${text} was accepted`);
    };
    fails("RETURN '\\uH'", 'InvalidUnicodeLiteral', 8);
    fails('RETURN 1.34E999', 'FloatingPointOverflow', 8);
    fails('RETURN 9223372h54775808', 'InvalidNumberLiteral', 8);
    fails('RETURN {1B2c3e67:1}', 'UnexpectedSyntax', 9);
    fails('RETURN {a: 1, 2: 3}', 'UnexpectedSyntax', 15);
    fails('RETURN [1, 2B]', 'InvalidNumberLiteral', 12);
    fails('RETURN 9223372036854775809', 'IntegerOverflow', 8);
    fails('RETURN 42 — 41', 'InvalidUnicodeCharacter', 11);
    fails("RETURN 'open", 'UnexpectedSyntax', 8);
    fails('RETURN 1 /* open', 'UnexpectedSyntax', 10);
    fails('RETURN #', 'UnexpectedSyntax', 8);
  });
});
