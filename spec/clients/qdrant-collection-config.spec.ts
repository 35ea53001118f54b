import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { call, useTestServer } from '../helpers/http.js';
import { refusal } from '../helpers/qdrant-refusal.js';

type Json = Record<string, any>;

/**
 * Qdrant's OpenAPI (1.18) shapes, as the fields each object must carry and those it may: a
 * strictly typed client (Python's pydantic models forbid extra fields) refuses anything else.
 */
const SHAPES: Record<string, { required: string[]; optional: string[] }> = {
  CollectionInfo: { required: ['status', 'optimizer_status', 'segments_count', 'config', 'payload_schema'], optional: ['warnings', 'indexed_vectors_count', 'points_count', 'update_queue'] },
  CollectionConfig: { required: ['params', 'hnsw_config', 'optimizer_config'], optional: ['wal_config', 'quantization_config', 'strict_mode_config', 'metadata'] },
  CollectionParams: { required: [], optional: ['vectors', 'shard_number', 'sharding_method', 'replication_factor', 'write_consistency_factor', 'read_fan_out_factor', 'read_fan_out_delay_ms', 'on_disk_payload', 'sparse_vectors'] },
  HnswConfig: { required: ['m', 'ef_construct', 'full_scan_threshold'], optional: ['max_indexing_threads', 'on_disk', 'payload_m', 'inline_storage'] },
  OptimizersConfig: { required: ['default_segment_number', 'flush_interval_sec'], optional: ['deleted_threshold', 'vacuum_min_vector_number', 'max_segment_size', 'memmap_threshold', 'indexing_threshold', 'max_optimization_threads', 'prevent_unoptimized'] },
  WalConfig: { required: ['wal_capacity_mb', 'wal_segments_ahead'], optional: ['wal_retain_closed'] },
  VectorParams: { required: ['size', 'distance'], optional: ['hnsw_config', 'quantization_config', 'on_disk', 'datatype', 'multivector_config'] },
  HnswConfigDiff: { required: [], optional: ['m', 'ef_construct', 'full_scan_threshold', 'max_indexing_threads', 'on_disk', 'payload_m', 'inline_storage'] },
  ScoredPoint: { required: ['id', 'version', 'score'], optional: ['payload', 'vector', 'shard_key', 'order_value'] },
};

