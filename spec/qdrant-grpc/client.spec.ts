import { expect } from 'chai';
import { QdrantClient as GrpcClient, ConnectError, ConnectErrorCode, type PointId, type Value } from '@qdrant/js-client-grpc';
import { QdrantClient as RestClient } from '@qdrant/js-client-rest';
import { readConfig } from '../../server/config.js';
import { startTestServer, type TestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';

const UUID = '5c56c793-69f3-4fbf-87e6-c4bf54c28c26';
const num = (n: number): PointId => ({ pointIdOptions: { case: 'num', value: BigInt(n) } }) as PointId;
const uuid = (u: string): PointId => ({ pointIdOptions: { case: 'uuid', value: u } }) as PointId;
const str = (s: string): Value => ({ kind: { case: 'stringValue', value: s } }) as Value;
const int = (n: number): Value => ({ kind: { case: 'integerValue', value: BigInt(n) } }) as Value;
const dense = (data: number[]) => ({ vectorsOptions: { case: 'vector' as const, value: { vector: { case: 'dense' as const, value: { data } } } } });
const idOf = (id: PointId | undefined): number | string | undefined => (id?.pointIdOptions.case === 'num' ? Number(id.pointIdOptions.value) : id?.pointIdOptions.value);
const cityIs = (city: string) => ({ must: [{ conditionOneOf: { case: 'field' as const, value: { key: 'city', match: { matchValue: { case: 'keyword' as const, value: city } } } } }] });
const payloadOf = (payload: Record<string, Value>): Record<string, unknown> => Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, typeof v.kind.value === 'bigint' ? Number(v.kind.value) : v.kind.value]));

async function failure(p: Promise<unknown>): Promise<{ code: ConnectErrorCode; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ConnectError) return { code: err.code, message: err.rawMessage };
    throw err;
  }
  throw new Error('the call was expected to fail');
}

