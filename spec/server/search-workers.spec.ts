import { expect } from 'chai';
import { call, useTestServer } from '../helpers/http.js';
import { randomVectors } from '../helpers/vectors.js';
import { Agent, request } from 'node:http';
import { availableParallelism } from 'node:os';
import { readConfig } from '../../server/config.js';
import { processSearchPool } from '../../workers/process-pool.js';
import { MAX_SEARCH_WORKERS } from '../../workers/search-pool.js';

const DIM = 32;
/** Enough points that the vectors move into a shared WebAssembly memory, which the workers search. */
const BASE = 3000;
/** Points the two writers add one at a time while three clients search, and the searches each client makes at least. */
const WRITES = 300;
const SEARCHES_EACH = 40;

const vectors = randomVectors(BASE + 2000, DIM, 31);
const asList = (v: Float32Array): number[] => Array.from(v);

async function metric(url: string, name: string): Promise<number> {
  const res = await fetch(`${url}/metrics`);
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : NaN;
}

describe('server: searches walk the graph on the search workers (SERVICE_WORKERS)', function () {
  this.timeout(120_000);
  // Every walk to a worker, even a lone request's (below, the default walks that one in place).
  const srv = useTestServer({ SERVICE_WORKERS: '2', SERVICE_WORKERS_IDLE_IN_PLACE: 'false' });

  before(async () => {
    const { url } = srv;
    expect((await call(url, 'PUT', '/collections/w', { vectors: { size: DIM, distance: 'Euclid' } })).status).to.equal(200);
    for (let from = 0; from < BASE; from += 500) {
      const points = vectors.slice(from, from + 500).map((v, i) => ({ id: from + i, vector: asList(v), payload: { n: from + i } }));
      expect((await call(url, 'PUT', '/collections/w/points?wait=true', { points })).status).to.equal(200);
    }
  });

  it('answers search, batch search, query and recommend from the workers, each finding a point by its own vector', async () => {
    const { url } = srv;
    const before = await metric(url, 'vgdb_search_worker_walks_total');
    expect(await metric(url, 'vgdb_search_workers')).to.equal(2);
    for (const id of [5, 777, 2999]) {
      const search = await call(url, 'POST', '/collections/w/points/search', { vector: asList(vectors[id]!), limit: 3 });
      expect(search.status).to.equal(200);
      expect(search.body.result[0].id).to.equal(id);
      const query = await call(url, 'POST', '/collections/w/points/query', { query: asList(vectors[id]!), limit: 3, with_payload: true });
      expect(query.body.result[0]).to.include({ id });
      expect(query.body.result[0].payload).to.deep.equal({ n: id });
      const rec = await call(url, 'POST', '/collections/w/points/recommend', { positive: [id], limit: 3 });
      expect(rec.status).to.equal(200);
      expect(rec.body.result.map((p: { id: number }) => p.id)).to.not.include(id);
    }
    const batch = await call(url, 'POST', '/collections/w/points/search/batch', { searches: [10, 20, 30, 40].map((id) => ({ vector: asList(vectors[id]!), limit: 1 })) });
    expect(batch.body.result.map((r: { id: number }[]) => r[0]!.id)).to.deep.equal([10, 20, 30, 40]);
    expect(await metric(url, 'vgdb_search_worker_walks_total')).to.be.greaterThan(before + 10);
  });

  it('under concurrent writers and searchers, answers only points that were written and always finds an acknowledged write', async () => {
    const { url } = srv;
    const written = new Set<number>(Array.from({ length: BASE }, (_, i) => i));
    let next = BASE;
    let searches = 0;
    let writesDone = false;
    const writer = async (): Promise<void> => {
      const mine: number[] = [];
      while (next < BASE + WRITES) {
        const id = next++;
        written.add(id);
        mine.push(id);
        const put = await call(url, 'PUT', '/collections/w/points?wait=true', { points: [{ id, vector: asList(vectors[id]!), payload: { n: id } }] });
        expect(put.status).to.equal(200);
        // Read your write: the search comes after the acknowledgement, so it must find the point.
        const found = await call(url, 'POST', '/collections/w/points/search', { vector: asList(vectors[id]!), limit: 1 });
        expect(found.status, JSON.stringify(found.body)).to.equal(200);
        expect(found.body.result[0]?.id, JSON.stringify(found.body)).to.equal(id);
        // Deletes one of its own earlier points (the other writer's may still be searched for).
        if (mine.length % 5 === 0) expect((await call(url, 'POST', '/collections/w/points/delete?wait=true', { points: [mine[mine.length - 2]] })).status).to.equal(200);
      }
    };
    const searcher = async (seed: number): Promise<void> => {
      const qs = randomVectors(50, DIM, seed);
      // Searches go on while the writers write, and at least SEARCHES_EACH of them per searcher.
      for (let i = 0; !writesDone || i < SEARCHES_EACH; i++) {
        const q = asList(qs[i % qs.length]!);
        const res = i % 3 === 0
          ? await call(url, 'POST', '/collections/w/points/search/batch', { searches: [{ vector: q, limit: 10 }, { vector: q, limit: 5, params: { hnsw_ef: 200 } }] })
          : await call(url, 'POST', '/collections/w/points/query', { query: q, limit: 10 });
        expect(res.status).to.equal(200);
        const ids: number[] = i % 3 === 0 ? res.body.result.flat().map((p: { id: number }) => p.id) : res.body.result.map((p: { id: number }) => p.id);
        for (const id of ids) expect(written.has(id), `id ${id} was never written`).to.equal(true);
        searches++;
      }
    };
    const searchers = [searcher(1), searcher(2), searcher(3)];
    await Promise.all([writer(), writer()]);
    writesDone = true;
    await Promise.all(searchers);
    expect(searches).to.be.at.least(3 * SEARCHES_EACH);
    expect(next - BASE).to.equal(WRITES);
  });

  it('replaces a worker that stops under a search, which answers 500 naming its request id, and goes on', async () => {
    const { url } = srv;
    const pool = processSearchPool()!;
    // No batch is being linked, so the next message to a worker is the search's walk.
    await srv.service.engine.indexed();
    const restarts = await metric(url, 'vgdb_search_worker_restarts_total');
    pool.onDispatch = (thread) => {
      pool.onDispatch = null;
      void thread.terminate();
    };
    const failed = await call(url, 'POST', '/collections/w/points/search', { vector: asList(vectors[1]!), limit: 1 });
    expect(failed.status).to.equal(500);
    expect(JSON.stringify(failed.body)).to.include(`request id ${failed.headers.get('x-request-id')}`);
    expect(await metric(url, 'vgdb_search_worker_restarts_total')).to.equal(restarts + 1);
    const again = await call(url, 'POST', '/collections/w/points/search', { vector: asList(vectors[1]!), limit: 1 });
    expect(again.body.result[0].id).to.equal(1);
  });
});

