import { expect } from 'chai';
import { VectorGraphDB } from '../../browser/database.js';
import { call, startTestServer } from '../helpers/http.js';
import { exerciseLibrary } from './scenario.js';

type Failure = { code: number; message: string; isError: boolean };

describe('browser library, in Node over the in-memory log', () => {
  let r: Record<string, any>;
  before(async () => {
    r = await exerciseLibrary(VectorGraphDB);
  });

  it('creates, lists, describes and deletes collections', () => {
    expect(r.create).to.equal(true);
    expect(r.list).to.deep.equal({ collections: [{ name: 'docs' }] });
    expect(r.info).to.equal(301);
    expect(r.deleteCollection).to.deep.equal([true, { collections: [{ name: 'docs' }] }]);
  });

  it('upserts Float32Array vectors and bigint ids, searches with options, gets and deletes by BigUint64Array', () => {
    expect(r.upsert).to.deep.equal({ operation_id: 2, status: 'completed' });
    expect(r.search).to.have.length(5);
    expect(Object.keys(r.search[0])).to.deep.equal(['id', 'score', 'payload', 'labels']);
    expect(r.search.map((p: { score: number }) => p.score)).to.deep.equal([...r.search.map((p: { score: number }) => p.score)].sort((a, b) => b - a));
    expect(r.searchOptions).to.have.length(3);
    for (const p of r.searchOptions) {
      expect(p.id % 3).to.equal(0);
      expect(p).to.not.have.property('payload');
      expect(p.vector).to.have.length(8);
    }
    expect(r.searchThreshold).to.equal(true);
    expect(r.getPoints.map((p: { id: number }) => p.id)).to.deep.equal([3, 1000, 4]);
    expect(r.getPoints[1]).to.deep.equal({ id: 1000, payload: { big: true }, labels: [] });
    expect(Object.keys(r.getPointsVector[0])).to.deep.equal(['id', 'vector']);
    expect(r.deletePoints).to.have.property('status', 'completed');
    expect(r.afterDelete[0]).to.equal(304);
    expect(r.afterDelete[1].visited, 'deleting point 2 took its edges').to.deep.equal([1]);
  });

  it('adds edges, traverses and runs Cypher reads and writes', () => {
    expect(r.addEdge).to.deep.equal([{ created: true }, { created: true }, { created: true }, { created: false }]);
    expect(r.traverse.visited).to.deep.equal([1, 2, 3, 4]);
    expect(r.traverse.max_depth_reached).to.equal(2);
    expect(r.traverseRelations.visited).to.deep.equal([1, 2, 3]);
    expect(r.query.columns).to.deep.equal(['id(a)', 'k.weight', 'b.n']);
    expect(r.query.rows).to.deep.equal([[1, 0.75, 2], [2, 1, 3]]);
    expect(r.query.stats, '301 start nodes and the 2 reached').to.deep.equal({ nodes_scanned: 303, rows_returned: 2, execution_time_ms: 'number' });
    expect(r.queryWrite.rows).to.deep.equal([[5]]);
    expect(r.queryAfterWrite).to.deep.equal([[0, 'x', 1], [2, 'x', 1], [4, 'x', 1]]);
    expect(r.queryVector[0][0]).to.be.a('number').and.at.least(1);
  });

  it('exports and imports in the server file format', () => {
    expect(r.exportSize).to.deep.equal([true, true, [0x56, 0x47, 0x44, 0x42]]);
    expect(r.importCopy).to.deep.include({ points_imported: 304, points_skipped: 0, dimension: 8, mode: 'create' });
    expect((r.importCopy as { operation_id: unknown }).operation_id).to.be.a('number');
    expect(r.copySearchEqual).to.equal(true);
    expect(r.copyQueryEqual).to.equal(true);
  });

  it('throws Error objects with the HTTP status in code and the HTTP API message', async () => {
    const failures: Record<string, [number, RegExp]> = {
      createAgain: [409, /collection "docs" already exists/],
      createBad: [400, /invalid collection name/],
      createBadDistance: [400, /vectors.distance must be one of/],
      upsertWrongDim: [400, /point 1: vector has 2 dimensions, collection "docs" expects 8/],
      upsertMissing: [404, /collection "nope" not found/],
      infoMissing: [404, /collection "nope" not found/],
      searchBadLimit: [400, /limit must be an integer from 1/],
      getPointsTooBig: [400, /invalid point id 1152921504606846976/],
      addEdgeMissing: [404, /point 77777 not found/],
      addEdgeNoRelation: [400, /relation must be a non-empty string/],
      traverseTooDeep: [400, /max_depth/],
      querySyntax: [400, /line 2, column 1/],
      queryUnsupported: [400, /LOAD is not supported/],
      importAgain: [409, /already exists/],
      importCorrupt: [400, /corrupted import file/],
      deleteMissing: [404, /collection "copy" not found/],
    };
    for (const [name, [code, message]] of Object.entries(failures)) {
      const f = r[name] as Failure;
      expect(f.isError, name).to.equal(true);
      expect(f.code, name).to.equal(code);
      expect(f.message, name).to.match(message);
    }
    // The same requests over HTTP answer the same status and message.
    const s = await startTestServer();
    try {
      await call(s.url, 'PUT', '/collections/docs', { vectors: { size: 8, distance: 'Cosine' } });
      const http = {
        createAgain: await call(s.url, 'PUT', '/collections/docs', { vectors: { size: 8, distance: 'Cosine' } }),
        upsertWrongDim: await call(s.url, 'PUT', '/collections/docs/points', { points: [{ id: 1, vector: [1, 2], payload: {} }] }),
        infoMissing: await call(s.url, 'GET', '/collections/nope'),
        querySyntax: await call(s.url, 'POST', '/collections/docs/graph/query', { query: 'MATCH (n\nRETURN n' }),
        traverseTooDeep: await call(s.url, 'POST', '/collections/docs/graph/traverse', { start_id: 1, max_depth: 101 }),
      };
      for (const [name, res] of Object.entries(http)) {
        expect(res.status, name).to.equal((r[name] as Failure).code);
        expect(res.body.message, name).to.equal((r[name] as Failure).message);
      }
    } finally {
      await s.stop();
      s.remove();
    }
  });

  it('selects payload keys as own keys only: asking for "constructor" or "toString" returns nothing the payload does not hold', async () => {
    const db = await VectorGraphDB.init();
    db.createCollection('own', { vectors: { size: 2, distance: 'Dot' } });
    db.upsert('own', [{ id: 1, vector: [1, 0], payload: { a: 1 } }]);
    const [hit] = db.search('own', [1, 0], 1, { with_payload: ['a', 'constructor', 'toString'] });
    expect(Object.getOwnPropertyNames(hit!.payload)).to.deep.equal(['a']);
    const [inc] = db.search('own', [1, 0], 1, { with_payload: { include: ['constructor'] } });
    expect(Object.getOwnPropertyNames(inc!.payload)).to.deep.equal([]);
  });

  it('takes quantization_config on create and params.quantization on search, as the server does', async () => {
    const db = await VectorGraphDB.init();
    db.createCollection('q', { vectors: { size: 2, distance: 'Cosine' }, quantization_config: { scalar: { type: 'int8', quantile: 0.99 } } });
    expect((db.getCollection('q').config as Record<string, unknown>).quantization_config).to.deep.equal({ scalar: { type: 'int8', quantile: 0.99 } });
    db.upsert('q', [{ id: 1, vector: [1, 0] }, { id: 2, vector: [0, 1] }]);
    expect(db.search('q', [1, 0.1], 1, { params: { quantization: { rescore: true, oversampling: 2 } } }).map((h) => h.id)).to.deep.equal([1]);
    expect(() => db.search('q', [1, 0], 1, { params: { quantization: { oversample: 2 } } as never })).to.throw(/unknown field "params\.quantization\.oversample"/);
    expect(() => db.createCollection('bad', { vectors: { size: 2, distance: 'Dot' }, quantization_config: { scalar: { type: 'int4' } } as never })).to.throw(/quantization_config\.scalar\.type/);
  });

  it('takes UUID string ids beside numbers and bigints, answers them canonical, and refuses a malformed one as the server does', async () => {
    const db = await VectorGraphDB.init();
    db.createCollection('ids', { vectors: { size: 2, distance: 'Euclid' } });
    const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
    db.upsert('ids', [
      { id: uuid.toUpperCase(), vector: [1, 0] },
      { id: 2n, vector: [0, 1] },
      { id: 3, vector: [1, 1] },
    ]);
    db.addEdge('ids', uuid.replaceAll('-', ''), 2n, 'R');
    expect(db.getPoints('ids', [uuid, 2, 3n], false).map((p) => p.id)).to.deep.equal([uuid, 2, 3]);
    expect(db.search('ids', [1, 0], 1)[0]!.id).to.equal(uuid);
    expect(db.traverse('ids', uuid, 2).visited).to.deep.equal([uuid, 2]);
    expect(() => db.upsert('ids', [{ id: 'nope', vector: [1, 0] }])).to.throw(/points\[0\]\.id: invalid point id "nope"/);
    db.deletePoints('ids', [uuid]);
    expect(db.getPoints('ids', [uuid])).to.deep.equal([]);
  });

  it('keeps named and sparse vectors as the server does: upsert, search by name, read by name, export and import', async () => {
    const db = await VectorGraphDB.init();
    db.createCollection('hybrid', { vectors: { dense: { size: 2, distance: 'Cosine' } }, sparse_vectors: { words: { modifier: 'none' } } });
    db.upsert('hybrid', [
      { id: 1, vector: { dense: Float32Array.of(1, 0), words: { indices: [3, 1], values: [1, 2] } } },
      { id: 2, vector: { dense: [0, 1] } },
    ]);
    expect(db.search('hybrid', [0, 1], 2, { using: 'dense' }).map((p) => p.id)).to.deep.equal([2, 1]);
    expect(db.search('hybrid', { indices: [1], values: [1] }, 2, { using: 'words' }).map((p) => [p.id, p.score])).to.deep.equal([[1, 2]]);
    expect(db.getPoints('hybrid', [1], false, ['words'])).to.deep.equal([{ id: 1, vector: { words: { indices: [1, 3], values: [2, 1] } } }]);
    expect(() => db.search('hybrid', [0, 1], 2)).to.throw(/has no unnamed vector/);
    db.importCollection('copy', db.exportCollection('hybrid'));
    expect(db.getPoints('copy', [1, 2], false, true)).to.deep.equal(db.getPoints('hybrid', [1, 2], false, true));
  });
});

