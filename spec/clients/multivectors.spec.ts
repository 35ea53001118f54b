import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QdrantClient } from '@qdrant/js-client-rest';
import { ImportReader } from '../../storage/export/import-reader.js';
import { useTestServer } from '../helpers/http.js';
import { refusal } from '../helpers/qdrant-refusal.js';
import { randomVectors } from '../helpers/vectors.js';
import { runToolProcess } from '../tools/tool-process.js';

// Qdrant's multivectors (multivector_config: {comparator: "max_sim"}): a point holds a matrix,
// scored against a query matrix Q by MaxSim = Σ over q in Q of max over the point's rows d of
// sim(q, d), sim the vector's distance (Cosine on unit rows, Dot, minus Euclid or Manhattan).

type Matrix = number[][];

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const unit = (a: number[]) => {
  const n = Math.sqrt(dot(a, a));
  return n === 0 ? a : a.map((x) => Math.fround(x / n));
};
/** The reference MaxSim, in float64 over the float32 values the server keeps. */
function maxSim(query: Matrix, doc: Matrix, distance: 'Cosine' | 'Dot' | 'Euclid' | 'Manhattan'): number {
  const f32 = (m: Matrix) => m.map((row) => row.map(Math.fround));
  const [q, d] = distance === 'Cosine' ? [f32(query).map(unit), f32(doc).map(unit)] : [f32(query), f32(doc)];
  const sim = (a: number[], b: number[]) =>
    distance === 'Euclid' ? -Math.sqrt(a.reduce((s, x, i) => s + (x - b[i]!) ** 2, 0)) : distance === 'Manhattan' ? -a.reduce((s, x, i) => s + Math.abs(x - b[i]!), 0) : dot(a, b);
  return q.reduce((total, row) => total + Math.max(...d.map((other) => sim(row, other))), 0);
}

/** `count` deterministic matrices of 1 to 4 rows of `dim` numbers. */
function matrices(count: number, dim: number, seed: number): Matrix[] {
  const rows = randomVectors(count * 4, dim, seed);
  return Array.from({ length: count }, (_, i) => rows.slice(i * 4, i * 4 + 1 + (i % 4)).map((r) => Array.from(r)));
}

const DIM = 4;
const docs = matrices(40, DIM, 11);
const dense = randomVectors(40, 3, 12).map((v) => Array.from(v));
const probe: Matrix = matrices(1, DIM, 99)[0]!.concat([[0.5, -0.25, 1, 0]]);

/** The ids and reference scores of the best `limit` of `ids` against `query`, best first (ties by id). */
function expected(query: Matrix, ids: number[], distance: 'Cosine' | 'Dot' | 'Euclid' | 'Manhattan', limit: number): [number, number][] {
  return ids
    .map((id) => [id, maxSim(query, docs[id]!, distance)] as [number, number])
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, limit);
}

function expectScores(points: { id: string | number; score: number }[], want: [number, number][]): void {
  expect(points.map((p) => p.id)).to.deep.equal(want.map(([id]) => id));
  points.forEach((p, i) => expect(p.score, `score of ${p.id}`).to.be.closeTo(want[i]![1], 1e-5));
}

