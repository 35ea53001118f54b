import { expect } from 'chai';
import type { Clause } from '../../../query/cypher/ast.js';
import { parseQuery } from '../../../query/cypher/parser.js';
import { planMatch } from '../../../query/cypher/planner.js';

function plan(text: string, bound: string[] = [], counts: Record<string, number> = {}) {
  const match = parseQuery(text).clauses[0] as Extract<Clause, { kind: 'match' }>;
  return planMatch(match.patterns, match.where, new Set(bound), (l) => counts[l] ?? 1000).map((p) => ({ anchor: p.anchor, seek: p.seek.kind }));
}

describe('query/cypher planner', () => {
  it('starts from a bound node, then an id, the vector index, a property, a label, and last a scan', () => {
    expect(plan('MATCH (a)-->(b) RETURN a', ['b'])).to.deep.equal([{ anchor: 1, seek: 'bound' }]);
    expect(plan('MATCH (a:L)-->(b) WHERE id(b) = 4 RETURN a')).to.deep.equal([{ anchor: 1, seek: 'ids' }]);
    expect(plan('MATCH (a)-->(b) WHERE id(b) IN $ids RETURN a')).to.deep.equal([{ anchor: 1, seek: 'ids' }]);
    expect(plan('MATCH (a:L)-->(b) WHERE b.embedding <-> $q < 0.3 RETURN a')).to.deep.equal([{ anchor: 1, seek: 'vector' }]);
    expect(plan('MATCH (a:L)-->(b) WHERE 0.3 >= b.embedding <-> $q RETURN a')).to.deep.equal([{ anchor: 1, seek: 'vector' }]);
    expect(plan('MATCH (a:L)-->(b {name: $n}) RETURN a')).to.deep.equal([{ anchor: 1, seek: 'property' }]);
    expect(plan('MATCH (a:L)-->(b) WHERE b.name = "x" RETURN a')).to.deep.equal([{ anchor: 1, seek: 'property' }]);
    expect(plan('MATCH (a)-->(b:L) RETURN a')).to.deep.equal([{ anchor: 1, seek: 'label' }]);
    expect(plan('MATCH (a)-->(b) RETURN a')).to.deep.equal([{ anchor: 0, seek: 'all' }]);
  });

  it('prefers the rarer label, ignores predicates that depend on other rows, and lets later parts use earlier ones', () => {
    expect(plan('MATCH (a:Many)-->(b:Few) RETURN a', [], { Many: 5000, Few: 3 })).to.deep.equal([{ anchor: 1, seek: 'label' }]);
    expect(plan('MATCH (a)-->(b) WHERE b.x = a.x RETURN a')).to.deep.equal([{ anchor: 0, seek: 'all' }]);
    expect(plan('MATCH (a)-->(b) WHERE a.x = 1 OR b.x = 2 RETURN a')).to.deep.equal([{ anchor: 0, seek: 'all' }]);
    expect(plan('MATCH (a {k: 1}), (b)-->(a) RETURN a')).to.deep.equal([{ anchor: 0, seek: 'property' }, { anchor: 1, seek: 'bound' }]);
  });
});
