import { expect } from 'chai';
import neo4j, { type Driver, type Node, type Path, type Relationship } from 'neo4j-driver';
import { call, useTestServer, type SuiteServer } from '../helpers/http.js';

const { Date: BoltDate, DateTime, Duration, LocalDateTime, LocalTime, Point, Time } = neo4j.types;

/** A driver for the suite's server, closed after each test. */
function useDriver(server: SuiteServer, scheme = 'bolt', auth = neo4j.auth.basic('neo4j', 'any')): () => Driver {
  let driver: Driver | null = null;
  afterEach(async () => {
    await driver?.close();
    driver = null;
  });
  return () => (driver ??= neo4j.driver(`${scheme}://127.0.0.1:${server.service.boltPort}`, auth, { disableLosslessIntegers: false }));
}

describe('bolt: neo4j-driver against the server', () => {
  const server = useTestServer({}, 'each');
  const driver = useDriver(server);

  it('connects over bolt:// and neo4j:// (the routing table names this server)', async () => {
    await driver().verifyConnectivity();
    const routed = neo4j.driver(`neo4j://127.0.0.1:${server.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'));
    try {
      const info = await routed.getServerInfo();
      expect(info.address).to.equal(`127.0.0.1:${server.service.boltPort}`);
      const { records } = await routed.executeQuery('RETURN 1 + 1 AS two');
      expect(records[0]!.get('two').toNumber()).to.equal(2);
    } finally {
      await routed.close();
    }
  });

  it('round-trips parameters of every type the engine holds', async () => {
    const values: Record<string, unknown> = {
      null: null,
      bool: true,
      int: neo4j.int(42),
      int64: neo4j.int('9007199254740991'),
      float: 1.5,
      string: 'héllo ✓',
      list: [neo4j.int(1), 'two', [false]],
      map: { a: neo4j.int(1), nested: { b: 'c' } },
      date: new BoltDate(2024, 2, 29),
      time: new Time(10, 30, 15, 5, 3600),
      localTime: new LocalTime(23, 59, 59, 999999999),
      dateTimeOffset: new DateTime(2024, 6, 1, 12, 0, 0, 0, -18000),
      dateTimeZone: new DateTime(2024, 6, 1, 12, 0, 0, 0, undefined, 'Europe/Paris'),
      localDateTime: new LocalDateTime(1969, 7, 20, 20, 17, 40, 0),
      duration: new Duration(14, 3, 3661, 500),
      cartesian: new Point(neo4j.int(7203), 1, 2.5),
      wgs84: new Point(neo4j.int(4979), 12.5, 56, 100),
      bytes: Int8Array.from([0, 1, -1, 127, -128]),
    };
    const session = driver().session();
    try {
      for (const [name, v] of Object.entries(values)) {
        const { records } = await session.run('RETURN $v AS v', { v });
        const back = records[0]!.get('v');
        if (name === 'dateTimeZone') expect(String(back)).to.equal('2024-06-01T12:00:00+02:00[Europe/Paris]');
        else if (v !== null && typeof v === 'object' && 'toString' in v && !Array.isArray(v) && Object.getPrototypeOf(v) !== Object.prototype) expect(String(back), name).to.equal(String(v));
        else expect(back, name).to.deep.equal(v);
      }
      const zoned = (await session.run('RETURN $v.timezone AS zone, $v.hour AS hour', { v: values.dateTimeZone })).records[0]!;
      expect(zoned.get('zone')).to.equal('Europe/Paris');
      expect(zoned.get('hour').toNumber()).to.equal(12);
      const big = (await session.run('RETURN $v AS v, $v - 1 AS less, toString($v) AS text', { v: neo4j.int('9223372036854775807') })).records[0]!;
      expect(big.get('v').toString()).to.equal('9223372036854775807');
      expect(big.get('less').toString()).to.equal('9223372036854775806');
      expect(big.get('text')).to.equal('9223372036854775807');
      await session.run('CREATE (:Big {id: $v, ids: [$v, 1]})', { v: neo4j.int('-9223372036854775808') });
      const stored = (await session.run('MATCH (b:Big {id: -9223372036854775808}) RETURN b.id AS id, b.ids AS ids')).records[0]!;
      expect(stored.get('id').toString(), 'a 64-bit property reads back exactly').to.equal('-9223372036854775808');
      expect(stored.get('ids').map(String)).to.deep.equal(['-9223372036854775808', '1']);
      const over = await session.run('RETURN $v + 1 AS v', { v: neo4j.int('9223372036854775807') }).catch((e: { code: string; message: string }) => e);
      expect((over as { message: string }).message).to.match(/IntegerOverflow/);
    } finally {
      await session.close();
    }
  });

  it('stores temporal values and whole floats as properties and gives them back with their types', async () => {
    const session = driver().session();
    try {
      const props = {
        date: new BoltDate(2024, 2, 29),
        time: new Time(10, 30, 15, 5, 3600),
        localDateTime: new LocalDateTime(1969, 7, 20, 20, 17, 40, 0),
        dateTime: new DateTime(2024, 6, 1, 12, 0, 0, 0, -18000),
        duration: new Duration(14, 3, 3661, 500),
        dates: [new BoltDate(2020, 1, 1), new BoltDate(2020, 1, 2)],
        place: new Point(neo4j.int(4326), 18.07, 59.33),
        corners: [new Point(neo4j.int(7203), 0, 0), new Point(neo4j.int(7203), 3, 4)],
      };
      await session.run('CREATE (:Typed $props)', { props });
      await session.run('MATCH (n:Typed) SET n.whole = 2.0');
      const n = (await session.run('MATCH (n:Typed) RETURN n')).records[0]!.get('n') as Node;
      for (const [key, v] of Object.entries(props)) expect(String(n.properties[key]), key).to.equal(String(v));
      expect(n.properties.date).to.be.instanceOf(BoltDate);
      expect(n.properties.dates[1]).to.be.instanceOf(BoltDate);
      expect(n.properties.whole, 'a FLOAT, not an Integer').to.equal(2);
      await session.run('MATCH (n:Typed) SET n.blob = $b', { b: Int8Array.from([1, 2, 3]) });
      const r = (await session.run('MATCH (n:Typed) RETURN n.blob AS blob, point.distance(n.corners[0], n.corners[1]) AS d, n.place.latitude AS lat')).records[0]!;
      expect(Array.from(r.get('blob') as Int8Array)).to.deep.equal([1, 2, 3]);
      expect(r.get('d')).to.equal(5);
      expect(r.get('lat')).to.equal(59.33);
    } finally {
      await session.close();
    }
  });

  it('sends FLOAT and INTEGER as such: whole floats stay floats through parameters and arithmetic', async () => {
    const session = driver().session();
    try {
      // The driver sends a JavaScript number as a FLOAT, and reads a FLOAT back as a number (an INTEGER as an Integer).
      const r = (await session.run('RETURN $x AS x, $x + 1 AS y, 3.0 / 2 AS z, 7 / 2 AS i, toFloat(13) / 15 AS ratio, sqrt(16) AS s', { x: 2 })).records[0]!;
      expect([r.get('x'), r.get('y'), r.get('z'), r.get('ratio'), r.get('s')]).to.deep.equal([2, 3, 1.5, 13 / 15, 4]);
      expect(neo4j.isInt(r.get('i')) && r.get('i').toNumber()).to.equal(3);
      const k = (await session.run('UNWIND range(1, 3) AS n RETURN n LIMIT toInteger($k)', { k: 2 })).records;
      expect(k).to.have.length(2);
      const long = (await session.run("RETURN duration.inSeconds(localdatetime('-999999999-01-01'), localdatetime('+999999999-12-31T23:59:59')) AS d")).records[0]!.get('d');
      expect(long.seconds.toString(), 'a duration\'s 64-bit seconds, exact past 2^53').to.equal('63113903968377599');
    } finally {
      await session.close();
    }
  });

  it('returns nodes, relationships and paths with their labels and properties, and counts the update', async () => {
    const session = driver().session();
    try {
      const created = await session.run('CREATE p = (a:Person:Admin {name: $a})-[r:KNOWS {since: 2020}]->(b:Person {name: $b}) RETURN a, r, b, p', { a: 'Ann', b: 'Bob' });
      const c = created.summary.counters.updates();
      expect(c).to.include({ nodesCreated: 2, relationshipsCreated: 1, labelsAdded: 3, propertiesSet: 3 });
      expect(created.summary.queryType).to.equal('rw');
      const row = created.records[0]!;
      const a = row.get('a') as Node;
      const b = row.get('b') as Node;
      const r = row.get('r') as Relationship;
      expect(a.labels).to.deep.equal(['Person', 'Admin']);
      expect(a.properties).to.deep.equal({ name: 'Ann' });
      expect(r.type).to.equal('KNOWS');
      expect(r.properties.since.toNumber()).to.equal(2020);
      expect(r.startNodeElementId).to.equal(a.elementId);
      expect(r.endNodeElementId).to.equal(b.elementId);
      expect(r.start.equals(a.identity)).to.equal(true);

      const matched = await session.run('MATCH p = (x:Person)-[:KNOWS]->(y) WHERE x.name = "Ann" RETURN p, y.name AS name');
      const path = matched.records[0]!.get('p') as Path;
      expect(path.length).to.equal(1);
      expect(path.start.properties).to.deep.equal({ name: 'Ann' });
      expect(path.end.properties).to.deep.equal({ name: 'Bob' });
      expect(path.segments[0]!.relationship.type).to.equal('KNOWS');
      expect(matched.records[0]!.get('name')).to.equal('Bob');
      expect(matched.summary.queryType).to.equal('r');

      const backwards = await session.run('MATCH p = (y {name: "Bob"})<-[:KNOWS]-(x) RETURN p');
      const back = backwards.records[0]!.get('p') as Path;
      expect(back.start.properties.name).to.equal('Bob');
      expect(back.end.properties.name).to.equal('Ann');

      const removed = await session.run('MATCH (n:Person) DETACH DELETE n');
      expect(removed.summary.counters.updates()).to.include({ nodesDeleted: 2, relationshipsDeleted: 1 });
      expect(removed.summary.queryType).to.equal('w');
    } finally {
      await session.close();
    }
  });

  it('runs executeRead and executeWrite, and a bookmark lets another session read the write', async () => {
    const writer = driver().session();
    // The driver sends a JavaScript number as a FLOAT, and the property keeps that type, as in Neo4j.
    const written = await writer.executeWrite(async (tx) => (await tx.run('CREATE (n:Item {k: $k, i: $i}) RETURN n.k AS k, n.i AS i', { k: 7, i: neo4j.int(7) })).records[0]!);
    expect(written.get('k')).to.equal(7);
    expect(written.get('i').toNumber()).to.equal(7);
    const bookmarks = writer.lastBookmarks();
    await writer.close();
    expect(bookmarks).to.have.length(1);
    expect(bookmarks[0]).to.match(/^\d+$/);
    const reader = driver().session({ bookmarks, defaultAccessMode: neo4j.session.READ });
    try {
      const n = await reader.executeRead(async (tx) => (await tx.run('MATCH (n:Item) RETURN count(n) AS n')).records[0]!.get('n'));
      expect(n.toNumber()).to.equal(1);
    } finally {
      await reader.close();
    }
  });

  it('makes an explicit transaction one write at COMMIT: its reads see its writes, ROLLBACK and a dropped connection leave nothing, committed writes survive a restart', async () => {
    const session = driver().session();
    const opBefore = server.service.engine.lastAppliedOperationId;
    const tx = session.beginTransaction();
    await tx.run('CREATE (:T {n: 1})');
    await tx.run('CREATE (:T {n: 2})');
    const inside = await tx.run('MATCH (t:T) RETURN count(t) AS c');
    expect(inside.records[0]!.get('c').toNumber()).to.equal(2);
    const outside = driver().session();
    expect((await outside.run('MATCH (t:T) RETURN count(t) AS c')).records[0]!.get('c').toNumber()).to.equal(0);
    await tx.commit();
    // the default database was created on first use; both CREATEs are one log entry after it
    expect(server.service.engine.lastAppliedOperationId).to.equal(opBefore + 2);

    const rolled = session.beginTransaction();
    await rolled.run('CREATE (:T {n: 3})');
    await rolled.rollback();

    const dropped = neo4j.driver(`bolt://127.0.0.1:${server.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'));
    const open = dropped.session().beginTransaction();
    await open.run('CREATE (:T {n: 4})');
    await dropped.close();

    expect((await outside.run('MATCH (t:T) RETURN t.n AS n ORDER BY n')).records.map((r) => r.get('n').toNumber())).to.deep.equal([1, 2]);
    await outside.close();
    await session.close();

    await driver().close();
    await server.restart();
    const again = neo4j.driver(`bolt://127.0.0.1:${server.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'));
    try {
      const { records } = await again.executeQuery('MATCH (t:T) RETURN t.n AS n ORDER BY n');
      expect(records.map((r) => r.get('n').toNumber())).to.deep.equal([1, 2]);
    } finally {
      await again.close();
    }
  });

  it('fails a COMMIT that another write to its collection overtook with a transient error, which executeWrite retries', async () => {
    const session = driver().session();
    const other = driver().session();
    await other.run('CREATE (:Seed)');
    const tx = session.beginTransaction();
    await tx.run('CREATE (:Mine)');
    await other.run('CREATE (:Theirs)');
    const err = await tx.commit().then(() => null, (e: { code: string }) => e);
    expect(err).to.include({ code: 'Neo.TransientError.Transaction.Outdated' });

    // a write to another collection does not overtake it
    await call(server.url, 'PUT', '/collections/elsewhere', { vectors: { size: 2, distance: 'Cosine' } });
    const unaffected = session.beginTransaction();
    await unaffected.run('CREATE (:Unaffected)');
    await call(server.url, 'PUT', '/collections/elsewhere/points', { points: [{ id: 1, vector: [1, 0] }] });
    await unaffected.commit();

    let attempts = 0;
    await session.executeWrite(async (t) => {
      attempts++;
      await t.run('CREATE (:Retried)');
      if (attempts === 1) await other.run('CREATE (:Interloper)');
    });
    expect(attempts).to.equal(2);
    const counts = await other.run('MATCH (n) RETURN labels(n)[0] AS l, count(*) AS c ORDER BY l');
    expect(Object.fromEntries(counts.records.map((r) => [r.get('l'), r.get('c').toNumber()]))).to.deep.equal({ Interloper: 1, Retried: 1, Seed: 1, Theirs: 1, Unaffected: 1 });
    await session.close();
    await other.close();
  });

  it('refuses a write in read access mode, and a transaction that failed leaves the session usable for the next', async () => {
    const session = driver().session();
    try {
      const refused = await session.executeRead((tx) => tx.run('CREATE (:Nope)')).then(() => null, (e: { code: string }) => e);
      expect(refused).to.include({ code: 'Neo.ClientError.Statement.AccessMode' });
      const tx = session.beginTransaction();
      await tx.run('CREATE (:Lost)');
      const failed = await tx.run('RETURN 1 / 0 AS x').then(() => null, (e: { code: string }) => e);
      expect(failed).to.include({ code: 'Neo.ClientError.Statement.ArithmeticError' });
      await tx.close();
      await session.executeWrite((t) => t.run('CREATE (:Kept)'));
      const labels = await session.run('MATCH (n) RETURN labels(n)[0] AS l');
      expect(labels.records.map((r) => r.get('l'))).to.deep.equal(['Kept']);
    } finally {
      await session.close();
    }
  });

  it('gives a UUID point its UUID as element id and one negative integer id for the whole connection', async () => {
    const uuid = '5c56c793-69f3-4fbf-87e6-c4bf54c28c26';
    await call(server.url, 'PUT', '/collections/u', { vectors: { size: 2, distance: 'Cosine' } });
    await call(server.url, 'PUT', '/collections/u/points', { points: [{ id: uuid, vector: [1, 0], payload: { k: 'v' }, labels: ['U'] }, { id: 3, vector: [0, 1], labels: ['U'] }] });
    await call(server.url, 'POST', '/collections/u/graph/edges', { from_id: uuid, to_id: 3, relation: 'R' });
    const session = driver().session({ database: 'u' });
    try {
      const first = (await session.run('MATCH (a)-[r]->(b) RETURN a, r, b')).records[0]!;
      const a = first.get('a') as Node;
      const r = first.get('r') as Relationship;
      expect(a.elementId).to.equal(uuid);
      expect(a.identity.toNumber()).to.be.below(0);
      expect(r.startNodeElementId).to.equal(uuid);
      expect(r.start.equals(a.identity)).to.equal(true);
      expect((first.get('b') as Node).identity.toNumber()).to.equal(3);
      const again = (await session.run('MATCH (a:U {k: "v"}) RETURN a')).records[0]!.get('a') as Node;
      expect(again.identity.equals(a.identity)).to.equal(true);
    } finally {
      await session.close();
    }
  });

  it('reports a syntax error with its Neo4j code and our message', async () => {
    const session = driver().session();
    try {
      const err = await session.run('MATCH (n RETURN n').then(() => null, (e: { code: string; message: string }) => e);
      expect(err).to.include({ code: 'Neo.ClientError.Statement.SyntaxError' });
      expect(err!.message).to.match(/^SyntaxError/);
      // the session is usable after the failure
      expect((await session.run('RETURN 1 AS one')).records[0]!.get('one').toNumber()).to.equal(1);
    } finally {
      await session.close();
    }
  });

  it('pulls a result of 10,000 rows in batches of the fetch size', async () => {
    const session = driver().session({ fetchSize: 1000 });
    try {
      const seen: number[] = [];
      await new Promise<void>((resolve, reject) => {
        session.run('UNWIND range(0, 9999) AS i RETURN i').subscribe({ onNext: (r) => void seen.push(r.get('i').toNumber()), onCompleted: () => resolve(), onError: reject });
      });
      expect(seen).to.have.length(10_000);
      expect(seen.every((v, i) => v === i)).to.equal(true);
    } finally {
      await session.close();
    }
  });

  it('uses the database a session names as the collection of that name, and refuses one that does not exist', async () => {
    const missing = driver().session({ database: 'nowhere' });
    const err = await missing.run('RETURN 1').then(() => null, (e: { code: string }) => e);
    expect(err).to.include({ code: 'Neo.ClientError.Database.DatabaseNotFound' });
    await missing.close();

    await call(server.url, 'PUT', '/collections/docs', { vectors: { size: 2, distance: 'Cosine' } });
    await call(server.url, 'PUT', '/collections/docs/points', { points: [{ id: 5, vector: [1, 0], payload: { title: 'rest' }, labels: ['Doc'] }] });
    const docs = driver().session({ database: 'docs' });
    try {
      const { records } = await docs.run('MATCH (d:Doc) RETURN d');
      expect((records[0]!.get('d') as Node).properties).to.deep.equal({ title: 'rest' });
      await docs.run('CREATE (:Doc {title: "bolt"})');
    } finally {
      await docs.close();
    }
    const rest = await call(server.url, 'POST', '/collections/docs/graph/query', { query: 'MATCH (d:Doc) RETURN d.title AS t ORDER BY t' });
    expect(rest.body.result.rows).to.deep.equal([['bolt'], ['rest']]);
  });
});

describe('bolt: authentication', () => {
  const server = useTestServer({ SERVICE_API_KEYS: 'k1', SERVICE_BEARER_TOKENS: 't1' });
  const url = () => `bolt://127.0.0.1:${server.service.boltPort}`;

  it('takes an API key or bearer token as the basic password, and refuses anything else as Unauthorized', async () => {
    for (const auth of [neo4j.auth.basic('anyone', 'k1'), neo4j.auth.basic('neo4j', 't1'), neo4j.auth.bearer('t1')]) {
      const d = neo4j.driver(url(), auth);
      try {
        expect((await d.executeQuery('RETURN 1 AS x')).records[0]!.get('x').toNumber()).to.equal(1);
      } finally {
        await d.close();
      }
    }
    for (const auth of [neo4j.auth.basic('neo4j', 'wrong'), neo4j.auth.custom('', '', '', 'none')]) {
      const d = neo4j.driver(url(), auth);
      try {
        const err = await d.verifyConnectivity().then(() => null, (e: { code: string }) => e);
        expect(err).to.include({ code: 'Neo.ClientError.Security.Unauthorized' });
      } finally {
        await d.close();
      }
    }
  });
});

describe('bolt: a read streams as the client pulls it', () => {
  // One megabyte of query memory: far too little to hold a million rows, enough for a batch.
  const server = useTestServer({ SERVICE_QUERY_MEMORY_MB: '1' }, 'each');
  const driver = useDriver(server);

  it('streams a 1,000,000-row result in batches of the fetch size, in the memory of one batch', async function () {
    this.timeout(120_000);
    const whole = await call(server.url, 'PUT', '/collections/neo4j', { vectors: { size: 1, distance: 'Cosine' } });
    expect(whole.status).to.equal(200);
    const rest = await call(server.url, 'POST', '/collections/neo4j/graph/query', { query: 'UNWIND range(1, 1000000) AS i RETURN i' });
    expect(JSON.stringify(rest.body), 'the whole result does not fit the budget').to.include('MemoryLimitExceeded');
    const session = driver().session({ fetchSize: 1000 });
    try {
      let n = 0;
      let sum = 0;
      await new Promise<void>((resolve, reject) => {
        session.run('UNWIND range(1, 1000000) AS i RETURN i').subscribe({
          onNext: (r) => {
            n++;
            sum += r.get('i').toNumber();
          },
          onCompleted: () => resolve(),
          onError: reject,
        });
      });
      expect([n, sum]).to.deep.equal([1_000_000, (1_000_000 * 1_000_001) / 2]);
    } finally {
      await session.close();
    }
  });

  it('fails the RUN of a read whose first row cannot be made, and a DISCARD lets the rest go', async () => {
    const session = driver().session({ fetchSize: 10 });
    try {
      const bad = await session.run('RETURN 1 / 0 AS x').then(() => null, (e: { code: string }) => e);
      expect(bad?.code).to.equal('Neo.ClientError.Statement.ArithmeticError');
      const result = session.run('UNWIND range(1, 100000) AS i RETURN i');
      const summary = await result.summary();
      expect(summary.counters.containsUpdates()).to.equal(false);
      const after = await session.run('RETURN 2 AS two');
      expect(after.records[0]!.get('two').toNumber()).to.equal(2);
    } finally {
      await session.close();
    }
  });
});