describe('qdrant-grpc: the official gRPC client (@qdrant/js-client-grpc)', () => {
  let server: TestServer;
  let client: GrpcClient;
  const port = (): number => Number(new URL(server.service.qdrantGrpcUrl!).port);

  async function seed(): Promise<void> {
    await client.api('collections').create({ collectionName: 'cities', vectorsConfig: { config: { case: 'params', value: { size: 3n, distance: 1 } } } });
    await client.api('points').upsert({
      collectionName: 'cities',
      wait: true,
      points: [
        { id: num(1), vectors: dense([1, 0, 0]), payload: { city: str('Berlin'), rank: int(1) } },
        { id: uuid(UUID), vectors: { vectorsOptions: { case: 'vector', value: { data: [0.6, 0.8, 0] } } }, payload: { city: str('London'), rank: int(2) } },
        { id: num(3), vectors: dense([0, 1, 0]), payload: { city: str('Berlin'), rank: int(3) } },
      ],
    });
  }

  beforeEach(async () => {
    server = await startTestServer();
    client = new GrpcClient({ host: '127.0.0.1', port: port(), checkCompatibility: false });
  });
  afterEach(async () => {
    await server.stop();
    server.remove();
  });

  it("answers HealthCheck with the Qdrant version the REST port reports, and lists, reads and drops collections", async () => {
    const health = await client.api('service').healthCheck({});
    expect(health.version).to.equal('1.18.0');
    expect(health.title).to.equal('qdrant - vector search engine');
    await seed();
    const collections = client.api('collections');
    expect((await collections.list({})).collections.map((c) => c.name)).to.deep.equal(['cities']);
    expect((await collections.collectionExists({ collectionName: 'cities' })).result?.exists).to.equal(true);
    const info = (await collections.get({ collectionName: 'cities' })).result!;
    expect(info.pointsCount).to.equal(3n);
    const params = info.config!.params!.vectorsConfig!.config;
    expect(params.case).to.equal('params');
    expect(params.case === 'params' && [params.value.size, params.value.distance]).to.deep.equal([3n, 1]);
    await collections.updateAliases({ actions: [{ action: { case: 'createAlias', value: { collectionName: 'cities', aliasName: 'towns' } } }] });
    expect((await collections.listCollectionAliases({ collectionName: 'cities' })).aliases.map((a) => a.aliasName)).to.deep.equal(['towns']);
    expect((await collections.delete({ collectionName: 'cities' })).result).to.equal(true);
    expect((await collections.collectionExists({ collectionName: 'cities' })).result?.exists).to.equal(false);
  });

  it('upserts integer and UUID ids, searches and queries with a filter, and scrolls page by page', async () => {
    await seed();
    const points = client.api('points');
    const found = await points.search({ collectionName: 'cities', vector: [1, 0, 0], limit: 10n, filter: cityIs('Berlin'), withPayload: { selectorOptions: { case: 'enable', value: true } } });
    expect(found.result.map((p) => idOf(p.id))).to.deep.equal([1, 3]);
    expect(payloadOf(found.result[0]!.payload)).to.deep.equal({ city: 'Berlin', rank: 1 });
    expect(found.result[0]!.score).to.be.closeTo(1, 1e-6);

    const queried = await points.query({ collectionName: 'cities', query: { variant: { case: 'nearest', value: { variant: { case: 'dense', value: { data: [1, 0, 0] } } } } }, limit: 2n, withVectors: { selectorOptions: { case: 'enable', value: true } } });
    expect(queried.result.map((p) => idOf(p.id))).to.deep.equal([1, UUID]);
    const vector = queried.result[1]!.vectors!.vectorsOptions;
    expect(vector.case === 'vector' && vector.value.vector.case === 'dense' && vector.value.vector.value.data.map((x) => Math.round(x * 10) / 10)).to.deep.equal([0.6, 0.8, 0]);

    const first = await points.scroll({ collectionName: 'cities', limit: 2 });
    expect(first.result).to.have.length(2);
    expect(first.nextPageOffset).to.not.equal(undefined);
    const second = await points.scroll({ collectionName: 'cities', limit: 2, offset: first.nextPageOffset });
    expect(second.nextPageOffset).to.equal(undefined);
    expect([...first.result, ...second.result].map((p) => idOf(p.id)).sort()).to.deep.equal([1, 3, UUID].sort());

    const got = await points.get({ collectionName: 'cities', ids: [uuid(UUID)] });
    expect(payloadOf(got.result[0]!.payload)).to.deep.equal({ city: 'London', rank: 2 });
  });

  it('sets, overwrites, deletes and clears payload, counts with a filter and deletes points by filter', async () => {
    await seed();
    const points = client.api('points');
    const ids = (...n: number[]) => ({ pointsSelectorOneOf: { case: 'points' as const, value: { ids: n.map(num) } } });
    await points.setPayload({ collectionName: 'cities', wait: true, payload: { tag: str('x') }, pointsSelector: ids(1) });
    expect(payloadOf((await points.get({ collectionName: 'cities', ids: [num(1)] })).result[0]!.payload)).to.deep.equal({ city: 'Berlin', rank: 1, tag: 'x' });
    await points.overwritePayload({ collectionName: 'cities', payload: { only: str('y') }, pointsSelector: ids(1) });
    expect(payloadOf((await points.get({ collectionName: 'cities', ids: [num(1)] })).result[0]!.payload)).to.deep.equal({ only: 'y' });
    await points.deletePayload({ collectionName: 'cities', keys: ['rank'], pointsSelector: ids(3) });
    expect(payloadOf((await points.get({ collectionName: 'cities', ids: [num(3)] })).result[0]!.payload)).to.deep.equal({ city: 'Berlin' });
    await points.clearPayload({ collectionName: 'cities', points: ids(3) });
    expect((await points.get({ collectionName: 'cities', ids: [num(3)] })).result[0]!.payload).to.deep.equal({});

    await points.createFieldIndex({ collectionName: 'cities', fieldName: 'city', fieldType: 0, wait: true });
    const schema = (await client.api('collections').get({ collectionName: 'cities' })).result!.payloadSchema;
    expect(schema.city?.dataType).to.equal(1);

    expect((await points.count({ collectionName: 'cities', filter: cityIs('London'), exact: true })).result?.count).to.equal(1n);
    const deleted = await points.delete({ collectionName: 'cities', wait: true, points: { pointsSelectorOneOf: { case: 'filter', value: cityIs('London') } } });
    expect(deleted.result?.status).to.equal(2);
    expect((await points.count({ collectionName: 'cities' })).result?.count).to.equal(2n);
  });

  it('answers NOT_FOUND for a missing collection and INVALID_ARGUMENT for a bad vector or a field it does not handle, with the REST texts', async () => {
    await seed();
    const missing = await failure(client.api('collections').get({ collectionName: 'nowhere' }));
    expect(missing).to.deep.equal({ code: ConnectErrorCode.NotFound, message: 'collection "nowhere" not found' });
    const rest = new RestClient({ url: server.service.qdrantUrl!, checkCompatibility: false });
    const restMessage = await rest.getCollection('nowhere').then(
      () => null,
      (err: { data?: { status?: { error?: string } } }) => err.data?.status?.error,
    );
    expect(restMessage).to.equal(missing.message);

    const bad = await failure(client.api('points').upsert({ collectionName: 'cities', points: [{ id: num(9), vectors: dense([1, 0]) }] }));
    expect(bad.code).to.equal(ConnectErrorCode.InvalidArgument);
    expect(bad.message).to.equal('point 9: vector has 2 dimensions, collection "cities" expects 3');

    const unhandled = await failure(client.api('points').count({ collectionName: 'cities', shardKeySelector: { shardKeys: [{ key: { case: 'keyword', value: 'a' } }] } }));
    expect(unhandled.code).to.equal(ConnectErrorCode.InvalidArgument);
    expect(unhandled.message).to.contain('shard_key_selector');

    const unimplemented = await failure(client.api('snapshots').listFull({}));
    expect(unimplemented.code).to.equal(ConnectErrorCode.Unimplemented);
    expect(unimplemented.message).to.contain('qdrant.Snapshots/ListFull');
  });

  it('shows a write acknowledged over gRPC over REST at once, and keeps it across a restart', async () => {
    await seed();
    const rest = new RestClient({ url: server.service.qdrantUrl!, checkCompatibility: false });
    const seen = await rest.retrieve('cities', { ids: [UUID], with_payload: true });
    expect(seen.map((p) => p.payload)).to.deep.equal([{ city: 'London', rank: 2 }]);

    const dir = server.dataDir;
    await server.stop();
    const remove = server.remove;
    server = await startTestServer({}, dir);
    server.remove = remove;
    client = new GrpcClient({ host: '127.0.0.1', port: port(), checkCompatibility: false });
    const after = await client.api('points').get({ collectionName: 'cities', ids: [num(1), uuid(UUID), num(3)] });
    expect(after.result.map((p) => idOf(p.id))).to.deep.equal([1, UUID, 3]);
  });
});

