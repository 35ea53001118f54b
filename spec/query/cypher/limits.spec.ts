import { expect } from 'chai';
import { Collection } from '../../../storage/collection.js';
import { applyEvent } from '../../../storage/engine/apply-event.js';
import type { CollectionConfig } from '../../../storage/events/types.js';
import { CypherError } from '../../../query/cypher/errors.js';
import type { GuardOptions } from '../../../query/cypher/guard.js';
import { compileQuery, executeQuery } from '../../../query/cypher/run-query.js';

const config: CollectionConfig = { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) };
const KB = 1024;

function collection(): Collection {
  const collections = new Map<string, Collection>();
  applyEvent(collections, 1, { type: 'create_collection', name: 'g', config });
  return collections.get('g')!;
}

/** A collection holding `n` nodes :N {i}, written as the server would (one graph_write event). */
function withNodes(n: number): Collection {
  const collections = new Map<string, Collection>();
  applyEvent(collections, 1, { type: 'create_collection', name: 'g', config });
  const c = collections.get('g')!;
  const r = executeQuery(c, compileQuery(`UNWIND range(1, ${n}) AS i CREATE (:N {i: i})`), {});
  const applied = applyEvent(collections, 2, { type: 'graph_write', collection: 'g', changes: r.changes });
  if (applied.error) throw applied.error;
  return c;
}

const run = (c: Collection, text: string, options: GuardOptions = {}, params: Record<string, unknown> = {}) => executeQuery(c, compileQuery(text), params, options).rows;

function fails(f: () => unknown): CypherError {
  try {
    f();
  } catch (err) {
    expect(err).to.be.instanceOf(CypherError);
    expect((err as CypherError).code).to.equal(400);
    return err as CypherError;
  }
  return expect.fail('no error');
}

