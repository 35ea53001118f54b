import { expect } from 'chai';
import { call, useTestServer } from '../helpers/http.js';

const RUNAWAY = 'UNWIND range(1, 1000000000) AS a UNWIND range(1, 1000000000) AS b RETURN count(*)';

describe('server: a long Cypher query never holds the server (it runs in slices)', function () {
  this.timeout(60_000);
  const s = useTestServer({ SERVICE_QUERY_TIMEOUT_MS: '3000' }, 'each');

  beforeEach(async () => {
    expect((await call(s.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
    expect((await call(s.url, 'PUT', '/collections/g/points?wait=true', { points: [{ id: 1, vector: [1, 2], payload: { name: 'one' } }] })).status).to.equal(200);
  });

  it('answers /healthz, a point read and a short query while a runaway query runs; the runaway then answers its timeout', async () => {
    const finished: string[] = [];
    const runaway = call(s.url, 'POST', '/collections/g/graph/query', { query: RUNAWAY }).then((r) => {
      finished.push('runaway');
      return r;
    });
    for (let i = 0; i < 5; i++) {
      expect((await call(s.url, 'GET', '/healthz')).status).to.equal(200);
      expect((await call(s.url, 'GET', '/collections/g/points/1')).status).to.equal(200);
      const short = await call(s.url, 'POST', '/collections/g/graph/query', { query: 'MATCH (n) RETURN n.name' });
      expect(short.body).to.deep.include({ status: 'ok' });
      finished.push(`round ${i}`);
    }
    const r = await runaway;
    expect(r.status).to.equal(400);
    expect(JSON.stringify(r.body)).to.include('QueryTimeout');
    expect(finished, 'every other request was answered before the runaway ended').to.deep.equal(['round 0', 'round 1', 'round 2', 'round 3', 'round 4', 'runaway']);
  });

  it('runs two long queries side by side: the one started second, and shorter, is not held until the first ends', async () => {
    const finished: string[] = [];
    const first = call(s.url, 'POST', '/collections/g/graph/query', { query: RUNAWAY }).then(() => finished.push('first'));
    const second = call(s.url, 'POST', '/collections/g/graph/query', { query: 'UNWIND range(1, 300000) AS x RETURN sum(x) AS total' }).then((r) => {
      finished.push('second');
      return r;
    });
    const answer = await second;
    expect(answer.body).to.deep.include({ status: 'ok' });
    expect(JSON.stringify(answer.body)).to.include(String((300000 * 300001) / 2));
    await first;
    expect(finished).to.deep.equal(['second', 'first']);
  });
});
