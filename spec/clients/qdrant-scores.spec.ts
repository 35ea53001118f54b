import { expect } from 'chai';
import { Document } from '@langchain/core/documents';
import { QdrantVectorStore } from '@langchain/qdrant';
import { QdrantClient } from '@qdrant/js-client-rest';
import { call, useTestServer } from '../helpers/http.js';
import { BagOfWordsEmbeddings } from './bag-of-words.js';

// Expected scores are worked out by hand from Qdrant 1.18's formulas (segment's reciprocal_rank_fusion.rs,
// score_fusion.rs, reco_query.rs; collection's local_shard search: Euclid shown as the distance, thresholds
// of vector queries strict, of fusions inclusive).

type Hit = { id: string | number; score: number };
const ids = (hits: Hit[]) => hits.map((h) => h.id);
const scores = (hits: Hit[]) => hits.map((h) => h.score);
const closeTo = (actual: number[], expected: number[]) => {
  expect(actual).to.have.length(expected.length);
  actual.forEach((a, i) => expect(a, `score ${i} of ${JSON.stringify(actual)}`).to.be.closeTo(expected[i]!, 1e-6));
};
/** The status and Qdrant error message of a client call that fails. */
async function failure(f: () => Promise<unknown>): Promise<{ status: number; error: string }> {
  try {
    await f();
  } catch (err) {
    const e = err as { status: number; data?: { status?: { error?: string } } };
    return { status: e.status, error: e.data?.status?.error ?? '' };
  }
  throw new Error('the call did not fail');
}
/** Qdrant's scaled fast sigmoid, 0.5 * (x / (1 + |x|) + 1). */
const sigmoid = (x: number) => 0.5 * (x / (1 + Math.abs(x)) + 1);

