import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QdrantClient } from '@qdrant/js-client-rest';
import { VectorGraphDB } from '../../browser/database.js';
import { Collection } from '../../storage/collection.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import type { FloatFile } from '../../storage/views/float-file.js';
import { ImportReader } from '../../storage/export/import-reader.js';
import { ByteReader } from '../../storage/codec/byte-reader.js';
import { ByteWriter } from '../../storage/codec/byte-writer.js';
import { EVENT_FORMAT_VERSION, decodeEvent, encodeEvent, readConfig, writeConfig } from '../../storage/events/codec.js';
import { searchCollection, searchCollectionPooled, type VectorQuery } from '../../query/search/vector-search.js';
import { call, useTestServer } from '../helpers/http.js';
import { useSearchPool } from '../helpers/search-pool.js';
import { randomVectors } from '../helpers/vectors.js';
import { runToolProcess } from '../tools/tool-process.js';
import { idsOf as ids, scoresOf as scores } from '../helpers/scored-points.js';

// Qdrant 1.18 scores Manhattan by -Σ|a - b| and shows the distance itself (ManhattanMetric's
// postprocess: abs), smallest first, keeping scores strictly below score_threshold (Distance's
// check_threshold, SmallBetter). Its recommend strategies combine the raw similarity, -Σ|a - b|.
// Port 6333 follows DECISIONS.md: minus the distance, threshold at or above.

/** The Manhattan distance, in float64 over float32 values. */
const l1 = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i]! - b[i]!);
  return s;
};

/** The ids of the k points nearest `q` by brute force, ties by the smaller id, with their distances. */
function bruteForce(vectors: readonly Float32Array[], q: ArrayLike<number>, k: number): { id: number; distance: number }[] {
  return vectors
    .map((v, id) => ({ id, distance: l1(v, q) }))
    .sort((a, b) => a.distance - b.distance || a.id - b.id)
    .slice(0, k);
}

const close = (actual: number, expected: number) => expect(actual).to.be.closeTo(expected, 1e-5 * Math.max(1, Math.abs(expected)));

const DIM = 16;
const config = (n = DIM): CollectionConfig => ({ size: n, distance: 'Manhattan', m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16) });
const query = (vector: ArrayLike<number>, limit = 10): VectorQuery => ({ vector, limit, offset: 0, ef: 64, filter: null, scoreThreshold: null });

function filled(vectors: readonly Float32Array[], dim = DIM): Collection {
  const c = new Collection('m', config(dim), 42);
  c.upsert(vectors.map((vector, id) => ({ id, vector, payload: { even: id % 2 === 0 }, labels: [] })));
  while (c.indexSome(10_000));
  return c;
}

/** Mean top-10 recall of `hits` against brute force over `queries`. */
function recall(vectors: readonly Float32Array[], queries: readonly Float32Array[], hits: (q: Float32Array) => { id: unknown }[]): number {
  let found = 0;
  for (const q of queries) {
    const truth = new Set(bruteForce(vectors, q, 10).map((h) => h.id));
    found += hits(q).filter((h) => truth.has(h.id as number)).length;
  }
  return found / (10 * queries.length);
}

