import { expect } from 'chai';
import { call, useTestServer } from '../helpers/http.js';

describe('server: search', () => {
  const s = useTestServer();
  const ids = (res: { body: { result: { id: number }[] } }) => res.body.result.map((p) => p.id);

  before(async () => {
    for (const [name, distance] of [['cos', 'Cosine'], ['euc', 'Euclid'], ['dot', 'Dot']]) {
      await call(s.url, 'PUT', `/collections/${name}`, { vectors: { size: 2, distance } });
      await call(s.url, 'PUT', `/collections/${name}/points`, {
        points: [
          { id: 1, vector: [1, 0], payload: { colour: 'red', n: 1 } },
          { id: 2, vector: [0, 1], payload: { colour: 'blue', n: 2 } },
          { id: 3, vector: [2, 2], payload: { colour: 'red', n: 3 } },
          { id: 4, vector: [-1, 0], payload: { colour: 'green', n: 4 } },
        ],
      });
    }
  });

  it('scores each metric as DECISIONS says, best first', async () => {
    const cos = await call(s.url, 'POST', '/collections/cos/points/query', { query: [1, 0] });
    expect(ids(cos)).to.deep.equal([1, 3, 2, 4]);
    expect(cos.body.result.map((p: { score: number }) => Number(p.score.toFixed(5)))).to.deep.equal([1, 0.70711, 0, -1]);

    const euc = await call(s.url, 'POST', '/collections/euc/points/query', { query: [1, 0] });
    expect(ids(euc)).to.deep.equal([1, 2, 4, 3]);
    expect(euc.body.result.map((p: { score: number }) => Number(p.score.toFixed(5)))).to.deep.equal([0, -1.41421, -2, -2.23607]);

    const dot = await call(s.url, 'POST', '/collections/dot/points/query', { query: [1, 1] });
    expect(ids(dot)).to.deep.equal([3, 1, 2, 4]);
    expect(dot.body.result.map((p: { score: number }) => p.score)).to.deep.equal([4, 1, 1, -1]);
  });

  it('honours limit, with_payload, with_vector, score_threshold and offset', async () => {
    const res = await call(s.url, 'POST', '/collections/euc/points/query', { query: [1, 0], limit: 2, with_payload: false, with_vector: true });
    expect(res.body.result.map((p: { id: number; vector: number[] }) => [p.id, p.vector])).to.deep.equal([
      [1, [1, 0]],
      [2, [0, 1]],
    ]);
    expect(res.body.result[0], 'SPEC.md\'s shape: no version on this port').to.have.keys('id', 'score', 'vector');
    const withPayload = await call(s.url, 'POST', '/collections/euc/points/query', { query: [1, 0], limit: 1 });
    expect(withPayload.body.result[0]).to.deep.include({ id: 1, payload: { colour: 'red', n: 1 }, labels: [] });
    expect(withPayload.body.result[0]).not.to.have.property('vector');
    const threshold = await call(s.url, 'POST', '/collections/euc/points/query', { query: [1, 0], score_threshold: -1.5 });
    expect(ids(threshold)).to.deep.equal([1, 2]);
    const offset = await call(s.url, 'POST', '/collections/euc/points/query', { query: [1, 0], offset: 1, limit: 2 });
    expect(ids(offset)).to.deep.equal([2, 4]);
  });

  it('breaks ties by the smaller id, not by the order the points were written in: fusion, exact scoring and order_by', async () => {
    // 9 is written before 3, so it is stored first; each is first in one prefetch and second in the other.
    await call(s.url, 'PUT', '/collections/ties', { vectors: { size: 2, distance: 'Cosine' } });
    await call(s.url, 'PUT', '/collections/ties/points?wait=true', { points: [{ id: 9, vector: [1, 0], payload: { n: 1 } }, { id: 3, vector: [0, 1], payload: { n: 1 } }, { id: 5, vector: [-1, -0.1], payload: { n: 0 } }] });
    const prefetch = [{ query: [1, 0], limit: 2 }, { query: [0, 1], limit: 2 }];
    for (const fusion of ['rrf', 'dbsf']) {
      const fused = await call(s.url, 'POST', '/collections/ties/points/query', { prefetch, query: { fusion }, limit: 2 });
      expect(fused.body.result[0].score, fusion).to.equal(fused.body.result[1].score);
      expect(ids(fused), fusion).to.deep.equal([3, 9]);
    }
    // 9 and 3 are as near the positive (1, 1) and as far from the negative (-1, -1) as each other.
    const recommended = await call(s.url, 'POST', '/collections/ties/points/query', { query: { recommend: { positive: [[1, 1]], negative: [[-1, -1]], strategy: 'best_score' } }, limit: 3 });
    expect(recommended.body.result[0].score).to.equal(recommended.body.result[1].score);
    expect(ids(recommended)).to.deep.equal([3, 9, 5]);
    const ordered = await call(s.url, 'POST', '/collections/ties/points/query', { query: { order_by: { key: 'n', direction: 'desc' } }, limit: 3 });
    expect(ids(ordered)).to.deep.equal([3, 9, 5]);
  });

  it('filters search results', async () => {
    const red = await call(s.url, 'POST', '/collections/euc/points/query', { query: [0, 1], filter: { must: [{ key: 'colour', match: { value: 'red' } }] } });
    expect(ids(red)).to.deep.equal([1, 3]);
    const notRed = await call(s.url, 'POST', '/collections/euc/points/query', {
      query: [0, 1],
      filter: { must_not: [{ key: 'colour', match: { value: 'red' } }], should: [{ key: 'n', range: { gte: 4 } }, { key: 'colour', match: { any: ['blue'] } }] },
    });
    expect(ids(notRed)).to.deep.equal([2, 4]);
  });

  it('serves Qdrant search with vector and params.hnsw_ef, and batch search in order', async () => {
    const single = await call(s.url, 'POST', '/collections/euc/points/search', { vector: [0, 1], limit: 1, params: { hnsw_ef: 16 } });
    expect(ids(single)).to.deep.equal([2]);
    const batch = await call(s.url, 'POST', '/collections/euc/points/search/batch', {
      searches: [
        { vector: [1, 0], limit: 1 },
        { vector: [0, 1], limit: 2, with_payload: false, params: { ef: 50 } },
        { vector: [-1, 0], limit: 1, filter: { must: [{ key: 'colour', match: { value: 'red' } }] } },
      ],
    });
    expect(batch.status).to.equal(200);
    expect(batch.body.result.map((r: { id: number }[]) => r.map((p) => p.id))).to.deep.equal([[1], [2, 1], [1]]);
    expect(batch.body.result[1][0]).not.to.have.property('payload');
  });

  it('rejects bad search bodies with a 400 that names the field', async () => {
    const bad: [string, unknown, RegExp][] = [
      ['/query', { query: { nearest: [1, 1], mmr: { diversity: 2 } } }, /query/],
      ['/query', { query: [1] }, /query vector has 1 dimensions, collection "euc" expects 2/],
      ['/query', { query: [1, 'a'] }, /query\[1\] must be a number/],
      ['/query', { query: [1, 1e39] }, /query vector element 1 is not a finite number/],
      ['/query', { query: [1, 0], limit: 0 }, /limit must be an integer from 1 to 10000/],
      ['/query', { query: [1, 0], limit: 'ten' }, /limit must be an integer/],
      ['/query', { query: [1, 0], ef: 0 }, /ef must be an integer from 1/],
      ['/query', { query: [1, 0], filter: { must: [{ key: 'a', range: { gt: 'x' } }] } }, /filter\.must\[0\]\.range\.gt must be a finite number/],
      ['/query', { query: [1, 0], score_threshold: 'high' }, /score_threshold must be a finite number/],
      ['/search', { query: [1, 0] }, /vector is required/],
      ['/search/batch', {}, /searches is required: an array of at most 1000 search requests/],
      ['/search/batch', { searches: 'x' }, /searches must be an array of at most 1000 search requests, got "x"/],
      ['/search/batch', { searches: [{ vector: [1, 0] }, { vector: [1] }] }, /query vector has 1 dimensions/],
      ['/search/batch', { searches: [{ vector: [1, 0], limit: -1 }] }, /searches\[0\]\.limit must be an integer/],
      ['/search/batch', { searches: ['x'] }, /searches\[0\] must be an object/],
    ];
    for (const [path, body, message] of bad) {
      const res = await call(s.url, 'POST', `/collections/euc/points${path}`, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).to.equal(400);
      expect(res.body).to.include({ status: 'error', code: 400 });
      expect(res.body.message).to.match(message);
    }
  });
});