/** A search for point `id`'s vector in collection w through `agent` (one keep-alive connection); answers the first hit's id. */
function searchOn(agent: Agent, port: number, id: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const body = JSON.stringify({ vector: asList(vectors[id]!), limit: 1 });
    const req = request({ host: '127.0.0.1', port, path: '/collections/w/points/search', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve((JSON.parse(Buffer.concat(chunks).toString()) as { result: { id: number }[] }).result[0]!.id));
    });
    req.on('error', reject).end(body);
  });
}

describe('server: a search that is the only request in flight walks in place (SERVICE_WORKERS_IDLE_IN_PLACE)', function () {
  this.timeout(120_000);
  const srv = useTestServer({ SERVICE_WORKERS: '2' });

  it('walks a lone search in place, and sends the other searches of a batch to the workers', async () => {
    const { url } = srv;
    // No walk goes out to see whether other clients wait (that is the next test's).
    processSearchPool()!.probeEvery = 0;
    expect((await call(url, 'PUT', '/collections/w', { vectors: { size: DIM, distance: 'Euclid' } })).status).to.equal(200);
    const points = vectors.slice(0, BASE).map((v, id) => ({ id, vector: asList(v) }));
    expect((await call(url, 'PUT', '/collections/w/points?wait=true', { points })).status).to.equal(200);
    await srv.service.engine.indexed();
    const inPlace = await metric(url, 'vgdb_search_walks_in_place_total');
    const walks = await metric(url, 'vgdb_search_worker_walks_total');
    for (const id of [5, 777, 2999]) {
      const found = await call(url, 'POST', '/collections/w/points/search', { vector: asList(vectors[id]!), limit: 1 });
      expect(found.body.result[0].id).to.equal(id);
    }
    expect(await metric(url, 'vgdb_search_walks_in_place_total')).to.equal(inPlace + 3);
    expect(await metric(url, 'vgdb_search_worker_walks_total')).to.equal(walks);
    // A batch's first walk may be left here; the others go out side by side.
    const batch = await call(url, 'POST', '/collections/w/points/search/batch', { searches: [10, 20, 30, 40].map((id) => ({ vector: asList(vectors[id]!), limit: 1 })) });
    expect(batch.body.result.map((r: { id: number }[]) => r[0]!.id)).to.deep.equal([10, 20, 30, 40]);
    expect(await metric(url, 'vgdb_search_walks_in_place_total')).to.equal(inPlace + 4);
    expect(await metric(url, 'vgdb_search_worker_walks_total')).to.equal(walks + 3);
  });

  it('keeps every walk of one client on one connection in place, sending none out to look for others', async () => {
    const { url } = srv;
    const pool = processSearchPool()!;
    pool.probeEvery = 8;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const port = Number(new URL(url).port);
      // A request on a connection other than the last one's counts for a while: past it, and read
      // the pool's own counts (the metrics would come on a connection of their own).
      expect(await searchOn(agent, port, 299)).to.equal(299);
      await new Promise((r) => setTimeout(r, 100));
      const inPlace = pool.walksInPlace;
      const walks = pool.walks;
      for (let i = 0; i < 40; i++) expect(await searchOn(agent, port, 300 + i)).to.equal(300 + i);
      expect(pool.walksInPlace).to.equal(inPlace + 40);
      expect(pool.walks).to.equal(walks);
    } finally {
      agent.destroy();
    }
  });

  it('sends most walks to the workers while several clients search at once, though each request finds itself alone when it walks', async () => {
    const { url } = srv;
    const pool = processSearchPool()!;
    pool.probeEvery = 8;
    const port = Number(new URL(url).port);
    const agents = [0, 1, 2, 3].map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
    const search = (agent: Agent, id: number) => searchOn(agent, port, id);
    try {
      const inPlace = await metric(url, 'vgdb_search_walks_in_place_total');
      const walks = await metric(url, 'vgdb_search_worker_walks_total');
      await Promise.all(
        agents.map(async (agent, a) => {
          for (let i = 0; i < 100; i++) expect(await search(agent, 100 + a * 100 + i)).to.equal(100 + a * 100 + i);
        }),
      );
      const out = (await metric(url, 'vgdb_search_worker_walks_total')) - walks;
      const here = (await metric(url, 'vgdb_search_walks_in_place_total')) - inPlace;
      expect(out + here).to.equal(400);
      expect(out, `${out} on the workers, ${here} in place`).to.be.greaterThan(200);
    } finally {
      for (const a of agents) a.destroy();
    }
  });
});

