import { expect } from 'chai';
import { call, startTestServer, useTestServer } from '../helpers/http.js';

describe('server: rate limiting', () => {
  const s = useTestServer({ SERVICE_RATE_LIMIT: '1' });

  it('sends the rate headers, answers 429 with Retry-After past the burst, and recovers', async () => {
    const first = await call(s.url, 'GET', '/health');
    expect(first.headers.get('x-ratelimit-limit')).to.equal('100');
    expect(Number(first.headers.get('x-ratelimit-remaining'))).to.be.within(190, 199);
    expect(Number(first.headers.get('x-ratelimit-reset'))).to.be.at.least(0);

    const answers = await Promise.all(Array.from({ length: 400 }, () => call(s.url, 'GET', '/collections')));
    const limited = answers.filter((a) => a.status === 429);
    const passed = answers.filter((a) => a.status === 200);
    expect(passed.length).to.be.within(199, 260);
    expect(limited.length).to.be.greaterThan(100);
    const refused = limited[0]!;
    expect(refused.body.status).to.equal('error');
    expect(refused.body.code).to.equal(429);
    expect(refused.body.message).to.match(/too many requests/);
    expect(Number(refused.headers.get('retry-after'))).to.be.at.least(1);
    expect(refused.headers.get('x-ratelimit-remaining')).to.equal('0');

    await new Promise((r) => setTimeout(r, 1100));
    const again = await call(s.url, 'GET', '/collections');
    expect(again.status).to.equal(200);
    expect(Number(again.headers.get('x-ratelimit-remaining'))).to.be.at.least(50);
  });
});

describe('server: no rate limiting by default', () => {
  it('sends no rate headers and never answers 429', async () => {
    const s = await startTestServer();
    try {
      const answers = await Promise.all(Array.from({ length: 300 }, () => call(s.url, 'GET', '/health')));
      expect(answers.every((a) => a.status === 200)).to.equal(true);
      expect(answers[0]!.headers.get('x-ratelimit-limit')).to.equal(null);
    } finally {
      await s.stop();
      s.remove();
    }
  });
});
