import { expect } from 'chai';
import { call, useTestServer } from '../helpers/http.js';

describe('server: common rules', () => {
  const s = useTestServer({ SERVICE_JSON_LIMIT_BYTES: '4096' });

  it('answers the public endpoints', async () => {
    const root = await call(s.url, 'GET', '/');
    expect(root.status).to.equal(200);
    expect(root.body).to.have.keys('title', 'version');
    for (const path of ['/health', '/healthz', '/ready', '/readyz']) {
      const res = await call(s.url, 'GET', path);
      expect(res.status, path).to.equal(200);
      expect(res.body).to.deep.equal({ status: 'ok' });
    }
  });

  it('sends JSON, Server-Timing with body, handler and total in microseconds, and CORS headers', async () => {
    const res = await call(s.url, 'GET', '/collections');
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.headers.get('server-timing')).to.match(/^body;dur=[\d.]+, handler;dur=[\d.]+, total;dur=[\d.]+$/);
    expect(res.headers.get('access-control-allow-origin')).to.equal('*');
    expect(res.headers.get('access-control-allow-methods')).to.equal('GET, POST, PUT, DELETE, OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).to.include('Content-Type');
    // A page's script reads an export's headers only if they are exposed.
    expect(res.headers.get('access-control-expose-headers')?.split(', ')).to.include.members(['X-Request-Id', 'X-Service-Format-Version', 'X-Service-Point-Count', 'X-Service-Dimension', 'X-Service-Log-Head', 'Content-Disposition']);
    expect(res.body.status).to.equal('ok');
    expect(res.body.time).to.be.a('number');
  });

  it('answers an OPTIONS preflight with 204 and the CORS headers', async () => {
    const res = await fetch(`${s.url}/collections/x/points`, { method: 'OPTIONS', headers: { Origin: 'http://example.test', 'Access-Control-Request-Method': 'PUT' } });
    expect(res.status).to.equal(204);
    expect(res.headers.get('access-control-allow-origin')).to.equal('*');
  });

  it('answers unknown paths, bad JSON, wrong content types and oversized bodies with the error body', async () => {
    const unknown = await call(s.url, 'GET', '/nowhere');
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.include({ status: 'error', code: 404 });
    expect(unknown.body.message).to.include('/nowhere');

    await call(s.url, 'PUT', '/collections/c', { vectors: { size: 2, distance: 'Dot' } });
    const badJson = await call(s.url, 'PUT', '/collections/c/points', '{"points": [');
    expect(badJson.status).to.equal(400);
    expect(badJson.body).to.deep.include({ status: 'error', code: 400 });
    expect(badJson.body.message).to.match(/not valid JSON/);

    const form = await call(s.url, 'PUT', '/collections/c/points', 'points=1', { 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(form.status).to.equal(415);
    expect(form.body.message).to.match(/Content-Type: application\/json/);

    const big = await call(s.url, 'PUT', '/collections/c/points', { points: [{ id: 1, vector: [1, 2], payload: { pad: 'x'.repeat(5000) } }] });
    expect(big.status).to.equal(413);
    expect(big.body).to.deep.equal({ status: 'error', message: 'request body is too large', code: 413 });
    const count = await call(s.url, 'POST', '/collections/c/points/count', {});
    expect(count.body.result.count).to.equal(0);
  });

  it('answers a wrong method on a known path with 405 and the error body', async () => {
    const res = await call(s.url, 'PATCH', '/collections/c/points');
    expect(res.status).to.equal(405);
    expect(res.body).to.deep.include({ status: 'error', code: 405 });
  });
});