describe('query/cypher limits: memory budget, deadline, nesting', () => {
  describe('streaming under a small memory budget', () => {
    const small = { memoryBytes: 64 * KB };

    it('counts 2,000,000 UNWIND rows and 1,000,000 MATCH rows holding one number, not the rows', () => {
      const c = withNodes(1000);
      expect(run(c, 'UNWIND range(1, 2000000) AS i WITH i WHERE i % 2 = 0 RETURN count(*)', small)).to.deep.equal([[1_000_000]]);
      expect(run(c, 'MATCH (a:N), (b:N) RETURN count(*)', small)).to.deep.equal([[1_000_000]]);
    });

    it('stops the stages before a LIMIT once it has its rows', () => {
      const c = collection();
      expect(run(c, 'UNWIND range(1, 1000000000000000) AS i WITH i * 2 AS j RETURN j LIMIT 3', small)).to.deep.equal([[2], [4], [6]]);
    });

    it('keeps a top-k for ORDER BY ... LIMIT: k rows fit where all rows do not', () => {
      const c = collection();
      const query = 'UNWIND range(1, 100000) AS i RETURN i % 1000 AS k, i ORDER BY k DESC, i';
      expect(run(c, `${query} SKIP 1 LIMIT 3`, small)).to.deep.equal([[999, 1999], [999, 2999], [999, 3999]]);
      const e = fails(() => run(c, query, small));
      expect(e.detail).to.equal('MemoryLimitExceeded');
      expect(e.message).to.include('memory budget of 64 KB (SERVICE_QUERY_MEMORY_MB)').and.include('ORDER BY');
    });

    it('keeps charging the rows ORDER BY holds while a MATCH before it runs once per input row', () => {
      const c = withNodes(100);
      const query = 'UNWIND range(1, 100) AS k MATCH (n:N) RETURN k, n.i AS i ORDER BY i, k';
      expect(run(c, `${query} LIMIT 2`, small)).to.deep.equal([[1, 1], [2, 1]]);
      expect(fails(() => run(c, query, small)).message).to.include('ORDER BY');
    });

    it('keeps equal sort keys in their input order, as a full stable sort does', () => {
      const c = collection();
      const query = 'UNWIND range(1, 50) AS i RETURN i % 4 AS k, i ORDER BY k';
      const all = run(c, query);
      expect(run(c, `${query} LIMIT 7`, small)).to.deep.equal(all.slice(0, 7));
      expect(run(c, `${query} SKIP 10 LIMIT 5`, small)).to.deep.equal(all.slice(10, 15));
    });

    it('aggregates with one state per group; collect(), DISTINCT and many groups are charged', () => {
      const c = collection();
      expect(run(c, 'UNWIND range(1, 300000) AS i RETURN i % 3 AS k, count(*) AS n, sum(i) AS s, min(i) AS lo, max(i) AS hi ORDER BY k', small)).to.deep.equal([
        [0, 100000, 15000150000, 3, 300000],
        [1, 100000, 14999950000, 1, 299998],
        [2, 100000, 15000050000, 2, 299999],
      ]);
      expect(run(c, 'UNWIND range(1, 300000) AS i RETURN count(DISTINCT i % 7) AS d', small)).to.deep.equal([[7]]);
      expect(fails(() => run(c, 'UNWIND range(1, 300000) AS i RETURN collect(i) AS all', small)).message).to.include('collect()');
      expect(fails(() => run(c, 'UNWIND range(1, 300000) AS i WITH DISTINCT i RETURN count(*)', small)).message).to.include('DISTINCT');
      expect(fails(() => run(c, 'UNWIND range(1, 300000) AS i RETURN i, count(*)', small)).message).to.include('the groups of an aggregation');
      expect(fails(() => run(c, 'UNWIND range(1, 300000) AS i RETURN i', small)).message).to.include('the rows returned');
    });

    it('refuses the one-line heap killer, naming the budget and the variable, before building the list', () => {
      const c = collection();
      const e = fails(() => run(c, 'UNWIND range(1, 2000) AS i WITH i, range(1, 1000000) AS r RETURN count(*)', { memoryBytes: 4 * 2 ** 20 }));
      expect(e.detail).to.equal('MemoryLimitExceeded');
      expect(e.message).to.include('memory budget of 4 MB (SERVICE_QUERY_MEMORY_MB)').and.include('range() for `r`');
      expect(fails(() => run(c, 'RETURN range(1, 1000000000) AS big')).message, 'the default budget too').to.include('range() for `big`');
    });

    it('charges list and string concatenation, list and map literals before building them', () => {
      const c = collection();
      const doubling = (start: string, times: number) => `WITH ${start} AS x ` + 'WITH x + x AS x '.repeat(times) + 'RETURN size(x)';
      expect(run(c, doubling('[1]', 10), small)).to.deep.equal([[1024]]);
      expect(fails(() => run(c, doubling('[1]', 40), small)).message).to.include('a list concatenation for `x`');
      expect(fails(() => run(c, doubling("'ab'", 40), small)).message).to.include('a string concatenation for `x`');
      expect(fails(() => run(c, 'UNWIND range(1, 5000) AS i WITH collect([i, i, i]) AS l RETURN size(l)', small)).message).to.include('collect()');
      const wide = `RETURN {${Array.from({ length: 3000 }, (_, i) => `k${i}: ${i}`).join(', ')}} AS m`;
      expect(fails(() => run(c, wide, { memoryBytes: 16 * KB })).message).to.include('a map literal for `m`');
    });

    it('charges the rows an updating clause holds and the entities it writes; a refused write applies nothing', () => {
      const c = collection();
      const e = fails(() => run(c, 'UNWIND range(1, 100000) AS i CREATE (:N {i: i})', small));
      expect(e.detail).to.equal('MemoryLimitExceeded');
      expect(e.message).to.include('CREATE');
      expect(c.store.liveCount).to.equal(0);
      expect(executeQuery(c, compileQuery('UNWIND range(1, 100) AS i CREATE (:N {i: i})'), {}, small).changes).to.have.length(100);
    });
  });

  describe('the deadline', () => {
    /** A clock that moves 1 ms each time it is read, and counts the reads. */
    const ticking = () => {
      const clock = { reads: 0, now: () => clock.reads++ };
      return clock;
    };

    it('fires inside one long clause (UNWIND over UNWIND), not only between clauses', () => {
      const c = collection();
      const clock = ticking();
      const e = fails(() => run(c, 'UNWIND range(1, 1000000) AS a UNWIND range(1, 1000000) AS b RETURN count(*)', { timeoutMs: 50, clock: clock.now }));
      expect(e.detail).to.equal('QueryTimeout');
      expect(clock.reads).to.be.within(50, 53);
    });

    it('reads the clock every 1,024 units of work (rows, elements, nodes)', () => {
      const c = withNodes(300);
      const clock = { reads: 0, now: () => (clock.reads++, 0) };
      expect(run(c, 'UNWIND range(1, 100000) AS i RETURN count(*)', { clock: clock.now })).to.deep.equal([[100000]]);
      expect(clock.reads).to.be.within(95, 100);
      clock.reads = 0;
      expect(run(c, 'MATCH (a), (b) RETURN count(*)', { clock: clock.now })).to.deep.equal([[90000]]);
      expect(clock.reads).to.be.within(80, 180);
      const stopped = ticking();
      expect(fails(() => run(c, 'MATCH (a), (b), (c) RETURN count(*)', { timeoutMs: 10, clock: stopped.now })).detail).to.equal('QueryTimeout');
    });
  });

  describe('nesting', () => {
    const c = collection();

    it('refuses deeply nested brackets, lists, maps, NOT and signs while parsing, naming the place and the limit', () => {
      for (const text of [
        'RETURN ' + '('.repeat(20000) + '1' + ')'.repeat(20000),
        'RETURN ' + '['.repeat(20000) + ']'.repeat(20000),
        'RETURN ' + '{a: '.repeat(20000) + '1' + '}'.repeat(20000),
        'RETURN ' + 'NOT '.repeat(20000) + 'true',
        'RETURN ' + '-'.repeat(20000) + '1',
        'RETURN ' + 'size('.repeat(20000) + '[]' + ')'.repeat(20000),
      ]) {
        const e = fails(() => compileQuery(text));
        expect(e.detail, text.slice(0, 20)).to.equal('NestingTooDeep');
        expect(e.message).to.match(/at line 1, column \d+: expressions nest more than 200 levels/);
      }
      expect(run(c, 'RETURN ' + '('.repeat(150) + '1' + ')'.repeat(150) + ' AS x, ' + 'NOT '.repeat(150) + 'true AS y')).to.deep.equal([[1, true]]);
    });

    it('refuses operator chains deeper than 1,000 after parsing, so the binder and evaluator never overflow', () => {
      for (const text of [
        'RETURN ' + Array(5000).fill('1').join(' + '),
        'MATCH (n) WHERE ' + Array(5000).fill('n.a = 1').join(' AND ') + ' RETURN n',
        'WITH {a: 1} AS m RETURN m' + '.a'.repeat(5000),
        'WITH [1] AS l RETURN l' + '[0]'.repeat(5000),
      ]) {
        const e = fails(() => compileQuery(text));
        expect(e.detail, text.slice(0, 30)).to.equal('NestingTooDeep');
        expect(e.message).to.match(/at line 1, column \d+: the expression nests more than 1000 levels/);
      }
      expect(run(c, 'RETURN ' + Array(900).fill('1').join(' + ') + ' AS n')).to.deep.equal([[900]]);
    });

    it('turns a stack overflow on a deeply nested parameter into a 400', () => {
      let deep: unknown = [];
      for (let i = 0; i < 200_000; i++) deep = [deep];
      expect(fails(() => run(c, 'RETURN $p AS p', {}, { p: deep })).detail).to.equal('NestingTooDeep');
    });
    it('turns a stack overflow on a variable-length path thousands of hops deep into a 400, and walks 1,000 hops', () => {
      const chain = collection();
      chain.upsert(Array.from({ length: 20_000 }, (_, id) => ({ id, vector: Float32Array.of(id, 0), payload: {}, labels: [] })));
      for (let i = 0; i < 19_999; i++) chain.graph.add(i, i + 1, 'NEXT', 1);
      expect(run(chain, 'MATCH p = (a)-[:NEXT*..1000]->() WHERE id(a) = 0 RETURN max(length(p))')).to.deep.equal([[1000]]);
      const e = fails(() => run(chain, 'MATCH p = (a)-[:NEXT*]->() WHERE id(a) = 0 RETURN max(length(p))'));
      expect(e.detail).to.equal('NestingTooDeep');
      expect(e.message).to.include('bound the path length');
    });
  });

  describe('own properties only', () => {
    it('treats $constructor and $toString as missing parameters', () => {
      const c = collection();
      for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
        const e = fails(() => run(c, `RETURN $${name} AS x`));
        expect(e.message).to.include(`Expected parameter(s): ${name}`);
      }
      expect(run(c, 'RETURN $constructor AS x', {}, { constructor: 5 })).to.deep.equal([[5]]);
    });

    it('never reads the prototype of a map, a node or a relationship, and keeps a `__proto__` key as a key', () => {
      const c = withNodes(1);
      expect(run(c, 'WITH {a: 1} AS m RETURN m.constructor, m.toString, m["hasOwnProperty"], keys(m), {}.constructor')).to.deep.equal([[null, null, null, ['a'], null]]);
      expect(run(c, 'MATCH (n:N) RETURN n.constructor, n["toString"], keys(n), properties(n).constructor')).to.deep.equal([[null, null, ['i'], null]]);
      expect(run(c, 'RETURN {__proto__: 1} AS m, keys({__proto__: [2]}) AS k')).to.deep.equal([[JSON.parse('{"__proto__": 1}'), ['__proto__']]]);
      expect(run(c, 'RETURN $m.constructor AS x', {}, { m: {} })).to.deep.equal([[null]]);
    });
  });
});