describe('server: filtered searches walk on the search workers once the filter is kept as bits', function () {
  this.timeout(120_000);
  const srv = useTestServer({ SERVICE_WORKERS: '2', SERVICE_WORKERS_IDLE_IN_PLACE: 'false' });
  // More matches than a filter answered by a scan has (10,000), so the search walks the graph.
  const COUNT = 24_000;
  const SMALL = 8;
  const points = randomVectors(COUNT, SMALL, 41);
  const tenantOf = (id: number): number => id % 2;

  before(async () => {
    const { url } = srv;
    expect((await call(url, 'PUT', '/collections/f', { vectors: { size: SMALL, distance: 'Euclid' } })).status).to.equal(200);
    for (let from = 0; from < COUNT; from += 2000) {
      const batch = points.slice(from, from + 2000).map((v, i) => ({ id: from + i, vector: asList(v), payload: { tenant: tenantOf(from + i) } }));
      expect((await call(url, 'PUT', '/collections/f/points?wait=true', { points: batch })).status).to.equal(200);
    }
    await srv.service.engine.indexed();
  });

  const search = async (id: number, tenant: number) =>
    (await call(srv.url, 'POST', '/collections/f/points/search', { vector: asList(points[id]!), limit: 5, with_payload: true, filter: { must: [{ key: 'tenant', match: { value: tenant } }] } })).body.result as { id: number; payload: { tenant: number } }[];

  it('answers only matching points, finds a point by its own vector, and walks on the workers from the second search of a filter', async () => {
    const { url } = srv;
    const walks = await metric(url, 'vgdb_search_worker_walks_total');
    for (let round = 0; round < 20; round++) {
      for (const id of [11, 1234, 23_999]) {
        const hits = await search(id, tenantOf(id));
        expect(hits[0]!.id).to.equal(id);
        expect(hits.every((h) => h.payload.tenant === tenantOf(id))).to.equal(true);
      }
      if ((await metric(url, 'vgdb_search_worker_walks_total')) > walks + 3) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await metric(url, 'vgdb_search_worker_walks_total')).to.be.greaterThan(walks + 3);
  });

  it('sees every write acknowledged before the search: a payload that now matches, and a point deleted', async () => {
    const { url } = srv;
    for (let i = 0; i < 3; i++) await search(1, 1);
    const walks = await metric(url, 'vgdb_search_worker_walks_total');
    // Point 500 is tenant 0: it has no place in tenant 1's results until its payload says so.
    expect((await search(500, 1)).map((h) => h.id)).to.not.include(500);
    expect((await call(url, 'POST', '/collections/f/points/payload?wait=true', { payload: { tenant: 1 }, points: [500] })).status).to.equal(200);
    expect((await search(500, 1))[0]!.id).to.equal(500);
    expect((await call(url, 'POST', '/collections/f/points/delete?wait=true', { points: [500] })).status).to.equal(200);
    expect((await search(500, 1)).map((h) => h.id)).to.not.include(500);
    expect(await metric(url, 'vgdb_search_worker_walks_total'), 'on the workers').to.be.greaterThan(walks + 2);
  });

  it('under writers that move points between tenants, answers only points that match when it answers', async () => {
    const { url } = srv;
    const walks = await metric(url, 'vgdb_search_worker_walks_total');
    let writing = true;
    const writer = (async () => {
      for (let round = 0; writing; round++) {
        // Point 500 was deleted above.
        const ids = Array.from({ length: 50 }, (_, i) => (round * 50 + i * 37) % COUNT).filter((id) => id !== 500);
        const res = await call(url, 'POST', '/collections/f/points/payload', { payload: { tenant: round % 2 }, points: ids });
        expect(res.status).to.equal(200);
      }
    })();
    try {
      for (let i = 0; i < 150; i++) {
        const tenant = i % 2;
        const hits = await search((i * 97) % COUNT, tenant);
        expect(hits.length).to.equal(5);
        expect(hits.every((h) => h.payload.tenant === tenant), JSON.stringify(hits)).to.equal(true);
      }
    } finally {
      writing = false;
      await writer;
    }
    expect(await metric(url, 'vgdb_search_worker_walks_total')).to.be.greaterThan(walks + 100);
  });
});

