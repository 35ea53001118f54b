import { expect } from 'chai';
import { readConfig } from '../../server/config.js';
import { call, useTestServer } from '../helpers/http.js';

describe('server: Cypher limits (SERVICE_QUERY_MEMORY_MB, nesting, parameters)', () => {
  const s = useTestServer({ SERVICE_QUERY_MEMORY_MB: '4' });
  const query = (q: string, parameters: Record<string, unknown> = {}) => call(s.url, 'POST', '/collections/g/graph/query', { query: q, parameters });

  before(async () => {
    await call(s.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } });
  });

  /** The server still answers an ordinary query (the process lived through the last one). */
  const stillAnswers = async () => {
    const r = await query('UNWIND [1, 2, 3] AS x RETURN sum(x) AS s');
    expect(r.status).to.equal(200);
    expect(r.body.result.rows).to.deep.equal([[6]]);
  };

  it('answers the one-line heap killers with a 400 naming the budget and the variable, and keeps serving', async () => {
    for (const [text, variable] of [
      ['UNWIND range(1, 2000) AS i WITH i, range(1, 1000000) AS r RETURN count(*)', 'r'],
      ['RETURN range(1, 1000000000) AS big', 'big'],
      ["WITH 'abcdefgh' AS s " + 'WITH s + s AS s '.repeat(40) + 'RETURN size(s) AS n', 's'],
      ['UNWIND range(1, 1000000) AS i RETURN collect(i) AS all', 'all'],
    ]) {
      const r = await query(text!);
      expect(r.status, text).to.equal(400);
      expect(r.body.message).to.match(/^TransientError \(MemoryLimitExceeded\): the query needs more than its memory budget of 4 MB \(SERVICE_QUERY_MEMORY_MB\)/);
      expect(r.body.message).to.include(`for \`${variable}\``);
      await stillAnswers();
    }
  });

  it('streams what it need not hold: 2,000,000 rows into count(*), and ORDER BY ... LIMIT as a top-k', async () => {
    const counted = await query('UNWIND range(1, 2000000) AS i RETURN count(*) AS n');
    expect(counted.status, JSON.stringify(counted.body)).to.equal(200);
    expect(counted.body.result.rows).to.deep.equal([[2_000_000]]);
    const top = await query('UNWIND range(1, 300000) AS i RETURN i ORDER BY i DESC LIMIT 3');
    expect(top.status, JSON.stringify(top.body)).to.equal(200);
    expect(top.body.result.rows).to.deep.equal([[300000], [299999], [299998]]);
    const all = await query('UNWIND range(1, 300000) AS i RETURN i ORDER BY i DESC');
    expect(all.status).to.equal(400);
    expect(all.body.message).to.include('ORDER BY');
  });

  it('refuses over-deep Cypher text with a 400 naming the place and the limit', async () => {
    for (const text of ['RETURN ' + '('.repeat(20000) + '1' + ')'.repeat(20000), 'RETURN ' + '['.repeat(20000) + ']'.repeat(20000), 'RETURN ' + 'NOT '.repeat(20000) + 'true', 'RETURN ' + '- '.repeat(20000) + '1']) {
      const r = await query(text);
      expect(r.status).to.equal(400);
      expect(r.body.message).to.match(/^SyntaxError \(NestingTooDeep\) at line 1, column \d+: expressions nest more than 200 levels deep/);
    }
    const chain = await query('RETURN ' + Array(5000).fill('1').join(' - '));
    expect(chain.status).to.equal(400);
    expect(chain.body.message).to.include('more than 1000 levels');
    await stillAnswers();
  });

  it('reads parameters as own properties: $constructor is a missing parameter, not a function', async () => {
    for (const name of ['constructor', 'toString']) {
      const r = await query(`RETURN $${name} AS x`);
      expect(r.status).to.equal(400);
      expect(r.body.message).to.include(`Expected parameter(s): ${name}`);
    }
    const own = await query('RETURN $constructor AS x, {}.constructor AS y, keys({}) AS k', { constructor: 1 });
    expect(own.body.result.rows).to.deep.equal([[1, null, []]]);
  });

  it('reads SERVICE_QUERY_MEMORY_MB as whole megabytes, 256 by default, and names it when malformed', () => {
    expect(readConfig({}).queryMemoryBytes).to.equal(256 * 2 ** 20);
    expect(readConfig({ SERVICE_QUERY_MEMORY_MB: '64' }).queryMemoryBytes).to.equal(64 * 2 ** 20);
    for (const bad of ['0', '-1', '1.5', 'lots', '100000']) expect(() => readConfig({ SERVICE_QUERY_MEMORY_MB: bad }), bad).to.throw(/SERVICE_QUERY_MEMORY_MB/);
  });
});