/** A request to the Qdrant port (Qdrant's shapes, which the spec port's OpenAPI document does not describe). */
async function qdrantCall(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${url}${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
  return { status: response.status, body: (await response.json()) as Json };
}

function expectShape(value: Json, name: string): void {
  const { required, optional } = SHAPES[name]!;
  expect(value, name).to.be.an('object');
  for (const key of required) expect(value, `${name} lacks ${key}`).to.have.property(key);
  for (const key of Object.keys(value)) expect([...required, ...optional], `${name} has ${key}, which Qdrant's ${name} does not`).to.include(key);
}

function expectCollectionInfo(info: Json): void {
  expectShape(info, 'CollectionInfo');
  expectShape(info.config, 'CollectionConfig');
  expectShape(info.config.params, 'CollectionParams');
  expectShape(info.config.hnsw_config, 'HnswConfig');
  expectShape(info.config.optimizer_config, 'OptimizersConfig');
  expectShape(info.config.wal_config, 'WalConfig');
  const vectors = info.config.params.vectors as Json;
  for (const params of 'size' in vectors ? [vectors] : Object.values(vectors)) {
    expectShape(params, 'VectorParams');
    if (params.hnsw_config) expectShape(params.hnsw_config, 'HnswConfigDiff');
  }
}

describe('clients: Qdrant collection settings and answer shapes with @qdrant/js-client-rest 1.18', function () {
  this.timeout(60_000);
  const s = useTestServer({}, 'each');
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });

  it('takes the settings real apps send on create, keeps them across a restart and export, and reports them where Qdrant does', async () => {
    // The client leaves metadata out of createCollection's body (1.18), so this one is sent as it is.
    const created = await qdrantCall(s.service.qdrantUrl!, 'PUT', '/collections/docs', {
      vectors: { size: 3, distance: 'Cosine', on_disk: false, datatype: 'float32', hnsw_config: { m: 24 } },
      on_disk_payload: true,
      shard_number: 2,
      sharding_method: 'auto',
      replication_factor: 1,
      write_consistency_factor: 1,
      hnsw_config: { ef_construct: 64, full_scan_threshold: 5000, payload_m: 8, max_indexing_threads: 2, on_disk: false },
      optimizers_config: { default_segment_number: 2, indexing_threshold: 20000, max_optimization_threads: 'auto', flush_interval_sec: 3 },
      wal_config: { wal_capacity_mb: 64, wal_segments_ahead: 1 },
      strict_mode_config: { enabled: false, max_query_limit: 100 },
      metadata: { owner: 'search-team' },
    });
    expect(created.status).to.equal(200);
    const check = async (name: string) => {
      const info = (await client().getCollection(name)) as Json;
      expectCollectionInfo(info);
      const { config } = info;
      expect(config.params).to.deep.include({ shard_number: 2, sharding_method: 'auto', replication_factor: 1, write_consistency_factor: 1, on_disk_payload: true });
      expect(config.params.vectors).to.deep.equal({ size: 3, distance: 'Cosine', hnsw_config: { m: 24 }, datatype: 'float32' });
      expect(config.hnsw_config, "the collection's own m beside the vector's").to.deep.equal({ m: 16, ef_construct: 64, full_scan_threshold: 5000, payload_m: 8, max_indexing_threads: 2, on_disk: false });
      expect(config.optimizer_config).to.deep.include({ default_segment_number: 2, indexing_threshold: 20000, max_optimization_threads: null, flush_interval_sec: 3, deleted_threshold: 0.2, vacuum_min_vector_number: 1000 });
      expect(config.wal_config).to.deep.equal({ wal_capacity_mb: 64, wal_segments_ahead: 1, wal_retain_closed: 1 });
      expect(config.strict_mode_config).to.deep.equal({ enabled: false, max_query_limit: 100 });
      expect(config.metadata).to.deep.equal({ owner: 'search-team' });
    };
    await check('docs');
    expect(await client().updateCollection('docs', { hnsw_config: { m: 16 } }), 'the m it reports is taken back as it is').to.equal(true);
    await s.restart();
    await check('docs');
    const exported = await fetch(`${s.url}/collections/docs/export`);
    const imported = await fetch(`${s.url}/collections/copy/import?mode=create`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from(await exported.arrayBuffer()) });
    expect(imported.status).to.equal(200);
    await check('copy');
  });

  it('reports Qdrant defaults for a bare collection, with every field its OpenAPI requires and none it lacks', async () => {
    const q = client();
    await q.createCollection('bare', { vectors: { size: 2, distance: 'Dot' } });
    const info = (await q.getCollection('bare')) as Json;
    expectCollectionInfo(info);
    expect(info.config.hnsw_config).to.deep.equal({ m: 16, ef_construct: 200, full_scan_threshold: 10000, max_indexing_threads: 0, on_disk: false });
    expect(info.config.optimizer_config).to.deep.equal({ deleted_threshold: 0.2, vacuum_min_vector_number: 1000, default_segment_number: 0, max_segment_size: null, memmap_threshold: null, indexing_threshold: 10000, flush_interval_sec: 5, max_optimization_threads: null });
    expect(info.config.wal_config).to.deep.equal({ wal_capacity_mb: 32, wal_segments_ahead: 0, wal_retain_closed: 1 });
    expect(info.config.params).to.deep.equal({ vectors: { size: 2, distance: 'Dot' }, shard_number: 1, replication_factor: 1, write_consistency_factor: 1, on_disk_payload: false });
    expect(info.config.strict_mode_config).to.deep.equal({ enabled: false });
    const spec = (await call(s.url, 'GET', '/collections/bare')).body.result;
    expect(spec, 'the spec port keeps SPEC.md\'s fields beside them').to.include({ name: 'bare', vectors_count: 0 });
    expect(spec.config.hnsw_config).to.include({ m0: 32, full_scan_threshold: 10000 });
  });

  it('fills a partial hnsw_config with defaults, for the collection and for named vectors', async () => {
    const q = client();
    await q.createCollection('partial', { vectors: { size: 2, distance: 'Dot' }, hnsw_config: { m: 32 } });
    expect(((await q.getCollection('partial')) as Json).config.hnsw_config).to.include({ m: 32, ef_construct: 200 });
    await q.createCollection('named', { vectors: { a: { size: 2, distance: 'Dot', hnsw_config: { ef_construct: 50, full_scan_threshold: 100 }, datatype: 'float32' } } });
    const info = (await q.getCollection('named')) as Json;
    expectCollectionInfo(info);
    expect(info.config.params.vectors.a).to.deep.equal({ size: 2, distance: 'Dot', hnsw_config: { ef_construct: 50, full_scan_threshold: 100 }, datatype: 'float32' });
  });

  it('refuses by name what it does not support: custom sharding, HNSW on disk, other datatypes, strict mode on', async () => {
    const q = client();
    const cases: [Json, RegExp][] = [
      [{ sharding_method: 'custom' }, /sharding_method must be "auto" \("custom" needs shard keys/],
      [{ shard_number: 0 }, /shard_number must be an integer from 1/],
      [{ hnsw_config: { on_disk: true } }, /hnsw_config\.on_disk must be false/],
      [{ hnsw_config: { full_scan_threshold: 5 } }, /hnsw_config\.full_scan_threshold must be an integer from 10/],
      [{ vectors: { size: 2, distance: 'Dot', datatype: 'uint8' } }, /vectors\.datatype must be "float32" .*float16 and uint8 are not supported/],
      [{ strict_mode_config: { enabled: true } }, /strict_mode_config\.enabled must be false: this server does not enforce strict mode/],
      [{ wal_config: { wal_capacity_mb: 0 } }, /wal_config\.wal_capacity_mb must be an integer from 1/],
      [{ optimizers_config: { vacuum_min_vector_number: 10 } }, /optimizers_config\.vacuum_min_vector_number must be an integer from 100/],
    ];
    for (const [extra, message] of cases) {
      const refused = await refusal(q.createCollection('x', { vectors: { size: 2, distance: 'Dot' }, ...extra } as never));
      expect(refused, JSON.stringify(extra)).to.match(/^400 /).and.to.match(message);
    }
    expect(await q.collectionExists('x')).to.deep.equal({ exists: false });
  });

  it('updates strict mode, metadata (merged; {} clears it), params and HNSW extras in place', async () => {
    const q = client();
    await q.createCollection('u', { vectors: { size: 2, distance: 'Dot' } });
    await q.updateCollection('u', { metadata: { a: 1 } });
    await q.updateCollection('u', { strict_mode_config: { max_query_limit: 50 }, metadata: { b: 2 }, params: { on_disk_payload: true, replication_factor: 2 }, hnsw_config: { payload_m: 4, max_indexing_threads: 1 } });
    let info = (await q.getCollection('u')) as Json;
    expectCollectionInfo(info);
    expect(info.config.metadata).to.deep.equal({ a: 1, b: 2 });
    expect(info.config.strict_mode_config).to.deep.equal({ enabled: false, max_query_limit: 50 });
    expect(info.config.params).to.include({ on_disk_payload: true, replication_factor: 2 });
    expect(info.config.hnsw_config).to.include({ payload_m: 4, max_indexing_threads: 1 });
    await q.updateCollection('u', { metadata: {} });
    await s.restart();
    info = (await client().getCollection('u')) as Json;
    expect(info.config.metadata).to.deep.equal({});
    expect(info.config.params).to.include({ on_disk_payload: true });
  });

  it('answers scored points with a version and without labels, and {} for a point whose only vector was deleted', async () => {
    const q = client();
    await q.createCollection('p', { vectors: { size: 2, distance: 'Dot' } });
    await q.upsert('p', { wait: true, points: [{ id: 1, vector: [1, 0], payload: { t: 'a' } }, { id: 2, vector: [0, 1], payload: { t: 'b' } }, { id: 3, vector: [1, 1], payload: { t: 'c' } }] });
    await q.deleteVectors('p', { wait: true, points: [2], vector: [''] });
    const searched = await q.search('p', { vector: [1, 0], with_payload: true });
    const queried = (await q.query('p', { query: [1, 0], with_payload: true, with_vector: true })).points;
    const recommended = await q.recommend('p', { positive: [1], with_payload: true });
    const grouped = (await q.searchPointGroups('p', { vector: [1, 0], group_by: 't', group_size: 1, limit: 2, with_payload: true })).groups.flatMap((g) => g.hits);
    for (const point of [...searched, ...queried, ...recommended, ...grouped]) expectShape(point as Json, 'ScoredPoint');
    expect(searched[0]).to.deep.equal({ id: 1, version: 0, score: 1, payload: { t: 'a' } });
    expect(recommended.map((p) => p.id), 'the point without a vector is never a hit').to.deep.equal([3]);
    expect(grouped.length).to.be.above(0);
    for (const withVector of [true, ['']] as const) {
      const [got] = await q.retrieve('p', { ids: [2], with_vector: withVector as never });
      expect(got, `with_vector ${JSON.stringify(withVector)}`).to.deep.equal({ id: 2, payload: { t: 'b' }, vector: {} });
    }
    const spec = (await call(s.url, 'POST', '/collections/p/points', { ids: [2], with_vector: true })).body.result;
    expect(spec, 'the spec port keeps labels and null').to.deep.equal([{ id: 2, payload: { t: 'b' }, labels: [], vector: null }]);
  });

  it('answers aliases and missing collections as Qdrant: exists through an alias, delete of an alias or a missing name is false', async () => {
    const q = client();
    await q.createCollection('real', { vectors: { size: 2, distance: 'Dot' } });
    await q.updateCollectionAliases({ actions: [{ create_alias: { collection_name: 'real', alias_name: 'nick' } }] });
    expect(await q.collectionExists('nick')).to.deep.equal({ exists: true });
    expect(await q.deleteCollection('nick')).to.equal(false);
    expect(await q.collectionExists('real')).to.deep.equal({ exists: true });
    expect(await q.deleteCollection('missing')).to.equal(false);
    expect(await q.recreateCollection('fresh', { vectors: { size: 2, distance: 'Dot' } })).to.equal(true);
    expect((await call(s.url, 'DELETE', '/collections/missing')).status, 'the spec port keeps its 404').to.equal(404);
    expect(await q.deleteCollection('real')).to.equal(true);
  });

  it('answers a single node\'s cluster, telemetry and optimizations, refuses shard keys as Qdrant does, and takes an empty upsert', async () => {
    const q = client();
    await q.createCollection('c', { vectors: { size: 2, distance: 'Dot' } });
    await q.upsert('c', { wait: true, points: [{ id: 1, vector: [1, 0] }] });
    expect(await q.api().clusterStatus({})).to.have.nested.property('data.result.status', 'disabled');
    expect(await q.collectionClusterInfo('c')).to.deep.equal({ peer_id: 0, shard_count: 1, local_shards: [{ shard_id: 0, points_count: 1, state: 'Active' }], remote_shards: [], shard_transfers: [] });
    const telemetry = (await qdrantCall(s.service.qdrantUrl!, 'GET', '/telemetry')).body.result;
    expect(telemetry.app).to.include({ name: 'qdrant', version: '1.18.0' });
    expect(telemetry.collections).to.deep.equal({ number_of_collections: 1 });
    expect(await q.getOptimizations('c')).to.deep.equal({ summary: { queued_optimizations: 0, queued_segments: 0, queued_points: 0, idle_segments: 0 }, running: [] });
    expect(await refusal(q.createShardKey('c', { shard_key: 'eu' }))).to.equal('400 Bad request: Shard Key "eu" cannot be created with Auto sharding method');
    expect(await q.upsert('c', { wait: true, points: [] })).to.include({ status: 'completed' });
    expect((await q.count('c')).count).to.equal(1);
  });

  it('names what it refuses: text index options, rrf fields, with_lookup', async () => {
    const q = client();
    await q.createCollection('m', { vectors: { size: 2, distance: 'Dot' } });
    expect(await refusal(q.createPayloadIndex('m', { field_name: 't', field_schema: { type: 'text', tokenizer: 'prefix' } }))).to.match(/^400 field_schema\.tokenizer must be word or multilingual.*got "prefix"/);
    expect(await refusal(q.createPayloadIndex('m', { field_name: 't', field_schema: { type: 'text', min_token_len: 2 } as never }))).to.match(/unknown field "field_schema\.min_token_len": the fields of field_schema are .*tokenizer/);
    expect(await refusal(q.query('m', { prefetch: [{ query: [1, 0] }], query: { rrf: { k: 60, bias: [1] } } as never }))).to.equal('400 unknown field "query.rrf.bias": the fields of query.rrf are k, weights');
    expect(await refusal(q.queryGroups('m', { query: [1, 0], group_by: 'g', with_lookup: { collection: 'other' } }))).to.match(/^400 with_lookup must be absent \(with_lookup, reading each group's point from another collection, is not supported\)/);
  });
});
