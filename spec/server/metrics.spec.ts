import { expect } from 'chai';
import neo4j from 'neo4j-driver';
import { pino } from 'pino';
import { readConfig } from '../../server/config.js';
import { startService } from '../../server/service.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { call, startTestServer, useTestServer } from '../helpers/http.js';
import { scrape } from '../helpers/prometheus.js';
import { tempDir } from '../helpers/temp-dir.js';

const KEY = { Authorization: 'ApiKey metrics-key' };

describe('server: GET /metrics', () => {
  describe('on an open server', () => {
    const s = useTestServer({}, 'each');
    const upsert = (name: string, points: unknown[]) => call(s.url, 'PUT', `/collections/${name}/points`, { points });

    it('answers the Prometheus text format with the process defaults (memory, event-loop lag)', async () => {
      const res = await fetch(`${s.url}/metrics`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      const m = await scrape(s.url);
      expect(m.value('process_resident_memory_bytes')).to.be.greaterThan(0);
      expect(m.family('nodejs_eventloop_lag_seconds').type).to.equal('GAUGE');
      expect(m.family('vgdb_http_requests_total').type).to.equal('COUNTER');
    });

    it('counts requests by route pattern and status, and times them by route', async () => {
      await call(s.url, 'PUT', '/collections/a', { vectors: { size: 2, distance: 'Dot' } });
      const before = await scrape(s.url);
      await call(s.url, 'POST', '/collections/a/points/search', { vector: [1, 0] });
      await call(s.url, 'POST', '/collections/a/points/search', { vector: [0, 1] });
      await call(s.url, 'POST', '/collections/missing/points/search', { vector: [0, 1] });
      await call(s.url, 'GET', '/no/such/endpoint');
      const after = await scrape(s.url);
      const search = (status: string) => ({ route: '/collections/:name/points/search', status });
      expect(after.value('vgdb_http_requests_total', search('200')) - before.value('vgdb_http_requests_total', search('200'))).to.equal(2);
      expect(after.value('vgdb_http_requests_total', search('404')) - before.value('vgdb_http_requests_total', search('404'))).to.equal(1);
      expect(after.value('vgdb_http_requests_total', { route: 'unmatched', status: '404' })).to.equal(before.value('vgdb_http_requests_total', { route: 'unmatched', status: '404' }) + 1);
      expect(after.value('vgdb_http_requests_total', { route: '/metrics', status: '200' })).to.be.greaterThan(0);
      const timed = { route: '/collections/:name/points/search' };
      expect(after.count('vgdb_http_request_duration_seconds', timed) - before.count('vgdb_http_request_duration_seconds', timed)).to.equal(3);
    });

    it('counts Bolt messages by kind and outcome, times them, and reads the open Bolt connections', async () => {
      const driver = neo4j.driver(`bolt://127.0.0.1:${s.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'));
      try {
        const session = driver.session();
        await session.run('RETURN 1 AS one');
        await session.run('RETURN nope').catch(() => undefined);
        const during = await scrape(s.url);
        expect(during.value('vgdb_bolt_connections')).to.be.at.least(1);
        expect(during.value('vgdb_bolt_messages_total', { message: 'RUN', outcome: 'success' })).to.be.at.least(1);
        expect(during.value('vgdb_bolt_messages_total', { message: 'RUN', outcome: 'failure' })).to.equal(1);
        expect(during.count('vgdb_bolt_message_duration_seconds', { message: 'PULL' })).to.be.at.least(1);
        await session.close();
      } finally {
        await driver.close();
      }
    });

    it('times each write from append to its durable commit and counts the operations applied by kind', async () => {
      const before = await scrape(s.url);
      expect(before.count('vgdb_log_append_duration_seconds')).to.equal(0);
      await call(s.url, 'PUT', '/collections/w', { vectors: { size: 2, distance: 'Dot' } });
      for (let i = 0; i < 3; i++) expect((await upsert('w', [{ id: i, vector: [1, i] }])).status).to.equal(200);
      expect((await upsert('w', [{ id: 9, vector: [1] }])).status).to.equal(400);
      const after = await scrape(s.url);
      expect(after.count('vgdb_log_append_duration_seconds')).to.equal(4);
      expect(after.sum('vgdb_log_append_duration_seconds')).to.be.greaterThan(0);
      expect(after.value('vgdb_operations_applied_total', { kind: 'create_collection' })).to.equal(1);
      expect(after.value('vgdb_operations_applied_total', { kind: 'upsert_points' })).to.equal(3);
    });

    it('reports points, vectors and index backlog per collection, read when scraped', async () => {
      await call(s.url, 'PUT', '/collections/v', { vectors: { size: 16, distance: 'Euclid' } });
      await call(s.url, 'PUT', '/collections/empty', { vectors: { size: 2, distance: 'Dot' } });
      const points = Array.from({ length: 3000 }, (_, id) => ({ id, vector: Array.from({ length: 16 }, (_, d) => Math.sin(id * 7 + d)) }));
      expect((await upsert('v', points)).status).to.equal(200);
      const fresh = await scrape(s.url);
      expect(fresh.value('vgdb_collection_points', { collection: 'v' })).to.equal(3000);
      expect(fresh.value('vgdb_collection_vectors', { collection: 'v' })).to.equal(3000);
      expect(fresh.value('vgdb_collection_index_backlog', { collection: 'v' })).to.be.within(1, 3000);
      expect(fresh.sample('vgdb_collection_points', { collection: 'empty' })?.value).to.equal('0');

      await s.service.engine.indexed();
      const node = await call(s.url, 'POST', '/collections/v/graph/query', { query: "CREATE (:Doc {name: 'no vector'})" });
      expect(node.status).to.equal(200);
      await call(s.url, 'POST', '/collections/v/points/delete', { points: [0, 1] });
      await call(s.url, 'DELETE', '/collections/empty');
      const later = await scrape(s.url);
      expect(later.value('vgdb_collection_points', { collection: 'v' })).to.equal(2999);
      expect(later.value('vgdb_collection_vectors', { collection: 'v' })).to.equal(2998);
      expect(later.value('vgdb_collection_index_backlog', { collection: 'v' })).to.equal(0);
      expect(later.sample('vgdb_collection_points', { collection: 'empty' })).to.equal(undefined);
    });

    it('reports the last snapshot: its age, duration and size', async () => {
      const before = await scrape(s.url);
      expect(before.sample('vgdb_snapshot_age_seconds')!.value).to.match(/^nan$/i);
      await call(s.url, 'PUT', '/collections/snap', { vectors: { size: 2, distance: 'Dot' } });
      await s.service.engine.snapshot();
      const after = await scrape(s.url);
      expect(after.value('vgdb_snapshot_age_seconds')).to.be.at.least(0);
      expect(after.value('vgdb_snapshot_last_bytes')).to.be.greaterThan(0);
      expect(after.value('vgdb_snapshot_last_duration_seconds')).to.be.greaterThan(0);
      expect(after.value('vgdb_snapshot_failures_total')).to.equal(0);
    });

    it('keeps the figures of each service apart (one registry per instance)', async () => {
      const other = await startTestServer();
      try {
        await call(other.url, 'PUT', '/collections/only-there', { vectors: { size: 2, distance: 'Dot' } });
        const mine = await scrape(s.url);
        expect(mine.value('vgdb_operations_applied_total', { kind: 'create_collection' })).to.equal(0);
        expect(mine.sample('vgdb_collection_points', { collection: 'only-there' })).to.equal(undefined);
        expect((await scrape(other.url)).sample('vgdb_collection_points', { collection: 'only-there' })?.value).to.equal('0');
      } finally {
        await other.stop();
        other.remove();
      }
    });
  });

  it('reports the start-up replay: entries applied and done, and the age of the snapshot it loaded', async () => {
    const dir = tempDir();
    try {
      const log = LmdbLog.open(dir.path);
      const config = { size: 2, distance: 'Dot' as const, m: 16, m0: 32, efConstruct: 200, ml: 1 / Math.log(16) };
      await log.append({ type: 'create_collection', name: 'r', config }).durable;
      await log.append({ type: 'upsert_points', collection: 'r', points: [{ id: 1, vector: Float32Array.of(1, 0), payload: {}, labels: [] }] }).durable;
      await log.append({ type: 'upsert_points', collection: 'r', points: [{ id: 2, vector: Float32Array.of(0, 1), payload: {}, labels: [] }] }).durable;
      await log.close();

      const first = await startService(readConfig({ SERVICE_HOST: '127.0.0.1', SERVICE_PORT: '0', SERVICE_QDRANT_PORT: '0', SERVICE_QDRANT_GRPC_PORT: '0', SERVICE_BOLT_PORT: '0', SERVICE_DATA_DIR: dir.path }), pino({ level: 'silent' }));
      const replayed = await scrape(first.url);
      await first.close();
      expect(replayed.value('vgdb_replay_done')).to.equal(1);
      expect(replayed.value('vgdb_replay_entries_applied')).to.equal(3);
      expect(replayed.value('vgdb_replay_entries_total')).to.equal(3);
      expect(replayed.value('vgdb_collection_points', { collection: 'r' })).to.equal(2);
      expect(replayed.value('vgdb_operations_applied_total', { kind: 'upsert_points' })).to.equal(0);

      // close() wrote a snapshot: the next start loads it and replays nothing.
      const second = await startService(readConfig({ SERVICE_HOST: '127.0.0.1', SERVICE_PORT: '0', SERVICE_QDRANT_PORT: '0', SERVICE_QDRANT_GRPC_PORT: '0', SERVICE_BOLT_PORT: '0', SERVICE_DATA_DIR: dir.path }), pino({ level: 'silent' }));
      const restarted = await scrape(second.url);
      await second.close();
      expect(restarted.value('vgdb_replay_done')).to.equal(1);
      expect(restarted.value('vgdb_replay_entries_applied')).to.equal(0);
      expect(restarted.value('vgdb_snapshot_age_seconds')).to.be.at.least(0);
      expect(restarted.value('vgdb_collection_points', { collection: 'r' })).to.equal(2);
    } finally {
      dir.remove();
    }
  });

  describe('with authentication on', () => {
    const s = useTestServer({ SERVICE_API_KEYS: 'metrics-key' });

    it('asks for credentials like every other endpoint', async () => {
      const res = await call(s.url, 'GET', '/metrics');
      expect(res.status).to.equal(401);
      expect(res.body.message).to.match(/credentials are required/);
      expect((await fetch(`${s.url}/metrics`, { headers: KEY })).status).to.equal(200);
    });
  });

  describe('with SERVICE_METRICS_PUBLIC', () => {
    const s = useTestServer({ SERVICE_API_KEYS: 'metrics-key', SERVICE_METRICS_PUBLIC: '1' });

    it('answers without credentials, while the collections still need them', async () => {
      expect((await fetch(`${s.url}/metrics`)).status).to.equal(200);
      expect((await call(s.url, 'GET', '/collections')).status).to.equal(401);
      const m = await scrape(s.url);
      expect(m.value('vgdb_http_requests_total', { route: '/collections', status: '401' })).to.equal(1);
    });
  });

  it('refuses a SERVICE_METRICS_PUBLIC that is not a yes or a no', () => {
    expect(() => readConfig({ SERVICE_METRICS_PUBLIC: 'maybe' })).to.throw(/SERVICE_METRICS_PUBLIC must be one of/);
    expect(readConfig({ SERVICE_METRICS_PUBLIC: 'false' }).metricsPublic).to.equal(false);
    expect(readConfig({ SERVICE_METRICS_PUBLIC: 'true' }).metricsPublic).to.equal(true);
    expect(readConfig({}).metricsPublic).to.equal(false);
  });
});
