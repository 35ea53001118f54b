import { expect } from 'chai';
import { call, startTestServer, type TestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Temporal values and whole floats stored as properties keep their Cypher type through the
 * log, restarts (with and without a snapshot) and export/import, while REST and Qdrant
 * readers see the plain JSON payload.
 */
describe('server: Cypher property types survive storage', () => {
  let dir: ReturnType<typeof tempDir>;
  let s: TestServer;
  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    await s?.stop();
    dir.remove();
  });

  const rows = async (q: string, name = 'g') => {
    const r = await call(s.url, 'POST', `/collections/${name}/graph/query`, { query: q });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body.result.rows as unknown[][];
  };
  const TYPED = 'MATCH (n:E) RETURN toString(n.f), n.d + duration("P1D"), n.t < time("12:00+01:00"), n.ds[1], toString(n.fs[0]), n.dur.days, n.s';
  const EXPECTED = [['1.0', '2024-03-01', true, '2020-01-02', '2.0', 3, '2024-02-29']];

  async function createTyped(): Promise<void> {
    await call(s.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } });
    await rows(
      'CREATE (:E {f: 1.0, d: date("2024-02-29"), t: time("10:15+00:00"), ds: [date("2020-01-01"), date("2020-01-02")], fs: [2.0, 2.5], dur: duration("P3D"), s: "2024-02-29"})',
    );
  }

  it('reads back a date, a time, a duration, a whole float and lists of them with their types, across restarts', async () => {
    s = await startTestServer({}, dir.path);
    await createTyped();
    expect(await rows(TYPED)).to.deep.equal(EXPECTED);
    await s.stop();
    s = await startTestServer({}, dir.path);
    expect(await rows(TYPED), 'replayed from the log').to.deep.equal(EXPECTED);
    await s.stop();
    s = await startTestServer({ SERVICE_SNAPSHOT_EVERY: '0' }, dir.path);
    await s.stop();
    s = await startTestServer({}, dir.path);
    expect(s.service.engine.lastSnapshotOperationId, 'the state comes from a snapshot').to.equal(2);
    expect(await rows(TYPED), 'loaded from a snapshot').to.deep.equal(EXPECTED);
  });

  it('shows REST readers the ISO-8601 text and plain numbers, and a REST edit of a key drops its type', async () => {
    s = await startTestServer({}, dir.path);
    await createTyped();
    const [[id]] = (await rows('MATCH (n:E) RETURN id(n)')) as [[number]];
    const got = await call(s.url, 'POST', '/collections/g/points', { ids: [id] });
    expect(got.body.result[0].payload).to.deep.include({ f: 1, d: '2024-02-29', t: '10:15Z', ds: ['2020-01-01', '2020-01-02'], dur: 'P3D' });
    await call(s.url, 'POST', '/collections/g/points/payload', { points: [id], payload: { d: '2024-03-01' } });
    await call(s.url, 'POST', '/collections/g/points/payload/delete', { points: [id], keys: ['f'] });
    expect(await rows('MATCH (n:E) RETURN n.d, n.f, n.t + duration("PT1H")')).to.deep.equal([['2024-03-01', null, '11:15Z']]);
    const typeOf = await rows('MATCH (n:E) RETURN n.d = date("2024-03-01"), n.d = "2024-03-01"');
    expect(typeOf, 'the REST write is a string again').to.deep.equal([[false, true]]);
  });

  it('stores points as Qdrant-style {lon, lat} or {x, y} objects and reads them back as points, with Neo4j\'s spatial functions', async () => {
    s = await startTestServer({}, dir.path);
    await call(s.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } });
    await rows('CREATE (:City {name: "Stockholm", at: point({longitude: 18.0686, latitude: 59.3293})}), (:City {name: "Oslo", at: point({longitude: 10.7522, latitude: 59.9139})}), (:Box {corner: point({x: 3, y: 4, z: 12})})');
    await s.stop();
    s = await startTestServer({}, dir.path);
    const payloads = (await call(s.url, 'POST', '/collections/g/points/scroll', { limit: 10 })).body.result.points.map((p: { payload: unknown }) => p.payload);
    expect(payloads).to.deep.include({ name: 'Stockholm', at: { lon: 18.0686, lat: 59.3293 } });
    expect(payloads).to.deep.include({ corner: { x: 3, y: 4, z: 12 } });
    const [[km, crs, srid, lat, text]] = (await rows(
      'MATCH (a:City {name: "Stockholm"}), (b:City {name: "Oslo"}) RETURN round(point.distance(a.at, b.at) / 1000), a.at.crs, a.at.srid, a.at.latitude, toString(b.at)',
    )) as [[number, string, number, number, string]];
    expect([km, crs, srid, lat, text]).to.deep.equal([417, 'wgs-84', 4326, 59.3293, "point({longitude: 10.7522, latitude: 59.9139, crs: 'wgs-84'})"]);
    expect(await rows('MATCH (b:Box) RETURN point.distance(b.corner, point({x: 0, y: 0, z: 0})), b.corner.crs, b.corner = point({x: 3.0, y: 4.0, z: 12.0}), b.corner')).to.deep.equal([[13, 'cartesian-3d', true, { x: 3, y: 4, z: 12 }]]);
    expect(await rows('MATCH (c:City) WHERE point.withinBBox(c.at, point({longitude: 15, latitude: 55}), point({longitude: 20, latitude: 60})) RETURN c.name')).to.deep.equal([['Stockholm']]);
    expect(await rows('RETURN point.distance(point({x: 0, y: 0}), point({longitude: 0, latitude: 0})), point(null), point({x: null, y: 1})')).to.deep.equal([[null, null, null]]);
    for (const [q, message] of [
      ['RETURN point({longitude: 0, latitude: 91})', 'ArgumentError (InvalidArgumentValue)'],
      ['RETURN point({x: 1, y: 2, crs: "wgs-84-3d"})', 'ArgumentError (InvalidArgumentValue)'],
      ['RETURN point({x: 1, y: 2}).latitude', 'SyntaxError (InvalidArgumentValue)'],
      ['RETURN point({x: 1, y: 2, w: 3})', 'ArgumentError (InvalidArgumentValue)'],
    ]) {
      const r = await call(s.url, 'POST', '/collections/g/graph/query', { query: q });
      expect(r.status, q).to.equal(400);
      expect(r.body.message, q).to.match(new RegExp(`^${message!.replace(/[()]/g, '\\$&')}`));
    }
  });

  it('holds 64-bit integers exactly: in arithmetic, comparison, JSON text and stored properties', async () => {
    s = await startTestServer({}, dir.path);
    await call(s.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } });
    await rows('CREATE (:Big {id: 4611686018427387905}), (:Big {id: 4611686018427387904})');
    const text = await (
      await fetch(`${s.url}/collections/g/graph/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'MATCH (b:Big {id: 4611686018427387905}) RETURN b.id, b.id + 1, -9223372036854775808, sum(b.id), toInteger("9007199254740993")' }),
      })
    ).text();
    expect(text).to.contain('"rows":[[4611686018427387905,4611686018427387906,-9223372036854775808,4611686018427387905,9007199254740993]]');
    const got = await call(s.url, 'POST', '/collections/g/points/scroll', { limit: 10 });
    expect(got.body.result.points.map((p: { payload: { id: unknown } }) => p.payload.id).sort(), 'REST readers see the digits as text').to.deep.equal(['4611686018427387904', '4611686018427387905']);
    const over = await call(s.url, 'POST', '/collections/g/graph/query', { query: 'RETURN 9223372036854775807 + 1' });
    expect(over.body.message).to.match(/^ArithmeticError \(IntegerOverflow\)/);
  });

  it('keeps the types through export and import, and on relationship properties', async () => {
    s = await startTestServer({}, dir.path);
    await createTyped();
    await rows('MATCH (n:E) CREATE (n)-[:AT {when: datetime("2024-02-29T10:00:00Z"), score: 3.0}]->(n)');
    const file = await (await fetch(`${s.url}/collections/g/export`)).arrayBuffer();
    const imported = await fetch(`${s.url}/collections/copy/import?mode=create`, { method: 'POST', body: Buffer.from(file), headers: { 'content-type': 'application/octet-stream' } });
    expect(imported.status).to.equal(200);
    expect(await rows(TYPED, 'copy')).to.deep.equal(EXPECTED);
    expect(await rows('MATCH ()-[r:AT]->() RETURN r.when.year, toString(r.score), properties(r).when.day', 'copy')).to.deep.equal([[2024, '3.0', 29]]);
  });
});
