import { expect } from 'chai';
import { call, useTestServer } from '../helpers/http.js';

describe('server: EXPLAIN and PROFILE over REST (POST /collections/{c}/graph/query)', () => {
  const s = useTestServer({ SERVICE_CYPHER_WORKERS: '1' });
  const query = (q: string) => call(s.url, 'POST', '/collections/g/graph/query', { query: q });

  before(async () => {
    await call(s.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } });
    await query('UNWIND range(1, 3) AS i CREATE (:N {i: i})');
  });

  it('EXPLAIN answers the columns, no rows and `plan`; of a write, it writes nothing', async () => {
    const r = await query('EXPLAIN MATCH (n:N) WHERE n.i > 1 RETURN n.i AS i');
    expect(r.status).to.equal(200);
    expect(r.body.result.columns).to.deep.equal(['i']);
    expect(r.body.result.rows).to.deep.equal([]);
    expect(r.body.result.plan.operatorType).to.equal('ProduceResults');
    expect(r.body.result.plan.children[0].children[0].operatorType).to.equal('Filter');
    expect(r.body.result).not.to.have.property('profile');
    const w = await query('EXPLAIN UNWIND range(1, 10) AS i CREATE (:N {i: i})');
    expect(w.status).to.equal(200);
    expect(w.body.result.plan.children[0].operatorType).to.equal('Create');
    expect((await query('MATCH (n:N) RETURN count(n) AS c')).body.result.rows).to.deep.equal([[3]]);
  });

  it('PROFILE answers the rows and `profile` with the rows each clause handed on', async () => {
    const r = await query('PROFILE MATCH (n:N) WHERE n.i > 1 RETURN n.i AS i ORDER BY i');
    expect(r.body.result.rows).to.deep.equal([[2], [3]]);
    expect(r.body.result.profile.rows).to.equal(2);
    const filter = r.body.result.profile.children[0].children[0].children[0];
    expect(filter.operatorType).to.equal('Filter');
    expect(filter.rows).to.equal(2);
    expect(filter.dbHits).to.equal(3);
    expect(r.body.result).not.to.have.property('plan');
  });
});