describe('clients: multivectors (late interaction, max_sim) with @qdrant/js-client-rest 1.18', function () {
  this.timeout(60_000);
  const s = useTestServer({}, 'each');
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });
  const all = docs.map((_, id) => id);

  beforeEach(async () => {
    const q = client();
    await q.createCollection('late', {
      vectors: {
        dense: { size: 3, distance: 'Dot' },
        colbert: { size: DIM, distance: 'Cosine', multivector_config: { comparator: 'max_sim' }, hnsw_config: { m: 0 } },
        bag: { size: DIM, distance: 'Dot', multivector_config: { comparator: 'max_sim' } },
      },
    });
    await q.upsert('late', {
      wait: true,
      points: docs.map((m, id) => ({ id, vector: { dense: dense[id]!, colbert: m, bag: m }, payload: { even: id % 2 === 0 } })),
    });
  });

  it('creates named and unnamed multivectors and reports their multivector_config as Qdrant does', async () => {
    const info = await client().getCollection('late');
    expect(info.config.params.vectors).to.deep.equal({
      dense: { size: 3, distance: 'Dot' },
      colbert: { size: DIM, distance: 'Cosine', hnsw_config: { m: 0 }, multivector_config: { comparator: 'max_sim' } },
      bag: { size: DIM, distance: 'Dot', multivector_config: { comparator: 'max_sim' } },
    });
    expect(info.points_count).to.equal(40);
    await client().createCollection('one', { vectors: { size: 2, distance: 'Euclid', multivector_config: { comparator: 'max_sim' } } });
    expect((await client().getCollection('one')).config.params.vectors).to.deep.equal({ size: 2, distance: 'Euclid', multivector_config: { comparator: 'max_sim' } });
  });

  it('answers the matrix a point holds in retrieve and scroll (Cosine rows as stored: unit length)', async () => {
    const [three] = await client().retrieve('late', { ids: [3], with_vector: ['bag'] });
    expect(three!.vector).to.deep.equal({ bag: docs[3]!.map((row) => row.map(Math.fround)) });
    const [cos] = await client().retrieve('late', { ids: [2], with_vector: ['colbert'] });
    const rows = (cos!.vector as { colbert: Matrix }).colbert;
    expect(rows).to.have.length(3);
    rows.forEach((row, i) => row.forEach((x, j) => expect(x).to.be.closeTo(unit(docs[2]![i]!.map(Math.fround))[j]!, 1e-6)));
    await client().createCollection('one', { vectors: { size: 2, distance: 'Dot', multivector_config: { comparator: 'max_sim' } } });
    await client().upsert('one', { wait: true, points: [{ id: 1, vector: [[1, 2], [3, 4]] }, { id: 2, vector: [[5, 6]] }] });
    await client().upsert('one', { wait: true, batch: { ids: [3], vectors: [[[7, 8], [9, 10]]] } });
    const { points } = await client().scroll('one', { with_vector: true, filter: { must: [{ has_id: [1, 2] }] } });
    expect((await client().retrieve('one', { ids: [3], with_vector: true }))[0]!.vector, 'the columnar batch form').to.deep.equal([[7, 8], [9, 10]]);
    expect(points.map((p) => p.vector), 'the unnamed multivector comes back as the bare matrix').to.deep.equal([[[1, 2], [3, 4]], [[5, 6]]]);
  });

  it('queries a multivector directly: every point by exact MaxSim, Cosine and Dot, by a matrix, a point id or one read with lookup_from', async () => {
    const q = client();
    expectScores((await q.query('late', { query: probe, using: 'colbert', limit: 7 })).points, expected(probe, all, 'Cosine', 7));
    expectScores((await q.query('late', { query: probe, using: 'bag', limit: 7 })).points, expected(probe, all, 'Dot', 7));
    const byId = await q.query('late', { query: 5, using: 'bag', limit: 3 });
    expectScores(byId.points, expected(docs[5]!, all.filter((id) => id !== 5), 'Dot', 3));
    const [nearest, other] = await q.queryBatch('late', { searches: [{ query: { nearest: probe }, using: 'bag', limit: 3 }, { query: docs[9]!, using: 'colbert', limit: 2 }] });
    expectScores(nearest!.points, expected(probe, all, 'Dot', 3));
    expectScores(other!.points, expected(docs[9]!, all, 'Cosine', 2));
    await q.createCollection('examples', { vectors: { size: DIM, distance: 'Dot', multivector_config: { comparator: 'max_sim' } } });
    await q.upsert('examples', { wait: true, points: [{ id: 1, vector: docs[3]! }] });
    const looked = await q.query('late', { query: 1, using: 'bag', lookup_from: { collection: 'examples', vector: '' }, limit: 3 });
    expectScores(looked.points, expected(docs[3]!, all, 'Dot', 3));
    const kept = await q.query('late', { query: probe, using: 'bag', limit: 40, score_threshold: expected(probe, all, 'Dot', 4)[3]![1] - 1e-4 });
    expect(kept.points.map((p) => p.id), 'score_threshold keeps the scores past it').to.deep.equal(expected(probe, all, 'Dot', 4).map(([id]) => id));
  });

  it('reranks the candidates of a dense prefetch by MaxSim (the late interaction pattern)', async () => {
    const q = client();
    const first = await q.query('late', { query: [1, 0.5, -0.5], using: 'dense', limit: 10 });
    const candidates = first.points.map((p) => p.id as number);
    expect(candidates).to.have.length(10);
    const reranked = await q.query('late', { prefetch: { query: [1, 0.5, -0.5], using: 'dense', limit: 10 }, query: probe, using: 'colbert', limit: 5, with_payload: false });
    expectScores(reranked.points, expected(probe, candidates, 'Cosine', 5));
    const outside = expected(probe, all, 'Cosine', 40).find(([id]) => !candidates.includes(id))!;
    expect(reranked.points.map((p) => p.id), 'a point the prefetch left out is never reranked in').to.not.include(outside[0]);
  });

  it('filters a multivector query, and has_vector sees multivectors', async () => {
    const q = client();
    const even = await q.query('late', { query: probe, using: 'bag', filter: { must: [{ key: 'even', match: { value: true } }] }, limit: 4 });
    expectScores(even.points, expected(probe, all.filter((id) => id % 2 === 0), 'Dot', 4));
    await q.deleteVectors('late', { wait: true, points: [0, 1], vector: ['bag'] });
    const { count } = await q.count('late', { filter: { must: [{ has_vector: 'bag' }] }, exact: true });
    expect(count).to.equal(38);
    const hits = await q.query('late', { query: probe, using: 'bag', limit: 40 });
    expect(hits.points.map((p) => p.id), 'a point without the multivector is never a result').to.not.include.members([0, 1]);
    expect(hits.points).to.have.length(38);
  });

  it('updates one multivector of a point, keeping its other vectors', async () => {
    const q = client();
    await q.updateVectors('late', { wait: true, points: [{ id: 7, vector: { bag: [[9, 0, 0, 0]] } }] });
    const [seven] = await q.retrieve('late', { ids: [7], with_vector: ['bag', 'dense'] });
    expect(seven!.vector).to.deep.equal({ bag: [[9, 0, 0, 0]], dense: dense[7]!.map(Math.fround) });
    const hits = await q.query('late', { query: [[1, 0, 0, 0]], using: 'bag', limit: 1 });
    expect(hits.points.map((p) => [p.id, p.score])).to.deep.equal([[7, 9]]);
  });

  it('writes a multivector in the changes feed as its row size and its rows one after the other', async () => {
    await client().createCollection('feed', { vectors: { v: { size: 2, distance: 'Dot', multivector_config: { comparator: 'max_sim' } } } });
    const { operation_id: op } = await client().upsert('feed', { wait: true, points: [{ id: 1, vector: { v: [[1, 2], [3, 4]] } }] });
    const body = await (await fetch(`${s.url}/changes?from=${op}&wait_ms=0`)).text();
    const [line] = body.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { data: { points: unknown[] } });
    expect(line!.data.points).to.deep.equal([{ id: 1, vector: null, payload: {}, labels: [], multi: { v: { dim: 2, values: [1, 2, 3, 4] } } }]);
  });

  it('refuses matrices of the wrong shape and vectors of the wrong kind, naming them, and applies nothing', async () => {
    const q = client();
    const upsert = (vector: unknown) => refusal(q.upsert('late', { wait: true, points: [{ id: 100, vector: vector as number[] }] }));
    expect(await upsert({ colbert: [[1, 2, 3]] })).to.equal('400 point 100: vector "colbert": Vector dimension error: expected dim: 4, got 3');
    expect(await upsert({ colbert: [[1, 2, 3, 4], [1, 2]] })).to.equal('400 point 100: vector.colbert: all vectors must have the same dimension, found vector with dimension 2');
    expect(await upsert({ colbert: [] })).to.match(/^400 point 100: vector\.colbert must be a dense vector \(array of numbers\), a sparse vector \{indices, values\} or a multivector/);
    expect(await upsert({ colbert: [1, 2, 3, 4] })).to.equal('400 point 100: vector "colbert" is a multivector: send it as an array of vectors of 4 numbers ([[...], [...]])');
    expect(await upsert({ dense: [[1, 2, 3]] })).to.equal('400 point 100: vector "dense" is a dense vector, not a multivector: send it as an array of 3 numbers');
    expect(await upsert({ colbert: [[1, 2, 'x', 4]] })).to.equal('400 point 100: vector.colbert[0][2] must be a number, got "x"');
    expect(await refusal(q.query('late', { query: [[1, 2, 3]], using: 'colbert' }))).to.equal('400 query: vector "colbert": Vector dimension error: expected dim: 4, got 3');
    expect(await refusal(q.query('late', { query: [1, 2, 3, 4], using: 'colbert' }))).to.match(/^400 vector "colbert" of collection "late" is a multivector: query it with an array of vectors/);
    expect(await refusal(q.query('late', { query: [[1, 2, 3]], using: 'dense' }))).to.match(/^400 query is a multivector \(array of vectors\), but vector "dense" of collection "late" is not one/);
    expect(await refusal(q.query('late', { query: { recommend: { positive: [1] } }, using: 'bag' }))).to.match(/^400 vector "bag" of collection "late" is a multivector: it ranks only a nearest query/);
    expect(await refusal(q.search('late', { vector: { name: 'bag', vector: [1, 2, 3, 4] } }))).to.match(/^400 vector "bag" of collection "late" is a multivector/);
    expect(await refusal(q.updateCollection('late', { vectors: { bag: { on_disk: true } } }))).to.equal('400 vectors.bag: "bag" is a multivector, whose matrices live in RAM here: on_disk cannot be set on it');
    expect((await q.getCollection('late')).points_count, 'nothing of the refused upserts applied').to.equal(40);
    expect(await refusal(q.createCollection('bad', { vectors: { v: { size: 2, distance: 'Dot', multivector_config: { comparator: 'max_sim' }, on_disk: true } } }))).to.match(/^400 vectors\.v\.on_disk true is not supported on a multivector/);
    expect(await refusal(q.createCollection('bad', { vectors: { v: { size: 2, distance: 'Dot', hnsw_config: { m: 0 } } } }))).to.match(/^400 vectors\.v\.hnsw_config\.m must be an integer from 2 to 128, got 0 \(0, no HNSW index, is taken on a multivector only\)/);
    expect(await refusal(q.createCollection('bad', { vectors: { v: { size: 2, distance: 'Dot', multivector_config: { comparator: 'sum' as 'max_sim' } } } }))).to.match(/^400 .*comparator must be "max_sim"/);
  });

  it('keeps multivectors across a restart (log and snapshot), export and import, and the replay tool rebuilds them', async () => {
    const q = client();
    await q.createCollection('euclid', { vectors: { size: DIM, distance: 'Euclid', multivector_config: { comparator: 'max_sim' } } });
    await q.upsert('euclid', { wait: true, points: docs.map((m, id) => ({ id, vector: m })) });
    await q.updateVectors('late', { wait: true, points: [{ id: 7, vector: { bag: [[9, 0, 0, 0]] } }] });
    const before = await q.query('late', { prefetch: { query: [1, 0.5, -0.5], using: 'dense', limit: 10 }, query: probe, using: 'colbert', limit: 5 });
    await s.restart();
    expect(s.service.engine.lastSnapshotOperationId, 'started from the snapshot written at close').to.be.greaterThan(0);
    const r = client();
    expect(await r.query('late', { prefetch: { query: [1, 0.5, -0.5], using: 'dense', limit: 10 }, query: probe, using: 'colbert', limit: 5 })).to.deep.equal(before);
    expectScores((await r.query('euclid', { query: probe, limit: 5 })).points, expected(probe, all, 'Euclid', 5));
    expect((await r.retrieve('late', { ids: [7], with_vector: ['bag'] }))[0]!.vector).to.deep.equal({ bag: [[9, 0, 0, 0]] });
    expect((await r.getCollection('late')).config.params.vectors).to.deep.include({ bag: { size: DIM, distance: 'Dot', multivector_config: { comparator: 'max_sim' } } });

    const exported = Buffer.from(await (await fetch(`${s.url}/collections/euclid/export`)).arrayBuffer());
    const imported = await fetch(`${s.url}/collections/copy/import?mode=create`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: exported });
    expect(imported.status).to.equal(200);
    expectScores((await r.query('copy', { query: probe, limit: 5 })).points, expected(probe, all, 'Euclid', 5));
    expect((await r.getCollection('copy')).config.params.vectors).to.deep.equal({ size: DIM, distance: 'Euclid', multivector_config: { comparator: 'max_sim' } });

    const dataDir = s.dataDir;
    await s.service.close();
    const verify = runToolProcess('replay', ['verify', '--data-dir', dataDir]);
    expect(verify.code, verify.out + verify.err).to.equal(0);
    expect(verify.out, 'the log replayed from operation 1 gives the snapshot').to.match(/snapshot \d+ matches a replay from operation 1/);
    const out = join(dataDir, 'rebuilt');
    const rebuilt = runToolProcess('replay', ['rebuild', '--data-dir', dataDir, '--until', '999', '--out', out]);
    expect(rebuilt.code, rebuilt.err).to.equal(0);
    const reader = new ImportReader();
    reader.feed(readFileSync(join(out, 'late.vgdb')));
    expect(reader.finish().config.multi).to.deep.equal({ colbert: { size: DIM, distance: 'Cosine', comparator: 'max_sim' }, bag: { size: DIM, distance: 'Dot', comparator: 'max_sim' } });
    await s.restart();
  });
});