describe('server: the search workers link new vectors into the graph in the background', function () {
  this.timeout(120_000);
  const srv = useTestServer({ SERVICE_WORKERS: '2', SERVICE_SNAPSHOT_EVERY: '4' });

  it('links on the workers, takes snapshots that wait for their batches, and restarts with every graph whole', async () => {
    const { url } = srv;
    const before = await metric(url, 'vgdb_search_worker_linked_total');
    expect((await call(url, 'PUT', '/collections/b', { vectors: { size: DIM, distance: 'Cosine' } })).status).to.equal(200);
    for (let from = 0; from < BASE; from += 250) {
      const points = vectors.slice(from, from + 250).map((v, i) => ({ id: from + i, vector: asList(v) }));
      expect((await call(url, 'PUT', '/collections/b/points?wait=true', { points })).status).to.equal(200);
    }
    // The background indexer, as a user waits for it: until the collection is green.
    while ((await call(url, 'GET', '/collections/b')).body.result.status !== 'green') await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await metric(url, 'vgdb_search_worker_linked_total')).to.be.greaterThan(before + BASE / 2);
    await srv.restart();
    const info = await call(srv.url, 'GET', '/collections/b');
    expect(info.body.result.points_count).to.equal(BASE);
    for (const id of [0, 1234, BASE - 1]) {
      const found = await call(srv.url, 'POST', '/collections/b/points/search', { vector: asList(vectors[id]!), limit: 1 });
      expect(found.body.result[0].id).to.equal(id);
    }
  });
});