describe('Manhattan (L1) distance', function () {
  this.timeout(120_000);

  it('is stored in the log as code 3, after the codes older logs hold (Cosine 0, Euclid 1, Dot 2)', () => {
    // A config starts with its size (u32), then the distance's code (u8).
    const codeOf = (distance: CollectionConfig['distance']) => {
      const w = new ByteWriter();
      writeConfig(w, { ...config(2), distance });
      const written = w.finish();
      expect(readConfig(new ByteReader(written), EVENT_FORMAT_VERSION).distance).to.equal(distance);
      return written[4];
    };
    expect(['Cosine', 'Euclid', 'Dot', 'Manhattan'].map((d) => codeOf(d as CollectionConfig['distance']))).to.deep.equal([0, 1, 2, 3]);
    const event = { type: 'create_collection', name: 'm', config: config(2) } as const;
    expect(decodeEvent(encodeEvent(event))).to.deep.equal(event);
  });

  describe('in the engine: HNSW, quantized codes and the search workers', () => {
    const vectors = randomVectors(4000, DIM, 5);
    const queries = randomVectors(30, DIM, 77);
    let c: Collection;
    before(() => {
      c = filled(vectors);
    });

    it('an HNSW search finds the brute-force L1 nearest, scored minus the distance', () => {
      expect(recall(vectors, queries, (q) => searchCollection(c, query(q)))).to.be.at.least(0.97);
      for (const q of queries.slice(0, 5)) {
        const hits = searchCollection(c, query(q));
        const truth = bruteForce(vectors, q, 10);
        for (const h of hits) close(h.score, -l1(vectors[h.id as number]!, q));
        expect(hits[0]!.id).to.equal(truth[0]!.id);
      }
    });

    it('walks int8 and binary codes, ranking by L1 on them, rescored by the floats', () => {
      for (const [method, settings, least] of [
        ['int8', { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } }, 0.95],
        // One bit a dimension ranks 16 dimensions coarsely (binary-quantized.ts): the rescored floats give the scores.
        ['binary', { quantization_config: { scalar: null, binary: {}, product: null } }, 0.4],
      ] as const) {
        const q8 = filled(vectors);
        q8.settings = settings;
        while (q8.indexSome(10_000));
        expect(q8.quantized, `${method}: the codes are whole`).to.not.equal(null);
        const asked = (q: Float32Array, rescore: boolean): VectorQuery => ({ ...query(q), quantization: { ignore: false, rescore, oversampling: 2 } });
        expect(recall(vectors, queries, (q) => searchCollection(q8, asked(q, true))), method).to.be.at.least(least);
        const hits = searchCollection(q8, asked(queries[0]!, true));
        for (const h of hits) close(h.score, -l1(vectors[h.id as number]!, queries[0]!));
        if (method === 'int8') {
          // The codes' own estimate, step Σ|cq - cx|, is near the distance: within a step or so a dimension.
          const estimated = searchCollection(q8, asked(queries[0]!, false));
          expect(recall(vectors, queries, (q) => searchCollection(q8, asked(q, false)))).to.be.at.least(0.8);
          for (const h of estimated) expect(h.score).to.be.closeTo(-l1(vectors[h.id as number]!, queries[0]!), 0.05 * DIM);
        }
      }
    });

    it('answers alike from one segment, from many (plain arrays and WebAssembly memories, int8 codes too) and with the floats on disk', () => {
      const INT8 = { quantization_config: { scalar: { type: 'int8' as const }, binary: null, product: null } };
      for (const dim of [8, 256]) {
        const data = randomVectors(700, dim, 3);
        const one = filled(data, dim);
        const many = new Collection('m', config(dim), 42, 64);
        many.upsert(data.map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
        while (many.indexSome(10_000));
        expect(many.store.segments.length).to.be.greaterThan(10);
        expect(many.store.kernels === null, 'SIMD kernels in memories from 256 dimensions').to.equal(dim === 8);
        const asked = (q: Float32Array, rescore: boolean): VectorQuery => ({ ...query(q), quantization: { ignore: false, rescore, oversampling: 2 } });
        for (const q of randomVectors(5, dim, 9)) expect(searchCollection(many, query(q))).to.deep.equal(searchCollection(one, query(q)));
        for (const c of [one, many]) c.settings = INT8;
        for (const q of randomVectors(5, dim, 9)) for (const rescore of [true, false]) expect(searchCollection(many, asked(q, rescore))).to.deep.equal(searchCollection(one, asked(q, rescore)));
        // The floats in a file (here in RAM), read a row at a time; the graph links on the codes.
        const rows: Float32Array[] = [];
        const file: FloatFile = {
          write: (slot, vectors, count) => {
            for (let k = 0; k < count; k++) rows[slot + k] = vectors.slice(k * dim, (k + 1) * dim);
          },
          read: (slot, into, count) => {
            for (let k = 0; k < count; k++) into.set(rows[slot + k] ?? new Float32Array(dim), k * dim);
          },
          close: () => undefined,
        };
        many.useFloatFiles({ open: () => file, released: () => undefined });
        many.settings = { ...INT8, vectors: { '': { on_disk: true } } };
        expect(many.store.onDisk).to.equal(true);
        for (const q of randomVectors(5, dim, 9)) expect(searchCollection(many, asked(q, true))).to.deep.equal(searchCollection(one, asked(q, true)));
      }
    });

    describe('on the search workers (shared memory)', () => {
      const pool = useSearchPool(2);
      it('answers exactly what the same search in place answers, on the floats and on int8 codes', async () => {
        for (const q of queries.slice(0, 10)) expect(await searchCollectionPooled(c, query(q))).to.deep.equal(searchCollection(c, query(q)));
        const big = filled(randomVectors(9000, 32, 19), 32);
        big.settings = { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } };
        while (big.indexSome(10_000));
        const walks = pool().walks;
        for (const q of randomVectors(10, 32, 23)) {
          const asked: VectorQuery = { ...query(q), quantization: { ignore: false, rescore: true, oversampling: 2 } };
          expect(await searchCollectionPooled(big, asked)).to.deep.equal(searchCollection(big, asked));
        }
        expect(pool().walks, 'the walks ran on the workers').to.equal(walks + 10);
      });
    });
  });

  describe('over HTTP and the Qdrant client', () => {
    const s = useTestServer({ SERVICE_SNAPSHOT_EVERY: '0' }, 'each');
    const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });
    // Distances from [0, 0]: 1 at 0, 4 at 2, 2 at 7, 3 at 14; 2 is 7 from 1 and from 4 (a tie), 3 is 7 from 2.
    const points = [
      { id: 1, vector: [0, 0], payload: { g: 'a' } },
      { id: 2, vector: [3, 4], payload: { g: 'b' } },
      { id: 3, vector: [6, 8], payload: { g: 'a' } },
      { id: 4, vector: [1, -1], payload: { g: 'b' } },
    ];
    const fill = async () => {
      const q = client();
      expect(await q.createCollection('m', { vectors: { size: 2, distance: 'Manhattan' } })).to.equal(true);
      await q.upsert('m', { wait: true, points });
    };

    it('creates, describes and patches a Manhattan collection on both ports, named vectors too', async () => {
      const q = client();
      await fill();
      expect((await q.getCollection('m')).config.params.vectors).to.deep.include({ size: 2, distance: 'Manhattan' });
      const spec = await call(s.url, 'GET', '/collections/m');
      expect(spec.body.result.config.params.vectors).to.deep.include({ size: 2, distance: 'Manhattan' });
      await q.updateCollection('m', { quantization_config: { scalar: { type: 'int8' } } });
      expect((await q.getCollection('m')).config.quantization_config).to.deep.equal({ scalar: { type: 'int8' } });
      expect(ids(await q.search('m', { vector: [0, 0] }))).to.deep.equal([1, 4, 2, 3]);
      await q.createCollection('n', { vectors: { text: { size: 2, distance: 'Manhattan' }, image: { size: 2, distance: 'Cosine' } } });
      expect((await q.getCollection('n')).config.params.vectors).to.deep.include({ text: { size: 2, distance: 'Manhattan' } });
      await q.upsert('n', { wait: true, points: points.map((p) => ({ id: p.id, vector: { text: p.vector, image: p.vector.map((x) => x + 1) } })) });
      const named = await q.search('n', { vector: { name: 'text', vector: [0, 0] }, limit: 4 });
      expect(ids(named)).to.deep.equal([1, 4, 2, 3]);
      expect(scores(named)).to.deep.equal([0, 2, 7, 14]);
      const created = await call(s.url, 'PUT', '/collections/s', { vectors: { size: 3, distance: 'manhattan' } });
      expect(created.status).to.equal(200);
      expect((await call(s.url, 'GET', '/collections/s')).body.result.config.params.vectors.distance).to.equal('Manhattan');
    });

    it('Qdrant port: the distance itself, smallest first; score_threshold keeps distances strictly below it', async () => {
      const q = client();
      await fill();
      const found = await q.search('m', { vector: [0, 0] });
      expect(ids(found)).to.deep.equal([1, 4, 2, 3]);
      expect(scores(found)).to.deep.equal([0, 2, 7, 14]);
      expect(ids(await q.search('m', { vector: [0, 0], score_threshold: 7 }))).to.deep.equal([1, 4]);
      expect(ids(await q.search('m', { vector: [0, 0], score_threshold: 7.5 }))).to.deep.equal([1, 4, 2]);
      const queried = await q.query('m', { query: [0, 0], score_threshold: 7.5 });
      expect(scores(queried.points)).to.deep.equal([0, 2, 7]);
      const exact = await q.query('m', { query: [1, 1], params: { exact: true } });
      expect(scores(exact.points)).to.deep.equal([2, 2, 5, 12]);
      expect(ids(exact.points), 'ties by the smaller id').to.deep.equal([1, 4, 2, 3]);
      const { groups } = await q.searchPointGroups('m', { vector: [0, 0], group_by: 'g', group_size: 2, limit: 2 });
      expect(groups.map((g) => [g.id, scores(g.hits)])).to.deep.equal([
        ['a', [0, 14]],
        ['b', [2, 7]],
      ]);
      // A formula's $score of a Manhattan prefetch is the distance on this port (minus it on 6333).
      const formula = { prefetch: { query: [0, 0] }, query: { formula: { mult: ['$score', 2] } } };
      const boosted = await q.query('m', formula);
      expect(ids(boosted.points)).to.deep.equal([3, 2, 4, 1]);
      expect(scores(boosted.points)).to.deep.equal([28, 14, 4, 0]);
      expect(scores((await call(s.url, 'POST', '/collections/m/points/query', formula)).body.result)).to.deep.equal([0, -4, -14, -28]);
      const { pairs } = await q.searchMatrixPairs('m', { sample: 4, limit: 1 });
      expect(pairs).to.deep.equal([
        { a: 1, b: 4, score: 2 },
        { a: 2, b: 1, score: 7 },
        { a: 3, b: 2, score: 7 },
        { a: 4, b: 1, score: 2 },
      ]);
    });

    it('recommend: average_vector shows distances; best_score and sum_scores combine minus the L1 distances', async () => {
      const q = client();
      await fill();
      const average = await q.recommend('m', { positive: [[1, 1]], limit: 4 });
      expect(scores(average)).to.deep.equal([2, 2, 5, 12]);
      const sigmoid = (x: number) => 0.5 * (x / (1 + Math.abs(x)) + 1);
      const best = await q.recommend('m', { positive: [[0, 0]], negative: [[6, 8]], strategy: 'best_score', limit: 4 });
      expect(ids(best)).to.deep.equal([1, 4, 2, 3]);
      // 1: 0 against -14; 4: -2 against -14; 2: -7 ties -7, so the negative counts; 3: -14 against 0.
      scores(best).forEach((score, i) => close(score, [sigmoid(0), sigmoid(-2), -sigmoid(-7), -sigmoid(0)][i]!));
      const sum = await q.recommend('m', { positive: [[0, 0]], negative: [[6, 8]], strategy: 'sum_scores', limit: 4 });
      expect(scores(sum)).to.deep.equal([14, 12, 0, -14]);
    });

    it('port 6333 keeps DECISIONS.md: minus the distance, threshold at or above', async () => {
      await fill();
      const found = await call(s.url, 'POST', '/collections/m/points/search', { vector: [0, 0], limit: 4 });
      expect(scores(found.body.result)).to.deep.equal([0, -2, -7, -14]);
      const kept = await call(s.url, 'POST', '/collections/m/points/search', { vector: [0, 0], limit: 4, score_threshold: -7 });
      expect(ids(kept.body.result)).to.deep.equal([1, 4, 2]);
      const queried = await call(s.url, 'POST', '/collections/m/points/query', { query: [0, 0], score_threshold: -7 });
      expect(scores(queried.body.result)).to.deep.equal([0, -2, -7]);
      const cypher = await call(s.url, 'POST', '/collections/m/graph/query', { query: 'MATCH (n) WHERE n.embedding <-> $q < 7.5 RETURN id(n) AS id, n.embedding <-> $q AS d ORDER BY d', parameters: { q: [0, 0] } });
      expect(cypher.status, JSON.stringify(cypher.body)).to.equal(200);
      // `<->` is the collection's raw distance: for Manhattan the L1 distance.
      expect(cypher.body.result.rows).to.deep.equal([
        [1, 0],
        [4, 2],
        [2, 7],
      ]);
    });

    it('replays after a restart (log and snapshot), exports and imports, and the replay tool rebuilds it', async () => {
      const q = client();
      await fill();
      const many = randomVectors(300, 8, 3);
      await q.createCollection('big', { vectors: { size: 8, distance: 'Manhattan' }, quantization_config: { scalar: { type: 'int8' } } });
      await q.upsert('big', { wait: true, points: many.map((v, id) => ({ id, vector: Array.from(v) })) });
      const probe = Array.from(randomVectors(1, 8, 9)[0]!);
      const before = await q.search('big', { vector: probe, limit: 5 });
      expect(ids(before)).to.deep.equal(bruteForce(many, probe, 5).map((h) => h.id));
      await s.restart();
      expect(s.service.engine.lastSnapshotOperationId, 'started from the snapshot written at close').to.be.greaterThan(0);
      expect((await client().getCollection('big')).config.params.vectors).to.deep.include({ distance: 'Manhattan' });
      expect(await client().search('big', { vector: probe, limit: 5 })).to.deep.equal(before);
      expect(scores(await client().search('m', { vector: [0, 0] }))).to.deep.equal([0, 2, 7, 14]);

      const exported = Buffer.from(await (await fetch(`${s.url}/collections/m/export`)).arrayBuffer());
      const imported = await fetch(`${s.url}/collections/copy/import?mode=create`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: exported });
      expect(imported.status).to.equal(200);
      expect(scores(await client().search('copy', { vector: [0, 0] }))).to.deep.equal([0, 2, 7, 14]);

      const dataDir = s.dataDir;
      await s.service.close();
      const out = join(dataDir, 'rebuilt');
      const verify = runToolProcess('replay', ['verify', '--data-dir', dataDir]);
      expect(verify.code, verify.out + verify.err).to.equal(0);
      expect(verify.out, 'the log replayed from operation 1 gives the snapshot').to.match(/snapshot \d+ matches a replay from operation 1/);
      const rebuilt = runToolProcess('replay', ['rebuild', '--data-dir', dataDir, '--until', '999', '--out', out]);
      expect(rebuilt.code, rebuilt.err).to.equal(0);
      const reader = new ImportReader();
      reader.feed(readFileSync(join(out, 'big.vgdb')));
      expect(reader.finish().config.distance).to.equal('Manhattan');
      await s.restart();
    });
  });

  it('the browser library creates and searches a Manhattan collection', async () => {
    const db = await VectorGraphDB.init();
    expect(db.createCollection('m', { vectors: { size: 2, distance: 'Manhattan' } })).to.equal(true);
    db.upsert('m', [
      { id: 1, vector: [0, 0], payload: {} },
      { id: 2, vector: [3, 4], payload: {} },
      { id: 4, vector: [1, -1], payload: {} },
    ]);
    const hits = db.search('m', [0, 0], 3);
    // + 0: minus a zero distance is -0, as Euclid's is.
    expect(hits.map((h) => [h.id, (h.score as number) + 0])).to.deep.equal([
      [1, 0],
      [4, -2],
      [2, -7],
    ]);
    expect((db.getCollection('m') as { config: { params: { vectors: { distance: string } } } }).config.params.vectors.distance).to.equal('Manhattan');
  });
});
