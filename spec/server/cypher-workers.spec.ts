import { expect } from 'chai';
import { availableParallelism } from 'node:os';
import { readConfig } from '../../server/config.js';
import { call, startTestServer, useTestServer, type TestServer } from '../helpers/http.js';
import { scrape } from '../helpers/prometheus.js';

const RUNAWAY = 'UNWIND range(1, 1000000000) AS a UNWIND range(1, 1000000000) AS b RETURN count(*)';

/** A graph query's whole answer as text, with the timings (which differ run to run) taken out. */
async function queryText(url: string, query: string, parameters: Record<string, unknown> = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/collections/g/graph/query`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query, parameters }) });
  const text = (await res.text()).replace(/"execution_time_ms":[^,}]+/, '"execution_time_ms":0').replace(/"time":[^,}]+/, '"time":0');
  return { status: res.status, text };
}

const answered = async (url: string): Promise<number> => (await scrape(url)).value('vgdb_cypher_worker_queries_total');
const running = async (url: string, thread: 'replica' | 'request'): Promise<number> => (await scrape(url)).value('vgdb_cypher_queries_running', { thread });

/** Polls until `test` holds (the replicas answer asynchronously); fails with `what` after 20 s. */
async function until(what: string, test: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await test()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never saw: ${what}`);
}

async function loadGraph(url: string): Promise<void> {
  expect((await call(url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
  const points = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, vector: [i, i % 7], payload: { name: `p${i + 1}`, rank: i % 5, score: i / 4, labels: i % 2 === 0 ? ['Even'] : ['Odd'] } }));
  expect((await call(url, 'PUT', '/collections/g/points?wait=true', { points })).status).to.equal(200);
  for (let i = 1; i < 40; i++) expect((await call(url, 'POST', '/collections/g/graph/edges', { from_id: i, to_id: i + 1, relation: i % 3 === 0 ? 'KNOWS' : 'LIKES', weight: i / 10 })).status).to.equal(200);
  const write = await call(url, 'POST', '/collections/g/graph/query', {
    query: "CREATE (a:Person {name: 'Ann', born: date('1985-04-12'), big: 9007199254740993, ratio: 1.0})-[:WROTE {at: datetime('2024-01-02T03:04:05Z')}]->(b:Book {title: 'Graphs', tags: ['x', 'y']})",
  });
  expect(write.status).to.equal(200);
}

/** Read queries of the Cypher specs' kinds: matches, paths, aggregation, types, procedures, subqueries; and errors met while running. */
const QUERIES: [string, Record<string, unknown>?][] = [
  ['MATCH (n) RETURN n ORDER BY id(n)'],
  ['MATCH (a)-[r:KNOWS]->(b) RETURN a.name, type(r), r.weight, b.name ORDER BY a.name'],
  ['MATCH p = (a {name: $start})-[*1..3]->(b) RETURN p, length(p) ORDER BY length(p)', { start: 'p1' }],
  ['MATCH (n:Even) RETURN n.rank AS rank, count(*) AS c, avg(n.score) AS mean, collect(n.name)[0..2] AS some ORDER BY rank'],
  ["MATCH (a:Person)-[w:WROTE]->(b) RETURN a.born, a.big, a.ratio, w.at, b.tags, a.born + duration('P1M') AS later"],
  ['UNWIND range(1, 5) AS x WITH x WHERE x % 2 = 1 RETURN x, x * 1.5 AS f, toString(x) AS s, [y IN range(1, x) | y * y] AS squares'],
  ['MATCH (n) WHERE n.score > 5 RETURN n.name ORDER BY n.score DESC LIMIT 3 UNION MATCH (n:Book) RETURN n.title AS `n.name`'],
  ['CALL db.labels() YIELD label RETURN label ORDER BY label'],
  ['MATCH (n:Odd) WHERE EXISTS { MATCH (n)-[:KNOWS]->() } RETURN count(n) AS c'],
  ['MATCH (n) RETURN n {.name, .rank} AS m ORDER BY n.name LIMIT 4'],
  ['RETURN 1 / 0 AS boom'],
  ["RETURN date('not a date') AS d"],
];

