import { expect } from 'chai';
import { CypherError } from '../../../query/cypher/errors.js';
import { compileQuery } from '../../../query/cypher/run-query.js';

function detail(text: string): string {
  try {
    compileQuery(text);
  } catch (err) {
    expect(err).to.be.instanceOf(CypherError);
    return (err as CypherError).detail;
  }
  return 'accepted';
}

describe('query/cypher binder (semantic checks)', () => {
  it('accepts well-formed queries', () => {
    for (const q of [
      'MATCH (a)-[r:T]->(b) WHERE a.x = 1 RETURN a, r, b.name AS name ORDER BY name',
      'MATCH (a) WITH a, count(*) AS c WHERE c > 1 RETURN a.x, sum(c) ORDER BY sum(c)',
      'UNWIND [1, 2] AS x CREATE (:N {v: x})',
      'MATCH (a), (b) CREATE (a)-[:T {w: 1}]->(b) RETURN a',
      'MATCH (a) OPTIONAL MATCH (a)-[r]->() WITH a WHERE r IS NULL RETURN a',
    ]) expect(detail(q), q).to.equal('accepted');
  });

  it('finds undefined variables, also in ORDER BY after a projection dropped them', () => {
    expect(detail('MATCH (a) RETURN b')).to.equal('UndefinedVariable');
    expect(detail('MATCH (a), (b) WITH a RETURN b')).to.equal('UndefinedVariable');
    expect(detail('MATCH (a) RETURN a.x AS x ORDER BY a.y')).to.equal('accepted');
    expect(detail('MATCH (a) WITH a.x AS x RETURN x ORDER BY a.y')).to.equal('UndefinedVariable');
    expect(detail('MATCH (a) WITH count(*) AS c RETURN c ORDER BY a.y')).to.equal('UndefinedVariable');
  });

  it('keeps each variable one kind of thing', () => {
    expect(detail('MATCH ()-[r]->() MATCH (r) RETURN r')).to.equal('VariableTypeConflict');
    expect(detail('MATCH p = ()-->() MATCH (p) RETURN p')).to.equal('VariableTypeConflict');
    expect(detail('WITH 1 AS n MATCH (n) RETURN n')).to.equal('VariableTypeConflict');
    expect(detail('MATCH (a)-[r]->()-[r]->() RETURN r')).to.equal('RelationshipUniquenessViolation');
    expect(detail('MATCH p = (a) MATCH p = (b) RETURN p')).to.equal('VariableAlreadyBound');
  });

  it('applies the aggregation rules', () => {
    expect(detail('MATCH (n) WHERE count(n) > 1 RETURN n')).to.equal('InvalidAggregation');
    expect(detail('RETURN count(count(*))')).to.equal('NestedAggregation');
    expect(detail('MATCH (n) RETURN n.x ORDER BY count(*)')).to.equal('InvalidAggregation');
    expect(detail('MATCH (n) WITH n.x + 1 RETURN 1')).to.equal('NoExpressionAlias');
    expect(detail('RETURN 1 AS a, 2 AS a')).to.equal('ColumnNameConflict');
  });

  it('checks CREATE, DELETE, SKIP and LIMIT', () => {
    expect(detail('CREATE ()-[:A|B]->()')).to.equal('NoSingleRelationshipType');
    expect(detail('CREATE ()-[]->()')).to.equal('NoSingleRelationshipType');
    expect(detail('CREATE ()-[:T]-()')).to.equal('RequiresDirectedRelationship');
    expect(detail('CREATE ()-[:T*2]->()')).to.equal('CreatingVarLength');
    expect(detail('MATCH (a) CREATE (a:Again)')).to.equal('VariableAlreadyBound');
    expect(detail('MATCH (n) DELETE n:Person')).to.equal('InvalidDelete');
    expect(detail('MATCH (n) RETURN n LIMIT -1')).to.equal('NegativeIntegerArgument');
    expect(detail('MATCH (n) RETURN n SKIP 1.5')).to.equal('InvalidArgumentType');
    expect(detail('MATCH (n) RETURN n LIMIT n.x')).to.equal('NonConstantExpression');
    expect(detail('MATCH (n $props) RETURN n')).to.equal('InvalidParameterUse');
    expect(detail('RETURN NOT 1')).to.equal('InvalidArgumentType');
    expect(detail('MATCH (n) RETURN nope(n)')).to.equal('UnknownFunction');
  });
  it('checks what Neo4j checks before running: grouping keys beside aggregates, patterns used as values, argument kinds, bound relationships', () => {
    expect(detail('MATCH (me)--(you) RETURN me.age + count(you.age)')).to.equal('AmbiguousAggregationExpression');
    expect(detail('MATCH (me)--(you) RETURN me.age + you.age, me.age + you.age + count(*)')).to.equal('AmbiguousAggregationExpression');
    expect(detail('MATCH (me)--(you) WITH me.age + count(you.age) AS agg RETURN agg')).to.equal('AmbiguousAggregationExpression');
    expect(detail('MATCH (me)--(you) RETURN me.age, me.age + count(you.age), $p * count(*), [x IN collect(you) | x.age]')).to.equal('accepted');
    expect(detail('MATCH (me)--(you) WITH me.age AS age, you RETURN age, age + count(you.age)')).to.equal('accepted');
    expect(detail('RETURN count(rand())')).to.equal('NonConstantExpression');
    expect(detail('MATCH (n) WITH n SKIP toInteger(rand() * 9) RETURN n')).to.equal('accepted');
    expect(detail('MATCH (n) RETURN (n)-[]->()')).to.equal('UnexpectedSyntax');
    expect(detail('MATCH (n) WITH (n)-[]->() AS x RETURN x')).to.equal('UnexpectedSyntax');
    expect(detail('MATCH (n) SET n.prop = head(nodes(head((n)-[:REL]->()))).foo')).to.equal('UnexpectedSyntax');
    expect(detail('MATCH (n) WHERE (n)-->() AND NOT (n)<--() RETURN exists((n)--())')).to.equal('accepted');
    expect(detail('MATCH (n) RETURN type(n)')).to.equal('InvalidArgumentType');
    expect(detail('MATCH (n)-[r]->() RETURN length(n), length(r)')).to.equal('InvalidArgumentType');
    expect(detail('MATCH ()-[r]->() CREATE ()-[r]->()')).to.equal('VariableAlreadyBound');
    expect(detail('MATCH (a)-[r]->(b) MERGE (a)-[r]->(b)')).to.equal('VariableAlreadyBound');
    expect(detail('MATCH (a)-[:LIKES..]->(c) RETURN c')).to.equal('InvalidRelationshipPattern');
    expect(detail('MATCH (a)-[:LIKES*-2]->(c) RETURN c')).to.equal('InvalidRelationshipPattern');
    expect(detail('RETURN -9223372036854775808, 9223372036854775807, 0x7FFFFFFFFFFFFFFF, -0o1000000000000000000000')).to.equal('accepted');
    expect(detail('RETURN 9223372036854775808')).to.equal('IntegerOverflow');
    expect(detail('RETURN 0x8000000000000001')).to.equal('IntegerOverflow');
  });

  it('lets ORDER BY and WITH ... WHERE after DISTINCT or an aggregation name a projected expression by itself', () => {
    expect(detail("MATCH (a) WITH a.name AS name, count(*) AS cnt ORDER BY a.name + 'C' RETURN name")).to.equal('accepted');
    expect(detail("MATCH (a) WITH DISTINCT a.name2 AS name WHERE a.name2 = 'B' RETURN *")).to.equal('accepted');
    expect(detail("MATCH (a) WITH DISTINCT a.name2 AS name WHERE a.other = 'B' RETURN *")).to.equal('UndefinedVariable');
  });
});
