import { expect } from 'chai';
import neo4j, { type Driver } from 'neo4j-driver';
import { call, startTestServer, useTestServer, type SuiteServer, type TestServer } from '../helpers/http.js';
import { scrape } from '../helpers/prometheus.js';
import { DISCARD, FAILURE, HELLO, LOGON, msg, PULL, RawBoltClient, RECORD, RESET, RUN, SUCCESS } from './raw-client.js';

const { Date: BoltDate, DateTime, Duration, Point } = neo4j.types;

const RUNAWAY = 'UNWIND range(1, 1000000000) AS a UNWIND range(1, 1000000000) AS b RETURN count(*)';
const UUID = '5c56c793-69f3-4fbf-87e6-c4bf54c28c26';
const OTHER_UUID = '0f0e7c4e-2d6b-4a57-9d0b-1c5e6f7a8b9c';

const answered = async (url: string): Promise<number> => (await scrape(url)).value('vgdb_cypher_worker_queries_total');
const running = async (url: string, thread: 'replica' | 'request'): Promise<number> => (await scrape(url)).value('vgdb_cypher_queries_running', { thread });

/** Polls until `test` holds (the replicas answer asynchronously); fails with `what` after 20 s. */
async function until(what: string, test: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await test()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never saw: ${what}`);
}

const driverOf = (s: { service: { boltPort: number | null } }): Driver => neo4j.driver(`bolt://127.0.0.1:${s.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'));

/** The default database (`neo4j`) made, with int and UUID points, labels, weighted edges and typed properties. */
async function loadGraph(url: string, driver: Driver): Promise<void> {
  expect((await call(url, 'PUT', '/collections/neo4j', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
  const points = [
    { id: UUID, vector: [1, 0], payload: { name: 'u', score: 0.5 }, labels: ['U', 'Person'] },
    { id: OTHER_UUID, vector: [0, 1], payload: { name: 'v' }, labels: ['U'] },
    ...Array.from({ length: 20 }, (_, i) => ({ id: i + 1, vector: [i, i % 3], payload: { name: `p${i + 1}`, rank: i % 4 }, labels: [i % 2 === 0 ? 'Even' : 'Odd'] })),
  ];
  expect((await call(url, 'PUT', '/collections/neo4j/points?wait=true', { points })).status).to.equal(200);
  const edges = [
    { from_id: UUID, to_id: 1, relation: 'KNOWS', weight: 0.25 },
    { from_id: 1, to_id: OTHER_UUID, relation: 'LIKES', weight: 2 },
    ...Array.from({ length: 19 }, (_, i) => ({ from_id: i + 1, to_id: i + 2, relation: i % 2 === 0 ? 'KNOWS' : 'LIKES', weight: i / 4 })),
  ];
  for (const e of edges) expect((await call(url, 'POST', '/collections/neo4j/graph/edges', e)).status).to.equal(200);
  const session = driver.session();
  try {
    const props = { born: new BoltDate(1985, 4, 12), at: new DateTime(2024, 6, 1, 12, 0, 0, 0, -18000), took: new Duration(14, 3, 3661, 500), place: new Point(neo4j.int(4326), 18.07, 59.33), big: neo4j.int('9223372036854775807'), blob: Int8Array.from([1, -2, 3]) };
    await session.run("CREATE (a:Typed {name: 'typed'}) SET a += $props, a.whole = 2.0", { props });
  } finally {
    await session.close();
  }
}

/** Read queries of every kind of value, parameters of every type, UNION, a procedure, and errors met making the first row or later. */
const QUERIES: [string, Record<string, unknown>?][] = [
  ['MATCH (n) RETURN n ORDER BY n.name'],
  ['MATCH (a)-[r]->(b) RETURN a, r, b ORDER BY id(r)'],
  ['MATCH p = (a {name: $start})-[*1..3]-(b) RETURN p, length(p) ORDER BY length(p), b.name', { start: 'u' }],
  ['MATCH (u:U) RETURN id(u) AS id, elementId(u) AS eid, u ORDER BY u.name'],
  ['MATCH (t:Typed) RETURN t.born, t.at, t.took, t.place, t.big, t.blob, t.whole, t.born + duration("P1M") AS later'],
  ['RETURN $d AS d, $t AS t, $p AS p, $f AS f, $i AS i, $b AS b, $m AS m, $l AS l', { d: new BoltDate(2024, 2, 29), t: new DateTime(2024, 6, 1, 12, 0, 0, 0, undefined, 'Europe/Paris'), p: new Point(neo4j.int(7203), 1, 2.5), f: 2, i: neo4j.int('-9007199254740993'), b: Int8Array.from([0, 127]), m: { a: neo4j.int(1), nested: { b: 'c' } }, l: [neo4j.int(1), 'two', [false]] }],
  ['MATCH (n:Even) RETURN n.rank AS rank, count(*) AS c, collect(n.name) AS names ORDER BY rank'],
  ['MATCH (n:Odd) RETURN n.name AS name ORDER BY name LIMIT 2 UNION MATCH (n:U) RETURN n.name AS name'],
  ['CALL db.labels() YIELD label RETURN label ORDER BY label'],
  ['MATCH (n) RETURN n {.name, .rank} AS m ORDER BY n.name LIMIT 4'],
  ['UNWIND range(1, 2000) AS x RETURN x, x * 1.5 AS f'],
  ['RETURN 1 / 0 AS boom'],
  ['UNWIND [1, 2, 0] AS x RETURN 10 / x AS y'],
  ['MATCH (n) RETURN n.missing.deeper AS nope'],
];

/** Every answer (rows or error code and message) of QUERIES, in one session (so the UUID ids are those of one connection). */
async function answers(driver: Driver): Promise<unknown[]> {
  const session = driver.session({ fetchSize: 100 });
  const out: unknown[] = [];
  try {
    for (const [query, parameters] of QUERIES) {
      out.push(
        await session.run(query, parameters).then(
          (r) => r.records.map((rec) => rec.toObject()),
          (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
        ),
      );
    }
  } finally {
    await session.close();
  }
  return out;
}

/** A raw Bolt 5.4 connection, logged on. */
async function rawClient(port: number): Promise<RawBoltClient> {
  const { client } = await RawBoltClient.open(port, [[5, 4, 4]]);
  client.send(msg(HELLO, { user_agent: 'raw/1' }), msg(LOGON, { scheme: 'none' }));
  expect((await client.take(2)).map((s) => s.signature)).to.deep.equal([SUCCESS, SUCCESS]);
  return client;
}

/** RUN a long streaming read and PULL 10 of it: the cursor is left open on a replica. */
async function openCursor(client: RawBoltClient, rows = 100_000): Promise<void> {
  client.send(msg(RUN, `UNWIND range(1, ${rows}) AS i RETURN i`, {}, {}), msg(PULL, { n: 10 }));
  const answers = await client.take(12);
  expect(answers.map((s) => s.signature)).to.deep.equal([SUCCESS, ...Array(10).fill(RECORD), SUCCESS]);
  expect(answers[11]!.fields[0]).to.deep.equal({ has_more: true });
}

describe('bolt: auto-commit reads on the Cypher replicas', function () {
  this.timeout(120_000);

  describe('answers', () => {
    let replicas: TestServer;
    let inPlace: TestServer;
    const drivers: Driver[] = [];
    before(async () => {
      [replicas, inPlace] = await Promise.all([startTestServer({ SERVICE_CYPHER_WORKERS: '1' }), startTestServer({ SERVICE_CYPHER_WORKERS: '0' })]);
      for (const s of [replicas, inPlace]) {
        drivers.push(driverOf(s));
        await loadGraph(s.url, drivers[drivers.length - 1]!);
      }
      // Until it has its state, reads run on the free request thread.
      await replicas.service.cypher.ready();
    });
    after(async () => {
      await Promise.all(drivers.map((d) => d.close()));
      for (const s of [replicas, inPlace]) {
        await s.stop();
        s.remove();
      }
    });

    it('the same records, ids, element ids and errors on a replica as on the request thread', async () => {
      const before = await answered(replicas.url);
      const [there, here] = await Promise.all([answers(drivers[0]!), answers(drivers[1]!)]);
      expect(await answered(replicas.url), 'every read ran on the replica (one failed making its first row)').to.equal(before + QUERIES.length - 1);
      expect(inPlace.service.cypher.threads(), 'SERVICE_CYPHER_WORKERS=0 starts no thread').to.have.length(0);
      expect(there).to.deep.equal(here);
      const errors = there.filter((a) => !Array.isArray(a)) as { code: string }[];
      expect(errors.map((e) => e.code)).to.deep.equal(['Neo.ClientError.Statement.ArithmeticError', 'Neo.ClientError.Statement.ArithmeticError']);
      const u = there[3] as { u: { identity: { toNumber(): number }; elementId: string } }[];
      expect(u.map((r) => [r.u.identity.toNumber(), r.u.elementId])).to.deep.equal([
        [-1, UUID],
        [-2, OTHER_UUID],
      ]);
      expect(replicas.service.cypher.cursorsOpen).to.equal(0);
    });

    it('sends the reads of a transaction that has written nothing to a replica (executeRead), and keeps those after its first write here, where its overlay is', async () => {
      const before = await answered(replicas.url);
      const session = drivers[0]!.session();
      try {
        const names = await session.executeRead(async (tx) => (await tx.run('MATCH (n:U) RETURN n.name AS name ORDER BY name')).records.map((r) => r.get('name') as string));
        expect(names).to.deep.equal(['u', 'v']);
        expect(await answered(replicas.url), 'executeRead ran on the replica').to.equal(before + 1);
        const seen = await session.executeWrite(async (tx) => {
          await tx.run("CREATE (:U {name: 'w'})");
          return (await tx.run('MATCH (n:U) RETURN n.name AS name ORDER BY name')).records.map((r) => r.get('name') as string);
        });
        expect(seen, 'a read after the write sees it').to.deep.equal(['u', 'v', 'w']);
        expect(await answered(replicas.url), 'the read after a write stayed with its overlay').to.equal(before + 1);
        await session.executeWrite((tx) => tx.run("MATCH (n:U {name: 'w'}) DELETE n"));
      } finally {
        await session.close();
      }
    });
  });

  /** A server with one replica and the default database made; a raw client and a driver closed after each test. */
  function useCursorServer(env: Record<string, string>): { s: SuiteServer; raw(): Promise<RawBoltClient>; dropRaw(): void; driver(): Driver } {
    const s = useTestServer({ SERVICE_CYPHER_WORKERS: '1', ...env }, 'each');
    let client: RawBoltClient | null = null;
    let driver: Driver | null = null;
    beforeEach(async () => {
      expect((await call(s.url, 'PUT', '/collections/neo4j', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
      await s.service.cypher.ready();
    });
    afterEach(async () => {
      client?.close();
      client = null;
      await driver?.close();
      driver = null;
    });
    return {
      s,
      raw: async () => (client = await rawClient(s.service.boltPort!)),
      dropRaw: () => {
        client?.close();
        client = null;
      },
      driver: () => (driver ??= driverOf(s)),
    };
  }

  describe('cursors', () => {
    const { s, raw, dropRaw, driver } = useCursorServer({});

    it('keeps a cursor on the replica across PULLs, and lets it go on DISCARD, RESET, a closed connection and a closed session', async () => {
      const client = await raw();
      await openCursor(client, 250);
      expect(s.service.cypher.cursorsOpen).to.equal(1);
      expect((await scrape(s.url)).value('vgdb_cypher_worker_cursors_open')).to.equal(1);
      client.send(msg(PULL, { n: 100 }));
      const more = await client.take(101);
      expect(more[0]!.fields[0]).to.deep.equal([11]);
      expect(more[100]!.fields[0]).to.deep.equal({ has_more: true });
      client.send(msg(DISCARD, { n: -1 }));
      const summary = await client.next();
      expect(summary.signature).to.equal(SUCCESS);
      expect(summary.fields[0]).to.include({ type: 'r', db: 'neo4j' });
      expect(s.service.cypher.cursorsOpen, 'DISCARD').to.equal(0);

      await openCursor(client);
      client.send(msg(RESET));
      expect((await client.next()).signature).to.equal(SUCCESS);
      expect(s.service.cypher.cursorsOpen, 'RESET').to.equal(0);

      await openCursor(client);
      dropRaw();
      await until('the cursor of a closed connection let go', () => s.service.cypher.cursorsOpen === 0);

      const session = driver().session({ fetchSize: 10 });
      const rows = session.run('UNWIND range(1, 100000) AS i RETURN i')[Symbol.asyncIterator]();
      expect(((await rows.next()).value as { get(k: string): { toNumber(): number } }).get('i').toNumber()).to.equal(1);
      expect(s.service.cypher.cursorsOpen).to.equal(1);
      await session.close();
      await until('the cursor of a closed session let go', () => s.service.cypher.cursorsOpen === 0);
      expect(await answered(s.url)).to.equal(4);
    });

    it('fails the driver with an error, not a hang, when the replica holding its cursor stops; the next read runs on a new copy', async () => {
      const session = driver().session({ fetchSize: 10 });
      try {
        let seen = 0;
        const error = await new Promise<{ code: string; message: string } | null>((resolve) => {
          session.run('UNWIND range(1, 100000) AS i RETURN i').subscribe({
            onNext: () => {
              if (seen++ === 0) void s.service.cypher.threads()[0]!.terminate();
            },
            onCompleted: () => resolve(null),
            onError: (e) => resolve(e as unknown as { code: string; message: string }),
          });
        });
        expect(seen).to.be.below(100_000);
        expect(error?.code).to.equal('Neo.DatabaseError.General.UnknownError');
        expect(error?.message).to.match(/the Cypher replica (holding the result )?stopped/);
      } finally {
        await session.close();
      }
      await until('the replica replaced', async () => (await scrape(s.url)).value('vgdb_cypher_worker_restarts_total') === 1);
      const again = driver().session();
      try {
        expect((await again.run('UNWIND range(1, 5) AS i RETURN sum(i) AS s')).records[0]!.get('s').toNumber()).to.equal(15);
      } finally {
        await again.close();
      }
      expect(s.service.cypher.cursorsOpen).to.equal(0);
    });

    it('finishes a cursor on the replica a streamed import retires, which stops once it is done', async () => {
      const exported = Buffer.from(await (await fetch(`${s.url}/collections/neo4j/export`)).arrayBuffer());
      const client = await raw();
      await openCursor(client, 1000);
      const before = s.service.cypher.threads();
      let retiredExited = false;
      const retiredExit = new Promise<void>((resolve) =>
        before[0]!.once('exit', () => {
          retiredExited = true;
          resolve();
        }),
      );
      const imported = await fetch(`${s.url}/collections/h/import?mode=create`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: exported });
      expect(imported.status).to.equal(200);
      await until('a new copy in its place', () => s.service.cypher.threads()[0] !== before[0]);
      expect(retiredExited, 'the retired replica waits for the cursor it holds').to.equal(false);
      client.send(msg(PULL, { n: -1 }));
      const next = await client.next();
      expect(next.signature, JSON.stringify(next.fields)).to.equal(RECORD);
      const rest = [next, ...(await client.take(990))];
      expect(rest[0]!.fields[0]).to.deep.equal([11]);
      expect(rest[989]!.fields[0]).to.deep.equal([1000]);
      expect(rest[990]!.signature).to.equal(SUCCESS);
      expect(rest[990]!.fields[0]).to.include({ type: 'r' });
      expect(s.service.cypher.cursorsOpen).to.equal(0);
      await retiredExit;
      expect((await scrape(s.url)).value('vgdb_cypher_worker_restarts_total'), 'none stopped with a failure').to.equal(0);
    });
  });

  describe('cursors and the query deadline', () => {
    const { s, raw } = useCursorServer({ SERVICE_QUERY_TIMEOUT_MS: '1500' });

    it('lets a cursor left unpulled go at the query deadline: the next PULL fails with the timeout', async () => {
      const client = await raw();
      await openCursor(client);
      await until('the cursor let go at its deadline', () => s.service.cypher.cursorsOpen === 0);
      client.send(msg(PULL, { n: 10 }));
      const failed = await client.next();
      expect(failed.signature).to.equal(FAILURE);
      expect(failed.fields[0]).to.include({ code: 'Neo.ClientError.Transaction.TransactionTimedOut' });
    });
  });

  describe('with one replica (the default on two cores)', () => {
    const s = useTestServer({ SERVICE_CYPHER_WORKERS: '1', SERVICE_QUERY_TIMEOUT_MS: '4000' }, 'each');

    it('runs two long Bolt reads at the same moment, one on the replica and one on the request thread, while /healthz answers', async () => {
      expect((await call(s.url, 'PUT', '/collections/neo4j', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
      await s.service.cypher.ready();
      const driver = driverOf(s);
      try {
        // session.run: an auto-commit read (executeQuery would open a transaction, which stays on the request thread).
        const run = async () => {
          const session = driver.session();
          try {
            return await session.run(RUNAWAY).then(
              () => null,
              (e: { code: string }) => e.code,
            );
          } finally {
            await session.close();
          }
        };
        const first = run();
        await until('the first on the replica', async () => (await running(s.url, 'replica')) === 1);
        const second = run();
        await until('the second on the request thread, the first still on the replica', async () => (await running(s.url, 'request')) === 1 && (await running(s.url, 'replica')) === 1);
        expect((await call(s.url, 'GET', '/healthz')).status).to.equal(200);
        expect(await Promise.all([first, second])).to.deep.equal(['Neo.ClientError.Transaction.TransactionTimedOut', 'Neo.ClientError.Transaction.TransactionTimedOut']);
      } finally {
        await driver.close();
      }
    });
  });
});
