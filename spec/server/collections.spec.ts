import { expect } from 'chai';
import { call, useTestServer } from '../helpers/http.js';

describe('server: collections', () => {
  const s = useTestServer({}, 'each');

  it('creates, describes, lists, checks and deletes a collection', async () => {
    const created = await call(s.url, 'PUT', '/collections/docs', { vectors: { size: 4, distance: 'Cosine' }, hnsw_config: { m: 8, ef_construct: 50 } });
    expect(created.status).to.equal(200);
    expect(created.body.status).to.equal('ok');
    expect(created.body.result).to.equal(true);
    expect(created.body.time).to.be.a('number');

    const info = await call(s.url, 'GET', '/collections/docs');
    expect(info.body.result.name).to.equal('docs');
    expect(info.body.result.vectors_count).to.equal(0);
    expect(info.body.result.config.vectors).to.deep.equal({ size: 4, distance: 'Cosine' });
    expect(info.body.result.config.hnsw_config).to.deep.include({ m: 8, ef_construct: 50, m0: 16 });

    await call(s.url, 'PUT', '/collections/other', { vectors: { size: 2, distance: 'Dot' } });
    const list = await call(s.url, 'GET', '/collections');
    expect(list.body.result.collections).to.deep.equal([{ name: 'docs' }, { name: 'other' }]);
    expect((await call(s.url, 'GET', '/collections/docs/exists')).body.result).to.deep.equal({ exists: true });

    const deleted = await call(s.url, 'DELETE', '/collections/docs');
    expect(deleted.status).to.equal(200);
    expect(deleted.body.result).to.equal(true);
    expect((await call(s.url, 'GET', '/collections/docs')).status).to.equal(404);
    expect((await call(s.url, 'GET', '/collections/docs/exists')).body.result).to.deep.equal({ exists: false });
  });

  it('applies the spec defaults when hnsw_config is left out', async () => {
    await call(s.url, 'PUT', '/collections/d', { vectors: { size: 3, distance: 'Euclid' } });
    const info = await call(s.url, 'GET', '/collections/d');
    expect(info.body.result.config.hnsw_config).to.deep.equal({ m: 16, ef_construct: 200, m0: 32, ml: 1 / Math.log(16), full_scan_threshold: 10000, max_indexing_threads: 0, on_disk: false });
  });

  it('answers 409 for an existing name and 404 for a missing collection everywhere', async () => {
    await call(s.url, 'PUT', '/collections/dup', { vectors: { size: 2, distance: 'Dot' } });
    const again = await call(s.url, 'PUT', '/collections/dup', { vectors: { size: 2, distance: 'Dot' } });
    expect(again.status).to.equal(409);
    expect(again.body).to.deep.equal({ status: 'error', message: 'collection "dup" already exists', code: 409 });

    const missing: [string, string, unknown][] = [
      ['GET', '/collections/ghost', undefined],
      ['DELETE', '/collections/ghost', undefined],
      ['PUT', '/collections/ghost/points', { points: [{ id: 1, vector: [1, 2] }] }],
      ['POST', '/collections/ghost/points', { ids: [1] }],
      ['POST', '/collections/ghost/points/delete', { points: [1] }],
      ['POST', '/collections/ghost/points/query', { query: [1, 2] }],
      ['POST', '/collections/ghost/points/search', { vector: [1, 2] }],
      ['POST', '/collections/ghost/points/scroll', {}],
      ['POST', '/collections/ghost/points/search/batch', { searches: [] }],
      ['POST', '/collections/ghost/points/count', {}],
    ];
    for (const [method, path, body] of missing) {
      const res = await call(s.url, method, path, body);
      expect(res.status, `${method} ${path}`).to.equal(404);
      expect(res.body).to.deep.equal({ status: 'error', message: 'collection "ghost" not found', code: 404 });
    }
  });

  it('rejects bad names and bad configs with a 400 that names the problem, creating nothing', async () => {
    const bad: [string, unknown, RegExp][] = [
      ['/collections/.dot', { vectors: { size: 2, distance: 'Dot' } }, /invalid collection name/],
      [`/collections/${'x'.repeat(256)}`, { vectors: { size: 2, distance: 'Dot' } }, /invalid collection name/],
      ['/collections/sp%20ace', { vectors: { size: 2, distance: 'Dot' } }, /invalid collection name/],
      ['/collections/a', {}, /vectors is required/],
      ['/collections/a', { vectors: { size: 0, distance: 'Dot' } }, /vectors\.size must be an integer from 1/],
      ['/collections/a', { vectors: { size: 2.5, distance: 'Dot' } }, /vectors\.size must be an integer/],
      ['/collections/a', { vectors: { size: 2, distance: 'Hamming' } }, /vectors\.distance must be one of Cosine, Euclid, Dot, Manhattan/],
      ['/collections/a', { vectors: { size: 2, distance: 'Dot' }, hnsw_config: { m: 1, ef_construct: 10 } }, /hnsw_config\.m must be an integer from 2/],
      ['/collections/a', { vectors: { size: 2, distance: 'Dot' }, hnsw_config: { m: 8, ef_construct: 10, ml: -1 } }, /hnsw_config\.ml/],
      ['/collections/a', { vectors: { size: 2, distance: 'Dot' }, hnsw_config: { m: 8, ef_construct: 10, m0: 4 } }, /hnsw_config\.m0 must be an integer from 8/],
      ['/collections/a', [1, 2], /request body must be a JSON object/],
    ];
    for (const [path, body, message] of bad) {
      const res = await call(s.url, 'PUT', path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).to.equal(400);
      expect(res.body.code).to.equal(400);
      expect(res.body.message).to.match(message);
    }
    expect((await call(s.url, 'GET', '/collections')).body.result.collections).to.deep.equal([]);
  });
});
