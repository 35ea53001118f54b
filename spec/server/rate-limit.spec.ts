import { expect } from 'chai';
import { call, startTestServer, type JsonResponse, type TestServer } from '../helpers/http.js';

/** Sends `count` requests at once and answers how many passed and the first refusal. */
async function burst(url: string, count: number): Promise<{ passed: number; limited: number; refused: JsonResponse | undefined }> {
  const answers = await Promise.all(Array.from({ length: count }, () => call(url, 'GET', '/collections')));
  const refusals = answers.filter((a) => a.status === 429);
  expect(refusals.length + answers.filter((a) => a.status === 200).length, 'every answer is a 200 or a 429').to.equal(count);
  return { passed: count - refusals.length, limited: refusals.length, refused: refusals[0] };
}

describe('server: rate limiting (100/s, bursts of 200), on a fake clock', () => {
  // Steps of whole binary fractions of a second keep the refilled token counts exact.
  let seconds = 1000;
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ SERVICE_RATE_LIMIT: '1' }, undefined, { now: () => seconds });
  });
  after(async () => {
    await s.stop();
    s.remove();
  });

  it('lets exactly the burst through, then answers 429 with Retry-After and the error body', async () => {
    const first = await call(s.url, 'GET', '/health');
    expect(first.headers.get('x-ratelimit-limit')).to.equal('100');
    expect(first.headers.get('x-ratelimit-remaining')).to.equal('199');
    expect(first.headers.get('x-ratelimit-reset'), 'seconds until the bucket is full again').to.equal('1');

    const { passed, limited, refused } = await burst(s.url, 400);
    expect(passed).to.equal(199);
    expect(limited).to.equal(201);
    expect(refused!.body).to.deep.equal({ status: 'error', code: 429, message: 'too many requests: the limit is 100 per second with bursts of 200; retry after 1 s' });
    expect(refused!.headers.get('retry-after')).to.equal('1');
    expect(refused!.headers.get('x-ratelimit-remaining')).to.equal('0');
    expect(refused!.headers.get('x-ratelimit-reset')).to.equal('2');
  });

  it('lets through exactly the tokens refilled as the clock advances, never more than the burst', async () => {
    seconds += 0.5;
    expect(await burst(s.url, 100)).to.include({ passed: 50, limited: 50 });

    seconds += 0.25;
    expect(await burst(s.url, 40)).to.include({ passed: 25, limited: 15 });
    expect((await call(s.url, 'GET', '/collections')).status, 'no time passed: no token').to.equal(429);

    seconds += 60;
    expect(await burst(s.url, 250)).to.include({ passed: 200, limited: 50 });
  });

  it('limits the Qdrant dialect port from the same buckets, refusing with Qdrant\'s error body', async () => {
    seconds += 60;
    // Raw fetch: the Qdrant port answers Qdrant's shapes, not those of our OpenAPI document that call() checks.
    const qdrant = (n: number) => Promise.all(Array.from({ length: n }, () => fetch(`${s.service.qdrantUrl}/collections`)));
    expect((await qdrant(150)).every((r) => r.status === 200)).to.equal(true);
    const { passed, refused } = await burst(s.url, 100);
    expect(passed, 'one bucket per client address, whichever port it calls').to.equal(50);
    expect(refused!.body.status, 'the spec port keeps its own shape').to.equal('error');
    seconds += 60;
    const answers = await qdrant(201);
    expect(answers.filter((r) => r.status === 429)).to.have.length(1);
    const limited = answers.find((r) => r.status === 429)!;
    expect(((await limited.json()) as { status: unknown }).status).to.deep.equal({ error: 'too many requests: the limit is 100 per second with bursts of 200; retry after 1 s' });
    expect(limited.headers.get('retry-after')).to.equal('1');
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