describe('qdrant-grpc: credentials', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SERVICE_API_KEYS: 'sekret' });
  });
  after(async () => {
    await server.stop();
    server.remove();
  });

  it('answers UNAUTHENTICATED without the api-key metadata or with a wrong one, and serves the right one', async () => {
    // A url, not host and port: with an apiKey the client takes https unless the url says http.
    const url = server.service.qdrantGrpcUrl!;
    const anonymous = new GrpcClient({ url, checkCompatibility: false });
    expect((await failure(anonymous.api('collections').list({}))).code).to.equal(ConnectErrorCode.Unauthenticated);
    const wrong = new GrpcClient({ url, apiKey: 'nope', checkCompatibility: false });
    expect((await failure(wrong.api('collections').list({}))).code).to.equal(ConnectErrorCode.Unauthenticated);
    const keyed = new GrpcClient({ url, apiKey: 'sekret', checkCompatibility: false });
    expect((await keyed.api('collections').list({})).collections).to.deep.equal([]);
  });
});

describe('qdrant-grpc: SERVICE_QDRANT_GRPC_PORT', () => {
  it('reads 6334 by default, a port, or off, and refuses a port in use by name', async () => {
    expect(readConfig({}).qdrantGrpcPort).to.equal(6334);
    expect(readConfig({ SERVICE_QDRANT_GRPC_PORT: '7334' }).qdrantGrpcPort).to.equal(7334);
    expect(readConfig({ SERVICE_QDRANT_GRPC_PORT: 'OFF' }).qdrantGrpcPort).to.equal(null);
    expect(() => readConfig({ SERVICE_QDRANT_GRPC_PORT: 'grpc' })).to.throw(/SERVICE_QDRANT_GRPC_PORT/);
    const first = await startTestServer();
    const dir = tempDir();
    try {
      const taken = new URL(first.service.qdrantGrpcUrl!).port;
      const err = await startTestServer({ SERVICE_QDRANT_GRPC_PORT: taken }, dir.path).then(
        async (s) => {
          await s.stop();
          s.remove();
          return null;
        },
        (e: Error) => e,
      );
      expect(err?.message).to.equal(`SERVICE_QDRANT_GRPC_PORT ${taken} is already in use (by a Qdrant server?): set SERVICE_QDRANT_GRPC_PORT to a free port, 0 (any) or off`);
    } finally {
      await first.stop();
      first.remove();
      dir.remove();
    }
  });

  it('is off with off, and then no gRPC listener runs', async () => {
    const server = await startTestServer({ SERVICE_QDRANT_GRPC_PORT: 'off' });
    try {
      expect(server.service.qdrantGrpcUrl).to.equal(null);
    } finally {
      await server.stop();
      server.remove();
    }
  });
});

describe('qdrant-grpc: message size', () => {
  it('refuses a message past SERVICE_JSON_LIMIT_BYTES with RESOURCE_EXHAUSTED and takes one under it', async () => {
    const server = await startTestServer({ SERVICE_JSON_LIMIT_BYTES: '4096' });
    try {
      const client = new GrpcClient({ url: server.service.qdrantGrpcUrl!, checkCompatibility: false, compression: false });
      await client.api('collections').create({ collectionName: 'big', vectorsConfig: { config: { case: 'params', value: { size: 256n, distance: 1 } } } });
      const point = (n: number) => ({ id: num(n), vectors: dense(Array.from({ length: 256 }, (_, i) => (i + n) % 7)) });
      const over = await failure(client.api('points').upsert({ collectionName: 'big', points: [1, 2, 3, 4, 5].map(point) }));
      expect(over.code).to.equal(ConnectErrorCode.ResourceExhausted);
      expect(over.message).to.match(/larger than 4096 bytes/);
      await client.api('points').upsert({ collectionName: 'big', wait: true, points: [point(1), point(2)] });
      expect((await client.api('points').count({ collectionName: 'big' })).result?.count).to.equal(2n);
    } finally {
      await server.stop();
      server.remove();
    }
  });
});