describe('server: read-only Cypher on the Cypher replicas (SERVICE_CYPHER_WORKERS)', function () {
  this.timeout(120_000);

  describe('answers', () => {
    let replicas: TestServer;
    let inPlace: TestServer;
    before(async () => {
      [replicas, inPlace] = await Promise.all([startTestServer({ SERVICE_CYPHER_WORKERS: '2' }), startTestServer({ SERVICE_CYPHER_WORKERS: '0' })]);
      await Promise.all([loadGraph(replicas.url), loadGraph(inPlace.url)]);
      // Until they have their state, reads run on the free request thread.
      await replicas.service.cypher.ready();
    });
    after(async () => {
      for (const s of [replicas, inPlace]) {
        await s.stop();
        s.remove();
      }
    });

    it('the same answer, byte for byte but the timings, as the query run on the request thread, errors included', async () => {
      const before = await answered(replicas.url);
      let succeeded = 0;
      for (const [query, parameters] of QUERIES) {
        const there = await queryText(replicas.url, query, parameters);
        const here = await queryText(inPlace.url, query, parameters);
        expect(there, query).to.deep.equal(here);
        if (there.status === 200) succeeded++;
      }
      expect(succeeded).to.equal(QUERIES.length - 2);
      expect(await answered(replicas.url), 'every successful read was answered by a replica').to.equal(before + succeeded);
      expect(replicas.service.cypher.threads()).to.have.length(2);
      expect(await answered(inPlace.url)).to.equal(0);
      expect(inPlace.service.cypher.threads(), 'SERVICE_CYPHER_WORKERS=0 starts no thread').to.have.length(0);
      expect((await scrape(inPlace.url)).value('vgdb_cypher_workers')).to.equal(0);
    });

    it('walks a traverse on a replica, with the same answer, and the same 404 for a missing start', async () => {
      const before = await answered(replicas.url);
      for (const body of [{ start_id: 1, max_depth: 3 }, { start_id: 5, max_depth: 10, relations: ['KNOWS'] }, { start_id: 999, max_depth: 2 }]) {
        const there = await call(replicas.url, 'POST', '/collections/g/graph/traverse', body);
        const here = await call(inPlace.url, 'POST', '/collections/g/graph/traverse', body);
        expect(there.status).to.equal(here.status);
        expect(there.body.result ?? there.body.message).to.deep.equal(here.body.result ?? here.body.message);
      }
      expect((await call(replicas.url, 'POST', '/collections/g/graph/traverse', { start_id: 1, max_depth: 3 })).body.result.visited).to.have.length(4);
      expect(await answered(replicas.url)).to.equal(before + 3);
    });

    it('keeps a vector predicate on the request thread, with the same answer', async () => {
      const before = await answered(replicas.url);
      const query = 'MATCH (n) WHERE n.embedding <-> $q < 2.5 RETURN n.name ORDER BY n.name';
      const there = await queryText(replicas.url, query, { q: [3, 3] });
      expect(there).to.deep.equal(await queryText(inPlace.url, query, { q: [3, 3] }));
      expect(there.text).to.include('p4');
      expect(await answered(replicas.url)).to.equal(before);
    });

    it('reads its own writes: a Cypher CREATE, or a points upsert and an edge, is seen by the next MATCH', async () => {
      const { url } = replicas;
      const before = await answered(url);
      for (let i = 0; i < 15; i++) {
        expect((await call(url, 'POST', '/collections/g/graph/query', { query: 'CREATE (:Fresh {k: $k})', parameters: { k: i } })).status).to.equal(200);
        const seen = await call(url, 'POST', '/collections/g/graph/query', { query: 'MATCH (n:Fresh) RETURN max(n.k) AS k, count(n) AS c' });
        expect(seen.body.result.rows).to.deep.equal([[i, i + 1]]);
        // Below every id in use: CREATE takes the next id above them, which an upsert would overwrite.
        const id = 5000 - i;
        expect((await call(url, 'PUT', '/collections/g/points?wait=true', { points: [{ id, vector: [0, 0], payload: { name: `r${i}` } }] })).status).to.equal(200);
        expect((await call(url, 'POST', '/collections/g/graph/edges', { from_id: 1, to_id: id, relation: 'NEW' })).status).to.equal(200);
        const edge = await call(url, 'POST', '/collections/g/graph/query', { query: 'MATCH ({name: "p1"})-[:NEW]->(m) WHERE id(m) = $id RETURN m.name', parameters: { id } });
        expect(edge.body.result.rows).to.deep.equal([[`r${i}`]]);
      }
      expect(await answered(url)).to.equal(before + 30);
    });
  });

  describe('side by side', () => {
    const s = useTestServer({ SERVICE_CYPHER_WORKERS: '2', SERVICE_QUERY_TIMEOUT_MS: '4000' }, 'each');
    beforeEach(async () => {
      expect((await call(s.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
      expect((await call(s.url, 'PUT', '/collections/g/points?wait=true', { points: [{ id: 1, vector: [1, 2], payload: { name: 'one' } }] })).status).to.equal(200);
      await s.service.cypher.ready();
    });

    it('runs two long queries at the same moment, one on each replica, while /healthz and a point read answer; both then time out', async () => {
      const first = call(s.url, 'POST', '/collections/g/graph/query', { query: RUNAWAY });
      const second = call(s.url, 'POST', '/collections/g/graph/query', { query: RUNAWAY });
      await until('both queries running on the replicas at once', async () => (await running(s.url, 'replica')) === 2);
      expect(await running(s.url, 'request')).to.equal(0);
      for (let i = 0; i < 5; i++) {
        expect((await call(s.url, 'GET', '/healthz')).status).to.equal(200);
        expect((await call(s.url, 'GET', '/collections/g/points/1')).status).to.equal(200);
      }
      for (const r of await Promise.all([first, second])) {
        expect(r.status).to.equal(400);
        expect(r.body.message).to.match(/^TransientError \(QueryTimeout\)/);
      }
      expect(await running(s.url, 'replica')).to.equal(0);
    });

    it('fails only the queries of a replica that stops, with a 500 naming the request id; a new replica answers the next query', async () => {
      expect((await call(s.url, 'POST', '/collections/g/graph/query', { query: 'RETURN 1' })).status).to.equal(200);
      const runaway = call(s.url, 'POST', '/collections/g/graph/query', { query: RUNAWAY });
      await until('the runaway running on a replica', async () => (await running(s.url, 'replica')) === 1);
      const [a, b] = s.service.cypher.threads();
      // The runaway went to one of the two; stop both, so the one holding it is surely stopped.
      await Promise.all([a!.terminate(), b!.terminate()]);
      const r = await runaway;
      expect(r.status).to.equal(500);
      expect(r.body.message).to.equal(`internal error (request id ${r.headers.get('x-request-id')})`);
      await until('both replicas replaced', async () => (await scrape(s.url)).value('vgdb_cypher_worker_restarts_total') === 2);
      expect((await call(s.url, 'PUT', '/collections/g/points?wait=true', { points: [{ id: 2, vector: [0, 0], payload: { name: 'two' } }] })).status).to.equal(200);
      const next = await call(s.url, 'POST', '/collections/g/graph/query', { query: 'MATCH (n) RETURN n.name ORDER BY n.name' });
      expect(next.body.result.rows).to.deep.equal([['one'], ['two']]);
      expect(s.service.cypher.threads().every((t) => t !== a && t !== b)).to.equal(true);
    });
  });

  describe('and a streamed import', () => {
    const s = useTestServer({ SERVICE_CYPHER_WORKERS: '2' }, 'each');

    it('replaces the replicas by copies loaded after the import, failing nothing: a query begun before ends, the next sees the import', async () => {
      expect((await call(s.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
      expect((await call(s.url, 'POST', '/collections/g/graph/query', { query: "CREATE (:A {name: 'a'})-[:T]->(:B {name: 'b'})" })).status).to.equal(200);
      const exported = Buffer.from(await (await fetch(`${s.url}/collections/g/export`)).arrayBuffer());
      await s.service.cypher.ready();
      const long = call(s.url, 'POST', '/collections/g/graph/query', { query: 'UNWIND range(1, 3000000) AS x RETURN count(x) AS n' });
      await until('the long query on a replica', async () => (await running(s.url, 'replica')) === 1);
      const before = s.service.cypher.threads();
      expect(before).to.have.length(2);
      const imported = await fetch(`${s.url}/collections/h/import?mode=create`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: exported });
      expect(imported.status).to.equal(200);
      const seen = await call(s.url, 'POST', '/collections/h/graph/query', { query: 'MATCH (a)-[:T]->(b) RETURN a.name, b.name' });
      expect(seen.status).to.equal(200);
      expect(seen.body.result.rows).to.deep.equal([['a', 'b']]);
      expect((await long).body.result.rows).to.deep.equal([[3000000]]);
      const after = s.service.cypher.threads();
      expect(after.every((t) => !before.includes(t)), 'both replicas are new copies').to.equal(true);
      expect((await scrape(s.url)).value('vgdb_cypher_worker_restarts_total'), 'none stopped with a failure').to.equal(0);
    });
  });

  describe('with one replica (the default on two cores)', () => {
    const s = useTestServer({ SERVICE_CYPHER_WORKERS: '1', SERVICE_QUERY_TIMEOUT_MS: '4000' }, 'each');

    it('runs the second long query on the request thread while the replica runs the first', async () => {
      expect((await call(s.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
      await s.service.cypher.ready();
      const first = call(s.url, 'POST', '/collections/g/graph/query', { query: RUNAWAY });
      await until('the first on the replica', async () => (await running(s.url, 'replica')) === 1);
      const second = call(s.url, 'POST', '/collections/g/graph/query', { query: RUNAWAY });
      await until('the second on the request thread, the first still on the replica', async () => (await running(s.url, 'request')) === 1 && (await running(s.url, 'replica')) === 1);
      expect((await call(s.url, 'GET', '/healthz')).status).to.equal(200);
      for (const r of await Promise.all([first, second])) expect(r.body.message).to.match(/^TransientError \(QueryTimeout\)/);
    });
  });

  describe('with a read begun before the replica has its state', () => {
    const s = useTestServer({ SERVICE_CYPHER_WORKERS: '1' }, 'each');

    it('runs it on the request thread until the replica has its state, then has the replica run it, with the same answer', async () => {
      expect((await call(s.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
      // The server's first query: it starts the replica, which is still loading.
      const long = call(s.url, 'POST', '/collections/g/graph/query', { query: 'UNWIND range(1, 6000000) AS x RETURN count(x) AS n' });
      await until('the query on the request thread', async () => (await running(s.url, 'request')) === 1);
      await until('the query taken over by the replica', async () => (await running(s.url, 'replica')) === 1 && (await running(s.url, 'request')) === 0);
      const r = await long;
      expect(r.status).to.equal(200);
      expect(r.body.result.rows).to.deep.equal([[6000000]]);
      expect(await answered(s.url), 'the replica answered it').to.equal(1);
    });

    it('keeps on the request thread a read that searches vectors, which replicas cannot run', async () => {
      expect((await call(s.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
      expect((await call(s.url, 'PUT', '/collections/g/points?wait=true', { points: [{ id: 1, vector: [1, 2] }] })).status).to.equal(200);
      const long = call(s.url, 'POST', '/collections/g/graph/query', { query: 'UNWIND range(1, 6000000) AS x WITH count(x) AS n MATCH (p) WHERE p.embedding <-> [1.0, 2.0] < 10 RETURN n, count(p) AS c' });
      await until('the query on the request thread', async () => (await running(s.url, 'request')) === 1);
      await s.service.cypher.ready();
      const r = await long;
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.result.rows).to.deep.equal([[6000000, 1]]);
      expect(await answered(s.url), 'no replica answered it').to.equal(0);
    });
  });

  it('reads SERVICE_CYPHER_WORKERS from 0 to 16, one replica by default on more than one core, and refuses anything else by name', () => {
    expect(readConfig({}).cypherWorkers).to.equal(availableParallelism() > 1 ? 1 : 0);
    expect(readConfig({ SERVICE_CYPHER_WORKERS: '0' }).cypherWorkers).to.equal(0);
    expect(readConfig({ SERVICE_CYPHER_WORKERS: '16' }).cypherWorkers).to.equal(16);
    for (const bad of ['17', '-1', '1.5', 'two']) expect(() => readConfig({ SERVICE_CYPHER_WORKERS: bad })).to.throw(`SERVICE_CYPHER_WORKERS must be an integer from 0 to 16, got "${bad}"`);
  });
});
