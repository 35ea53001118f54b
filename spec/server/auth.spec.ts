import { expect } from 'chai';
import { call, startTestServer, useTestServer, type SuiteServer } from '../helpers/http.js';

const PUBLIC = ['/', '/health', '/healthz', '/ready', '/readyz'];

async function expect401(s: SuiteServer, headers: Record<string, string>, challenge: RegExp): Promise<void> {
  const res = await call(s.url, 'GET', '/collections', undefined, headers);
  expect(res.status, JSON.stringify(headers)).to.equal(401);
  expect(res.body.status).to.equal('error');
  expect(res.body.code).to.equal(401);
  expect(res.body.message).to.be.a('string').and.match(/credential/);
  expect(res.headers.get('www-authenticate')).to.match(challenge);
}

describe('server: authentication', () => {
  describe('with API keys only', () => {
    const s = useTestServer({ SERVICE_API_KEYS: 'key-one, key-two,' });

    it('accepts each configured key, as ApiKey or as the api-key header', async () => {
      for (const headers of <Record<string, string>[]>[{ Authorization: 'ApiKey key-one' }, { Authorization: 'apikey key-two' }, { 'api-key': 'key-one' }]) {
        expect((await call(s.url, 'GET', '/collections', undefined, headers)).status, JSON.stringify(headers)).to.equal(200);
      }
    });

    it('refuses missing, malformed, wrong and empty credentials, and bearer tokens it was not given', async () => {
      for (const headers of <Record<string, string>[]>[{}, { Authorization: 'ApiKey' }, { Authorization: 'ApiKey key-three' }, { Authorization: 'ApiKey key-one-x' }, { Authorization: 'ApiKey  ' }, { Authorization: 'Bearer key-one' }, { Authorization: 'key-one' }, { 'api-key': '' }]) {
        await expect401(s, headers, /^ApiKey realm=/);
      }
    });

    it('keeps the public endpoints and the OPTIONS preflight open', async () => {
      for (const path of PUBLIC) expect((await call(s.url, 'GET', path)).status, path).to.equal(200);
      const pre = await fetch(`${s.url}/collections`, { method: 'OPTIONS' });
      expect(pre.status).to.equal(204);
    });

    it('guards every collection endpoint, writes included, and changes nothing when refused', async () => {
      const res = await call(s.url, 'PUT', '/collections/x', { vectors: { size: 2, distance: 'Dot' } });
      expect(res.status).to.equal(401);
      const list = await call(s.url, 'GET', '/collections', undefined, { Authorization: 'ApiKey key-one' });
      expect(list.body.result.collections).to.deep.equal([]);
    });
  });

  describe('with bearer tokens only', () => {
    const s = useTestServer({ SERVICE_BEARER_TOKENS: 'tok' });

    it('accepts the token and refuses anything else', async () => {
      expect((await call(s.url, 'GET', '/collections', undefined, { Authorization: 'Bearer tok' })).status).to.equal(200);
      for (const headers of <Record<string, string>[]>[{}, { Authorization: 'Bearer tok2' }, { Authorization: 'ApiKey tok' }, { 'api-key': 'tok' }]) await expect401(s, headers, /^Bearer realm=/);
    });
  });

  describe('with both', () => {
    const s = useTestServer({ SERVICE_API_KEYS: 'k', SERVICE_BEARER_TOKENS: 't' });

    it('accepts either scheme with its own secret only', async () => {
      expect((await call(s.url, 'GET', '/collections', undefined, { Authorization: 'ApiKey k' })).status).to.equal(200);
      expect((await call(s.url, 'GET', '/collections', undefined, { Authorization: 'Bearer t' })).status).to.equal(200);
      await expect401(s, { Authorization: 'ApiKey t' }, /ApiKey realm=.*Bearer realm=/);
      await expect401(s, { Authorization: 'Bearer k' }, /ApiKey realm=.*Bearer realm=/);
    });
  });

  it('is off when the variables are unset or hold only separators', async () => {
    const s = await startTestServer({ SERVICE_API_KEYS: ' , ,' });
    try {
      expect((await call(s.url, 'GET', '/collections')).status).to.equal(200);
    } finally {
      await s.stop();
      s.remove();
    }
  });
});