describe('clients: scores, score thresholds and fusion as Qdrant 1.18 gives them (@qdrant/js-client-rest)', function () {
  this.timeout(30_000);
  const s = useTestServer({}, 'each');
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });

  describe('Euclid: the distance itself, smallest first, score_threshold an upper bound', () => {
    beforeEach(async () => {
      const q = client();
      await q.createCollection('e', { vectors: { size: 2, distance: 'Euclid' } });
      await q.upsert('e', {
        wait: true,
        points: [
          { id: 1, vector: [0, 0], payload: { g: 'a' } },
          { id: 2, vector: [3, 4], payload: { g: 'b' } },
          { id: 3, vector: [6, 8], payload: { g: 'a' } },
        ],
      });
    });

    it('search, batch search and query show distances 0, 5, 10; a threshold keeps distances below it', async () => {
      const q = client();
      const found = await q.search('e', { vector: [0, 0], with_payload: false });
      expect(ids(found)).to.deep.equal([1, 2, 3]);
      expect(scores(found)).to.deep.equal([0, 5, 10]);
      expect(ids(await q.search('e', { vector: [0, 0], score_threshold: 5.5 }))).to.deep.equal([1, 2]);
      expect(ids(await q.search('e', { vector: [0, 0], score_threshold: 5 })), 'Qdrant keeps distances strictly below the threshold').to.deep.equal([1]);
      const batch = await q.searchBatch('e', { searches: [{ vector: [0, 0], limit: 3 }, { vector: [6, 8], limit: 3, score_threshold: 6 }] });
      expect(batch.map(scores)).to.deep.equal([[0, 5, 10], [0, 5]]);
      const { points } = await q.query('e', { query: [0, 0] });
      expect(scores(points)).to.deep.equal([0, 5, 10]);
      expect(ids((await q.query('e', { query: [0, 0], score_threshold: 5.5 })).points)).to.deep.equal([1, 2]);
      const queried = await q.queryBatch('e', { searches: [{ query: [6, 8] }, { query: 2, score_threshold: 6 }] });
      expect(queried.map((r) => scores(r.points))).to.deep.equal([[0, 5, 10], [5, 5]]);
    });

    it('prefetch and nested prefetch thresholds are distances too', async () => {
      const q = client();
      const once = await q.query('e', { prefetch: { query: [0, 0], score_threshold: 5.5 }, query: [6, 8] });
      expect(ids(once.points)).to.deep.equal([2, 1]);
      expect(scores(once.points)).to.deep.equal([5, 10]);
      const nested = await q.query('e', { prefetch: { prefetch: { query: [0, 0], score_threshold: 7 }, query: [6, 8], score_threshold: 7 }, query: [0, 0] });
      expect(ids(nested.points)).to.deep.equal([2]);
      expect(scores(nested.points)).to.deep.equal([5]);
      // Qdrant refuses prefetch without a query; here its results come as they are, distances still.
      const unranked = await q.query('e', { prefetch: { query: [0, 0], score_threshold: 5.5 } });
      expect(scores(unranked.points)).to.deep.equal([0, 5]);
      const refused = await failure(() => q.query('e', { prefetch: { query: [0, 0] }, score_threshold: 5.5 }));
      expect(refused).to.deep.equal({ status: 400, error: "A query is needed to use the score_threshold. Can't have score_threshold without defining a query." });
    });

    it('groups and the average-vector recommend show distances', async () => {
      const q = client();
      const { groups } = await q.searchPointGroups('e', { vector: [0, 0], group_by: 'g', group_size: 2, limit: 2 });
      expect(groups.map((g) => [g.id, scores(g.hits)])).to.deep.equal([
        ['a', [0, 10]],
        ['b', [5]],
      ]);
      const queried = await q.queryGroups('e', { query: [0, 0], group_by: 'g', group_size: 2, limit: 2, score_threshold: 7 });
      expect(queried.groups.map((g) => [g.id, scores(g.hits)])).to.deep.equal([
        ['a', [0]],
        ['b', [5]],
      ]);
      const recs = await q.recommend('e', { positive: [[1, 1]], limit: 3 });
      expect(ids(recs)).to.deep.equal([1, 2, 3]);
      closeTo(scores(recs), [Math.SQRT2, Math.sqrt(13), Math.sqrt(74)]);
      const below = await q.recommend('e', { positive: [[1, 1]], limit: 3, score_threshold: 4 });
      expect(ids(below)).to.deep.equal([1, 2]);
    });

    it('LangChain similaritySearchVectorWithScore gets the distances', async () => {
      const store = new QdrantVectorStore(new BagOfWordsEmbeddings(), { url: s.service.qdrantUrl!, collectionName: 'e' });
      const found = await store.similaritySearchVectorWithScore([0, 0], 3);
      expect(found.map(([, score]) => score)).to.deep.equal([0, 5, 10]);
      const docs = new QdrantVectorStore(new BagOfWordsEmbeddings(), { url: s.service.qdrantUrl!, collectionName: 'f', collectionConfig: { vectors: { size: 2, distance: 'Euclid' } } });
      await docs.addVectors([[0, 0], [0, 2]], [new Document({ pageContent: 'near' }), new Document({ pageContent: 'far' })]);
      const scored = await docs.similaritySearchVectorWithScore([0, 0.5], 2);
      expect(scored.map(([d, score]) => [d.pageContent, score])).to.deep.equal([
        ['near', 0.5],
        ['far', 1.5],
      ]);
    });

    it('best_score and sum_scores combine minus the squared distances, best_score through the scaled fast sigmoid', async () => {
      const q = client();
      const best = await q.recommend('e', { positive: [[0, 0]], negative: [[6, 8]], strategy: 'best_score', limit: 3 });
      expect(ids(best)).to.deep.equal([1, 2, 3]);
      // 1: best positive -0 beats -100; 2: -25 ties -25, so the negative counts; 3: -100 against -0.
      closeTo(scores(best), [sigmoid(0), -sigmoid(-25), -sigmoid(0)]);
      const viaQuery = await q.query('e', { query: { recommend: { positive: [[0, 0]], negative: [[6, 8]], strategy: 'best_score' } } });
      closeTo(scores(viaQuery.points), [0.5, -1 / 52, -0.5]);
      const sum = await q.recommend('e', { positive: [[0, 0]], negative: [[6, 8]], strategy: 'sum_scores', limit: 3 });
      expect(ids(sum)).to.deep.equal([1, 2, 3]);
      closeTo(scores(sum), [100, 0, -100]);
    });

    it('port 6333 keeps DECISIONS.md: minus the distance, threshold at or above', async () => {
      const found = await call(s.url, 'POST', '/collections/e/points/search', { vector: [0, 0], limit: 3 });
      expect(scores(found.body.result)).to.deep.equal([0, -5, -10]);
      const kept = await call(s.url, 'POST', '/collections/e/points/search', { vector: [0, 0], limit: 3, score_threshold: -5 });
      expect(ids(kept.body.result)).to.deep.equal([1, 2]);
      const queried = await call(s.url, 'POST', '/collections/e/points/query', { query: [0, 0], score_threshold: -5 });
      expect(scores(queried.body.result)).to.deep.equal([0, -5]);
    });
  });

  it('Cosine: score_threshold keeps scores strictly above it (6333: at or above)', async () => {
    const q = client();
    await q.createCollection('c', { vectors: { size: 2, distance: 'Cosine' } });
    await q.upsert('c', { wait: true, points: [{ id: 1, vector: [1, 0] }, { id: 2, vector: [0, 1] }, { id: 3, vector: [1, 1] }] });
    expect(ids(await q.search('c', { vector: [1, 0], score_threshold: 0 }))).to.deep.equal([1, 3]);
    expect(ids(await q.search('c', { vector: [1, 0], score_threshold: 1 }))).to.deep.equal([]);
    expect(ids((await q.query('c', { query: [1, 0], score_threshold: 0 })).points)).to.deep.equal([1, 3]);
    const spec = await call(s.url, 'POST', '/collections/c/points/search', { vector: [1, 0], limit: 3, score_threshold: 0 });
    expect(ids(spec.body.result)).to.deep.equal([1, 3, 2]);
  });

  it('Cosine best_score: the sigmoid of the best positive when it beats every negative, else minus that of the best negative', async () => {
    const q = client();
    await q.createCollection('c', { vectors: { size: 2, distance: 'Cosine' } });
    await q.upsert('c', { wait: true, points: [{ id: 1, vector: [1, 0] }, { id: 2, vector: [0, 1] }, { id: 3, vector: [0.8, 0.6] }, { id: 4, vector: [0.6, 0.8] }] });
    const best = await q.recommend('c', { positive: [[1, 0]], negative: [[0, 1]], strategy: 'best_score', limit: 4 });
    expect(ids(best)).to.deep.equal([1, 3, 4, 2]);
    closeTo(scores(best), [sigmoid(1), sigmoid(0.8), -sigmoid(0.8), -sigmoid(1)]);
    for (const score of scores(best)) expect(Math.abs(score)).to.be.below(1);
    const sum = await q.recommend('c', { positive: [[1, 0]], negative: [[0, 1]], strategy: 'sum_scores', limit: 4 });
    expect(ids(sum)).to.deep.equal([1, 3, 4, 2]);
    closeTo(scores(sum), [1, 0.2, -0.2, -1]);
  });

  describe('fusion', () => {
    const twoLists = {
      prefetch: [
        { query: [1, 0], limit: 4, filter: { must: [{ has_id: [1, 2, 3, 4] }] } },
        { query: [0, 1], limit: 4, filter: { must: [{ has_id: [5, 6, 7, 4] }] } },
      ],
      limit: 7,
      with_payload: false,
    };

    beforeEach(async () => {
      const q = client();
      await q.createCollection('c', { vectors: { size: 2, distance: 'Cosine' } });
      const vectors = [[1, 0], [1, 0.1], [1, 0.2], [1, 1], [0, 1], [0.1, 1], [0.2, 1]];
      await q.upsert('c', { wait: true, points: vectors.map((vector, i) => ({ id: i + 1, vector })) });
    });

    it('rrf: the sum of 1 / (pos + k), pos from 0, k = 2 by default', async () => {
      // Lists 1, 2, 3, 4 and 5, 6, 7, 4; ties come in no order Qdrant promises.
      const { points } = await client().query('c', { ...twoLists, query: { fusion: 'rrf' } });
      closeTo(scores(points), [1 / 2, 1 / 2, 2 / 5, 1 / 3, 1 / 3, 1 / 4, 1 / 4]);
      expect(ids(points.slice(0, 2))).to.have.members([1, 5]);
      expect(ids(points.slice(2, 3))).to.deep.equal([4]);
      expect(ids(points.slice(3, 5))).to.have.members([2, 6]);
      expect(ids(points.slice(5))).to.have.members([3, 7]);
      const k10 = await client().query('c', { ...twoLists, query: { rrf: { k: 10 } } });
      closeTo(scores(k10.points), [1 / 10, 1 / 10, 2 / 13, 1 / 11, 1 / 11, 1 / 12, 1 / 12].sort((a, b) => b - a));
      const spec = await call(s.url, 'POST', '/collections/c/points/query', { ...twoLists, query: { fusion: 'rrf' } });
      closeTo(scores(spec.body.result), [1 / 2, 1 / 2, 2 / 5, 1 / 3, 1 / 3, 1 / 4, 1 / 4]);
    });

    it('rrf weights: 1 / ((pos + 1) / weight + k - 1), one weight per prefetch', async () => {
      const { points } = await client().query('c', { ...twoLists, query: { rrf: { weights: [3, 1] } } });
      // first list: 1 / ((pos + 1) / 3 + 1); second: 1 / (pos + 2)
      expect(ids(points.slice(0, 3))).to.deep.equal([1, 4, 2]);
      expect(ids(points.slice(3, 5))).to.have.members([3, 5]);
      expect(ids(points.slice(5))).to.deep.equal([6, 7]);
      closeTo(scores(points), [3 / 4, 3 / 7 + 1 / 5, 3 / 5, 1 / 2, 1 / 2, 1 / 3, 1 / 4]);
      const wrong = await failure(() => client().query('c', { ...twoLists, query: { rrf: { weights: [1] } } }));
      expect(wrong.status).to.equal(400);
      expect(wrong.error).to.include('query.rrf.weights has 1 weights for 2 prefetches');
    });

    it('a fusion keeps scores at or above score_threshold', async () => {
      const { points } = await client().query('c', { ...twoLists, query: { fusion: 'rrf' }, score_threshold: 0.4 });
      expect(ids(points)).to.have.members([1, 5, 4]);
    });

    it('dbsf: each list mapped by mean ± 3 sample standard deviations (n - 1), not clamped, then summed', async () => {
      const q = client();
      await q.createCollection('d', { vectors: { size: 2, distance: 'Dot' } });
      const outliers = Array.from({ length: 11 }, (_, i) => ({ id: 10 + i, vector: [0, 0] }));
      await q.upsert('d', { wait: true, points: [{ id: 1, vector: [1, 0] }, { id: 2, vector: [2, 0] }, { id: 3, vector: [4, 0] }, { id: 4, vector: [0, 1] }, { id: 5, vector: [0, 3] }, ...outliers] });
      const fused = await q.query('d', {
        prefetch: [
          { query: [1, 0], filter: { must: [{ has_id: [1, 2, 3] }] } },
          { query: [0, 1], filter: { must: [{ has_id: [4, 5] }] } },
        ],
        query: { fusion: 'dbsf' },
      });
      // Scores 4, 2, 1: mean 7/3, sample sd sqrt(7/3). Scores 3, 1: mean 2, sample sd sqrt(2).
      const a = (x: number) => 0.5 + (x - 7 / 3) / (6 * Math.sqrt(7 / 3));
      const b = (x: number) => 0.5 + (x - 2) / (6 * Math.SQRT2);
      expect(ids(fused.points)).to.deep.equal([3, 5, 2, 4, 1]);
      closeTo(scores(fused.points), [a(4), b(3), a(2), b(1), a(1)]);
      const single = await q.query('d', { prefetch: [{ query: [1, 0], filter: { must: [{ has_id: [2] }] } }], query: { fusion: 'dbsf' } });
      expect(scores(single.points)).to.deep.equal([0.5]);
      // Eleven scores of 0 and one of 1: mean 1/12, sample sd sqrt(1/12); the 1 maps past 1.
      const wide = await q.query('d', { prefetch: [{ query: [1, 0], limit: 12, filter: { must: [{ has_id: [1, ...outliers.map((p) => p.id)] }] } }], query: { fusion: 'dbsf' }, limit: 1 });
      closeTo(scores(wide.points), [0.5 + (11 / 12) / (6 * Math.sqrt(1 / 12))]);
    });
  });
});
