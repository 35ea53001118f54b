import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { useTestServer } from '../helpers/http.js';
import { refusal } from '../helpers/qdrant-refusal.js';

const U = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('clients: named and sparse vectors with @qdrant/js-client-rest 1.18', function () {
  this.timeout(30_000);
  const s = useTestServer({}, 'each');
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });

  beforeEach(async () => {
    const q = client();
    await q.createCollection('docs', {
      vectors: { text: { size: 3, distance: 'Cosine' }, image: { size: 2, distance: 'Euclid', hnsw_config: { m: 8 }, on_disk: true } },
      sparse_vectors: { words: {}, bm25: { modifier: 'idf', index: { on_disk: false } } },
    });
    await q.upsert('docs', {
      wait: true,
      points: [
        { id: 1, vector: { text: [1, 0, 0], image: [0, 0], words: { indices: [1, 7], values: [1, 2] }, bm25: { indices: [10, 11], values: [1, 1] } }, payload: { k: 'a' } },
        { id: 2, vector: { text: [0, 1, 0], words: { indices: [7, 3], values: [1, 5] }, bm25: { indices: [10], values: [1] } }, payload: { k: 'b' } },
        { id: U, vector: { image: [3, 4], words: { indices: [2], values: [1] }, bm25: { indices: [10, 12], values: [1, 1] } }, payload: { k: 'a' } },
        { id: 4, vector: {}, payload: { k: 'none' } },
      ],
    });
  });

  it('creates a collection of named dense and sparse vectors and reports them as Qdrant does', async () => {
    const info = await client().getCollection('docs');
    expect(info.config.params.vectors).to.deep.equal({
      text: { size: 3, distance: 'Cosine' },
      image: { size: 2, distance: 'Euclid', hnsw_config: { m: 8, ef_construct: 200, m0: 16, ml: 1 / Math.log(8) }, on_disk: true },
    });
    expect(info.config.params.sparse_vectors).to.deep.equal({ words: {}, bm25: { index: { on_disk: false }, modifier: 'idf' } });
    expect(info.points_count).to.equal(4);
    // 2 text + 2 image dense vectors once indexed, and 3 + 3 sparse ones
    for (let i = 0; i < 50 && (await client().getCollection('docs')).indexed_vectors_count !== 10; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await client().getCollection('docs')).indexed_vectors_count).to.equal(10);
  });

  it('filters by the vectors a point has (has_vector), dense or sparse, in scroll, count and search', async () => {
    const ids = async (name: string) => (await client().scroll('docs', { filter: { must: [{ has_vector: name }] }, limit: 10 })).points.map((p) => p.id);
    expect(await ids('image')).to.deep.equal([1, U]);
    expect(await ids('text')).to.deep.equal([1, 2]);
    expect(await ids('words')).to.deep.equal([1, 2, U]);
    expect(await ids('colour'), 'no point has a vector the collection lacks').to.deep.equal([]);
    const without = await client().count('docs', { filter: { must_not: [{ has_vector: 'text' }] }, exact: true });
    expect(without.count).to.equal(2);
    const hits = await client().query('docs', { query: [1, 0, 0], using: 'text', filter: { must: [{ has_vector: 'image' }] }, limit: 5 });
    expect(hits.points.map((p) => p.id)).to.deep.equal([1]);
  });

  it('answers the vectors a point has, all of them or those named, sparse ones as {indices, values}', async () => {
    const [one] = await client().retrieve('docs', { ids: [1], with_vector: true });
    expect(one!.vector).to.deep.equal({ text: [1, 0, 0], image: [0, 0], words: { indices: [1, 7], values: [1, 2] }, bm25: { indices: [10, 11], values: [1, 1] } });
    const [two] = await client().retrieve('docs', { ids: [2], with_vector: ['image', 'words'] });
    expect(two!.vector, 'indices come back ascending; a vector the point lacks is left out').to.deep.equal({ words: { indices: [3, 7], values: [5, 1] } });
    const { points } = await client().scroll('docs', { with_vector: ['text'], with_payload: false, limit: 10 });
    expect(points.map((p) => p.vector)).to.deep.equal([{ text: [1, 0, 0] }, { text: [0, 1, 0] }, {}, {}]);
    expect(await refusal(client().retrieve('docs', { ids: [1], with_vector: ['colour'] }))).to.match(/^400 with_vector names "colour", which collection "docs" does not have/);
  });

  it('searches each vector by using: dense with its own distance, sparse by dot product, and the legacy named forms', async () => {
    const q = client();
    const text = await q.query('docs', { query: [0.9, 0.1, 0], using: 'text', limit: 5 });
    expect(text.points.map((p) => p.id)).to.deep.equal([1, 2]);
    const image = await q.query('docs', { query: [3, 3], using: 'image', limit: 5 });
    expect(image.points.map((p) => [p.id, p.score])).to.deep.equal([[U, 1], [1, Math.sqrt(18)]]);
    const words = await q.query('docs', { query: { indices: [7, 3], values: [1, 1] }, using: 'words', limit: 5 });
    expect(words.points.map((p) => [p.id, p.score])).to.deep.equal([[2, 6], [1, 2]]);
    const filtered = await q.query('docs', { query: { indices: [7], values: [1] }, using: 'words', filter: { must: [{ key: 'k', match: { value: 'a' } }] } });
    expect(filtered.points.map((p) => p.id)).to.deep.equal([1]);
    const legacy = await q.search('docs', { vector: { name: 'text', vector: [0, 1, 0] }, limit: 1 });
    expect(legacy.map((p) => p.id)).to.deep.equal([2]);
    const legacySparse = await q.search('docs', { vector: { name: 'words', vector: { indices: [2], values: [2] } }, limit: 3 });
    expect(legacySparse.map((p) => [p.id, p.score])).to.deep.equal([[U, 2]]);
    const byId = await q.query('docs', { query: 2, using: 'words', limit: 3 });
    expect(byId.points.map((p) => p.id), 'the point itself is left out').to.deep.equal([1]);
  });

  it('weighs sparse query dimensions by IDF with the idf modifier: a rare dimension counts for more', async () => {
    const q = client();
    // dimension 10 is in every point's bm25 vector, 11 and 12 in one each
    const hits = await q.query('docs', { query: { indices: [10, 11], values: [1, 1] }, using: 'bm25', limit: 5 });
    const idf = (n: number) => Math.log((4 - n + 0.5) / (n + 0.5) + 1);
    expect(hits.points.map((p) => p.id)).to.deep.equal([1, 2, U]);
    expect(hits.points[0]!.score).to.be.closeTo(idf(3) + idf(1), 1e-6);
    expect(hits.points[1]!.score).to.be.closeTo(idf(3), 1e-6);
  });

  it('fuses dense and sparse prefetches with rrf and dbsf (hybrid search)', async () => {
    const q = client();
    const prefetch = [
      { query: [0, 1, 0], using: 'text', limit: 5 },
      { query: { indices: [7], values: [1] }, using: 'words', limit: 5 },
    ];
    const rrf = await q.query('docs', { prefetch, query: { fusion: 'rrf' }, limit: 5 });
    // text ranks 2 then 1; words ranks 1 (value 2) then 2 (value 1): a tie broken by id
    expect(rrf.points.map((p) => [p.id, p.score])).to.deep.equal([
      [1, 1 / 3 + 1 / 2],
      [2, 1 / 2 + 1 / 3],
    ]);
    const dbsf = await q.query('docs', { prefetch, query: { fusion: 'dbsf' }, limit: 5 });
    expect(dbsf.points.map((p) => p.id)).to.have.members([1, 2]);
    const rescored = await q.query('docs', { prefetch: { query: { indices: [7, 2], values: [1, 1] }, using: 'words', limit: 5 }, query: [0, 1, 0], using: 'text', limit: 5 });
    expect(rescored.points.map((p) => p.id), 'U has no text vector, so the dense rescoring leaves it out').to.deep.equal([2, 1]);
  });

  it('updates some named vectors and deletes others, keeping the rest', async () => {
    const q = client();
    await q.updateVectors('docs', { wait: true, points: [{ id: 2, vector: { image: [1, 1], words: { indices: [9], values: [4] } } }] });
    await q.deleteVectors('docs', { wait: true, points: [1], vector: ['text', 'bm25'] });
    const [one, two] = await q.retrieve('docs', { ids: [1, 2], with_vector: true });
    expect(one!.vector).to.deep.equal({ image: [0, 0], words: { indices: [1, 7], values: [1, 2] } });
    expect(two!.vector).to.deep.equal({ text: [0, 1, 0], image: [1, 1], words: { indices: [9], values: [4] }, bm25: { indices: [10], values: [1] } });
    const text = await q.query('docs', { query: [1, 0, 0], using: 'text', limit: 5 });
    expect(text.points.map((p) => p.id)).to.deep.equal([2]);
    expect(await refusal(q.deleteVectors('docs', { points: [1], vector: ['colour'] }))).to.match(/^400 collection "docs" has no vector named "colour" \(its vectors: dense: "text", "image"; sparse: "words", "bm25"\)/);
  });

  it('recommends and groups by a named vector', async () => {
    const q = client();
    const rec = await q.recommend('docs', { positive: [1], using: 'text', limit: 3 });
    expect(rec.map((p) => p.id)).to.deep.equal([2]);
    const groups = await q.queryGroups('docs', { query: [1, 0, 0], using: 'text', group_by: 'k', limit: 5 });
    expect(groups.groups.map((g) => g.id)).to.deep.equal(['a', 'b']);
  });

  it('refuses unknown names, sizes that do not match and kinds that do not fit, naming them', async () => {
    const q = client();
    expect(await refusal(q.upsert('docs', { wait: true, points: [{ id: 9, vector: { colour: [1] } }] }))).to.equal('400 point 9: collection "docs" has no vector named "colour" (its vectors: dense: "text", "image"; sparse: "words", "bm25")');
    expect(await refusal(q.upsert('docs', { wait: true, points: [{ id: 9, vector: { text: [1, 2] } }] }))).to.equal('400 point 9: vector "text" has 2 dimensions, collection "docs" expects 3');
    expect(await refusal(q.upsert('docs', { wait: true, points: [{ id: 9, vector: [1, 2, 3] }] }))).to.match(/^400 point 9: collection "docs" has no unnamed vector: send the vectors by name/);
    expect(await refusal(q.upsert('docs', { wait: true, points: [{ id: 9, vector: { words: [1, 2] } }] }))).to.match(/^400 point 9: vector "words" is a sparse vector/);
    expect(await refusal(q.upsert('docs', { wait: true, points: [{ id: 9, vector: { words: { indices: [1, 1], values: [1, 2] } } }] }))).to.equal('400 point 9: sparse vector "words" repeats index 1');
    expect(await refusal(q.upsert('docs', { wait: true, points: [{ id: 9, vector: { words: { indices: [1], values: [1, 2] } } }] }))).to.match(/has 1 indices and 2 values/);
    expect(await refusal(q.query('docs', { query: [1, 0, 0], using: 'colour' }))).to.match(/^400 collection "docs" has no vector named "colour"/);
    expect(await refusal(q.query('docs', { query: [1, 0], using: 'text' }))).to.equal('400 query vector has 2 dimensions, vector "text" of collection "docs" expects 3');
    expect(await refusal(q.query('docs', { query: [1, 0, 0] }))).to.match(/^400 collection "docs" has no unnamed vector: name the vector to search with using/);
    expect(await refusal(q.query('docs', { query: { indices: [1], values: [1] }, using: 'text' }))).to.match(/^400 a sparse query needs using to name a sparse vector/);
    expect((await q.getCollection('docs')).points_count, 'nothing of the refused upserts applied').to.equal(4);
  });

  it('keeps named and sparse vectors and their indexes across a restart', async () => {
    await s.restart();
    const q = client();
    const [one] = await q.retrieve('docs', { ids: [1], with_vector: true });
    expect(one!.vector).to.deep.equal({ text: [1, 0, 0], image: [0, 0], words: { indices: [1, 7], values: [1, 2] }, bm25: { indices: [10, 11], values: [1, 1] } });
    const words = await q.query('docs', { query: { indices: [7, 3], values: [1, 1] }, using: 'words', limit: 5 });
    expect(words.points.map((p) => p.id)).to.deep.equal([2, 1]);
    const image = await q.query('docs', { query: [3, 3], using: 'image', limit: 5 });
    expect(image.points.map((p) => p.id)).to.deep.equal([U, 1]);
  });
});
