import { expect } from 'chai';
import { pino } from 'pino';
import { readConfig } from '../../server/config.js';
import { startService, type RunningService } from '../../server/service.js';
import { call } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

const INFO = 30;
const WARN = 40;

/** The real service, in process, with its log lines captured as text. */
async function loggedServer(env: Record<string, string>): Promise<{ service: RunningService; text: string[]; lines(): LogLine[]; done(): Promise<void> }> {
  const dir = tempDir();
  const text: string[] = [];
  const logger = pino({ level: env.SERVICE_LOG_LEVEL ?? 'info' }, { write: (line: string) => void text.push(line) });
  const service = await startService(readConfig({ SERVICE_HOST: '127.0.0.1', SERVICE_PORT: '0', SERVICE_QDRANT_PORT: '0', SERVICE_QDRANT_GRPC_PORT: '0', SERVICE_BOLT_PORT: '0', SERVICE_DATA_DIR: dir.path, ...env }), logger);
  return {
    service,
    text,
    lines: () => text.map((t) => JSON.parse(t) as LogLine),
    done: async () => {
      await service.close();
      dir.remove();
    },
  };
}

describe('server: request log lines', () => {
  let server: Awaited<ReturnType<typeof loggedServer>> | null = null;
  afterEach(async () => {
    await server?.done();
    server = null;
  });
  const requestLines = (): LogLine[] => server!.lines().filter((l) => typeof l.requestId === 'string');

  it('logs one info line per request: method, route pattern, status, ms, request id and client address', async () => {
    server = await loggedServer({ SERVICE_SLOW_MS: String(2 ** 31) });
    const res = await call(server.service.url, 'PUT', '/collections/docs', { vectors: { size: 2, distance: 'Dot' } });
    expect(res.status).to.equal(200);
    const [line, ...more] = requestLines();
    expect(more).to.have.length(0);
    expect(line).to.include({ level: INFO, msg: 'request', method: 'PUT', route: '/collections/:name', status: 200, requestId: res.headers.get('x-request-id') });
    expect(line!.ms).to.be.a('number').and.at.least(0);
    expect(line!.client).to.be.a('string').and.match(/127\.0\.0\.1$/);
    expect(line).not.to.have.property('error');
  });

  it('adds the error message the client got to a 4xx line; a path no route has is logged as it is', async () => {
    server = await loggedServer({ SERVICE_SLOW_MS: String(2 ** 31) });
    const { url } = server.service;
    const missing = await call(url, 'POST', '/collections/nowhere/points/search', { vector: [1, 2] });
    const bad = await call(url, 'PUT', '/collections/bad', { vectors: { size: -1, distance: 'Dot' } });
    const unknown = await call(url, 'GET', '/no/such/thing?x=1');
    const lines = requestLines();
    expect(lines.map((l) => [l.route, l.status, l.error])).to.deep.equal([
      ['/collections/:name/points/search', 404, missing.body.message],
      ['/collections/:name', 400, bad.body.message],
      ['/no/such/thing', 404, unknown.body.message],
    ]);
    expect(lines.every((l) => l.level === INFO)).to.equal(true);
  });

  it('logs at warn, as a slow request, one taking SERVICE_SLOW_MS or longer (0: every request)', async () => {
    server = await loggedServer({ SERVICE_SLOW_MS: '0' });
    await call(server.service.url, 'GET', '/collections');
    expect(requestLines()).to.have.length(1);
    expect(requestLines()[0]).to.include({ level: WARN, msg: 'slow request', route: '/collections', status: 200 });
  });

  it('logs nothing per request above info', async () => {
    server = await loggedServer({ SERVICE_LOG_LEVEL: 'warn', SERVICE_SLOW_MS: String(2 ** 31) });
    await call(server.service.url, 'GET', '/collections');
    expect(requestLines()).to.have.length(0);
  });

  it('never logs a configured API key or bearer token, sent in any header or query string, right or wrong', async () => {
    const key = 'key-7f3a9c1e-do-not-log';
    const token = 'token-b2d84e60-do-not-log';
    server = await loggedServer({ SERVICE_LOG_LEVEL: 'trace', SERVICE_API_KEYS: key, SERVICE_BEARER_TOKENS: token, SERVICE_SLOW_MS: '0' });
    const { url } = server.service;
    const attempts: [string, Record<string, string>][] = [
      ['/collections', { Authorization: `ApiKey ${key}` }],
      ['/collections', { Authorization: `Bearer ${token}` }],
      ['/collections', { 'api-key': key }],
      ['/collections', { Authorization: `ApiKey ${key}x` }],
      ['/collections', { Authorization: `Bearer ${token}x` }],
      [`/collections?api-key=${key}`, {}],
      [`/collections?token=${token}`, { 'api-key': key }],
      [`/no/such/endpoint?api-key=${key}`, { Authorization: `Bearer ${token}` }],
      ['/metrics', { Authorization: `ApiKey ${key}` }],
    ];
    const statuses = [];
    for (const [path, headers] of attempts) statuses.push((await call(url, 'GET', path, undefined, headers)).status);
    expect(statuses).to.deep.equal([200, 200, 200, 401, 401, 401, 200, 404, 200]);
    expect(requestLines()).to.have.length(attempts.length);
    expect(requestLines()[3]).to.include({ route: '/collections', status: 401 });
    expect(requestLines()[3]!.error).to.match(/credential is not valid/);
    const everything = server.text.join('');
    expect(everything).not.to.include(key);
    expect(everything).not.to.include(token);
    expect(everything).not.to.include('do-not-log');
  });

  it('refuses a SERVICE_SLOW_MS that is not a whole number of milliseconds', () => {
    expect(() => readConfig({ SERVICE_SLOW_MS: '1.5' })).to.throw(/SERVICE_SLOW_MS must be an integer/);
    expect(() => readConfig({ SERVICE_SLOW_MS: '-1' })).to.throw(/SERVICE_SLOW_MS/);
    expect(readConfig({}).slowMs).to.equal(1000);
  });
});