describe('server: SERVICE_WORKERS', function () {
  this.timeout(120_000);

  it('takes 0 to 31 workers, one per core by default, and refuses anything else naming the variable', () => {
    expect(readConfig({}).workers).to.equal(Math.min(availableParallelism(), MAX_SEARCH_WORKERS));
    expect(readConfig({ SERVICE_WORKERS: '0' }).workers).to.equal(0);
    expect(readConfig({ SERVICE_WORKERS: '31' }).workers).to.equal(31);
    for (const bad of ['32', '-1', '1.5', 'two']) expect(() => readConfig({ SERVICE_WORKERS: bad })).to.throw(/SERVICE_WORKERS must be an integer from 0 to 31/);
  });

  it('walks a lone request in place by default; SERVICE_WORKERS_IDLE_IN_PLACE takes a yes or a no, naming the variable otherwise', () => {
    expect(readConfig({}).workersIdleInPlace).to.equal(true);
    expect(readConfig({ SERVICE_WORKERS_IDLE_IN_PLACE: 'false' }).workersIdleInPlace).to.equal(false);
    expect(readConfig({ SERVICE_WORKERS_IDLE_IN_PLACE: 'on' }).workersIdleInPlace).to.equal(true);
    expect(() => readConfig({ SERVICE_WORKERS_IDLE_IN_PLACE: 'sometimes' })).to.throw(/SERVICE_WORKERS_IDLE_IN_PLACE must be one of/);
  });

  describe('with 0', () => {
    const srv = useTestServer({ SERVICE_WORKERS: '0' });

    it('starts no worker and answers every search on the request thread', async () => {
      const { url } = srv;
      expect(processSearchPool()).to.equal(null);
      expect(await metric(url, 'vgdb_search_workers')).to.equal(0);
      expect(Number.isNaN(await metric(url, 'vgdb_search_worker_walks_total'))).to.equal(true);
      expect((await call(url, 'PUT', '/collections/z', { vectors: { size: DIM, distance: 'Euclid' } })).status).to.equal(200);
      const points = vectors.slice(0, BASE).map((v, id) => ({ id, vector: asList(v) }));
      expect((await call(url, 'PUT', '/collections/z/points?wait=true', { points })).status).to.equal(200);
      const batch = await call(url, 'POST', '/collections/z/points/search/batch', { searches: [8, 9].map((id) => ({ vector: asList(vectors[id]!), limit: 1 })) });
      expect(batch.body.result.map((r: { id: number }[]) => r[0]!.id)).to.deep.equal([8, 9]);
    });
  });
});
