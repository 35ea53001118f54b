import { expect } from 'chai';
import { QdrantVectorStore } from '@langchain/qdrant';
import { QdrantClient } from '@qdrant/js-client-rest';
import { useTestServer } from '../helpers/http.js';
import { BagOfWordsEmbeddings, docs } from './bag-of-words.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('clients: LangChain QdrantVectorStore (@langchain/qdrant 1.0.3) against the Qdrant port, changing nothing but the URL', function () {
  this.timeout(30_000);
  const s = useTestServer({}, 'each');
  const config = () => ({ url: s.service.qdrantUrl!, collectionName: 'docs' });

  it('fromDocuments with its default UUID ids, then similaritySearch and similaritySearchWithScore with a filter', async () => {
    const store = await QdrantVectorStore.fromDocuments(docs, new BagOfWordsEmbeddings(), config());
    const client = new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });
    const { points } = await client.scroll('docs', { limit: 10, with_payload: true });
    expect(points).to.have.length(5);
    for (const p of points) expect(String(p.id)).to.match(UUID);
    const found = await store.similaritySearch('cats sleep', 2);
    expect(found.map((d) => d.metadata.n)).to.have.members([1, 5]);
    expect(found[0]!.pageContent).to.include('cats');
    const scored = await store.similaritySearchWithScore('compiles code', 3, { must: [{ key: 'metadata.topic', match: { value: 'code' } }] });
    expect(scored.map(([d]) => d.metadata.topic)).to.deep.equal(['code', 'code']);
    expect(scored[0]![1]).to.be.above(scored[1]![1] - 1e-9).and.to.be.at.most(1 + 1e-6);
  });

  it('addDocuments with given ids, maxMarginalRelevanceSearch, delete by ids and by filter, fromExistingCollection', async () => {
    const store = new QdrantVectorStore(new BagOfWordsEmbeddings(), config());
    const ids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000004', '00000000-0000-4000-8000-000000000005'];
    await store.addDocuments(docs, { ids });
    const similar = await store.similaritySearch('cats sleep', 2);
    expect(similar.map((d) => d.metadata.n)).to.have.members([1, 5]);
    // LangChain sends its lambda as Qdrant's mmr.diversity: 0.9 favours points unlike those already chosen.
    const diverse = await store.maxMarginalRelevanceSearch('cats sleep', { k: 2, fetchK: 5, lambda: 0.9 });
    expect(diverse).to.have.length(2);
    expect(diverse[0]!.metadata.n, 'the most relevant comes first').to.be.oneOf([1, 5]);
    expect(diverse[1]!.metadata.n, 'then not its near-duplicate, but one unlike it').to.not.be.oneOf([1, 5]);
    await store.delete({ ids: [ids[1]!] });
    await store.delete({ filter: { must: [{ key: 'metadata.topic', match: { value: 'code' } }] } });
    const again = await QdrantVectorStore.fromExistingCollection(new BagOfWordsEmbeddings(), config());
    const left = await again.similaritySearch('anything at all', 10);
    expect(left.map((d) => d.metadata.n).sort()).to.deep.equal([1, 5]);
  });

  // @langchain/qdrant 1.0.3 has no hybrid (sparse) mode, nor has LlamaIndex's JS Qdrant store:
  // its dense calls must keep working on a collection that also has a sparse vector, and the
  // hybrid search LangChain's Python QdrantVectorStore (retrieval_mode=HYBRID) makes is sent here
  // through the official client as it sends it.
  it('hybrid: the dense store over a collection with a sparse vector, and LangChain (Python) hybrid calls', async () => {
    const client = new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });
    const sparseOf = (text: string) => {
      const counts = new Map<number, number>();
      for (const word of text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)) {
        let h = 0;
        for (const ch of word) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
        counts.set(h % 100_000, (counts.get(h % 100_000) ?? 0) + 1);
      }
      return { indices: [...counts.keys()], values: [...counts.values()] };
    };
    const collectionConfig = { vectors: { size: 16, distance: 'Cosine' as const }, sparse_vectors: { 'langchain-sparse': { index: { on_disk: false }, modifier: 'idf' as const } } };
    const store = new QdrantVectorStore(new BagOfWordsEmbeddings(), { ...config(), collectionConfig });
    const ids = docs.map((_, i) => `00000000-0000-4000-8000-00000000000${i + 1}`);
    await store.addDocuments(docs, { ids });
    await client.updateVectors('docs', { wait: true, points: docs.map((d, i) => ({ id: ids[i]!, vector: { 'langchain-sparse': sparseOf(d.pageContent) } })) });
    expect((await store.similaritySearch('cats sleep', 2)).map((d) => d.metadata.n)).to.have.members([1, 5]);

    // Python LangChain: vector_name "" and sparse_vector_name "langchain-sparse", both in the map form.
    await client.createCollection('hybrid', { vectors: { '': { size: 16, distance: 'Cosine' } }, sparse_vectors: { 'langchain-sparse': { index: { on_disk: false }, modifier: 'idf' } } });
    await client.upsert('hybrid', {
      wait: true,
      points: docs.map((d, i) => ({ id: ids[i]!, vector: { '': BagOfWordsEmbeddings.vector(d.pageContent), 'langchain-sparse': sparseOf(d.pageContent) }, payload: { page_content: d.pageContent, metadata: d.metadata } })),
    });
    const info = await client.getCollection('hybrid');
    expect(info.config.params.vectors).to.deep.equal({ '': { size: 16, distance: 'Cosine' } });
    expect(Object.keys(info.config.params.sparse_vectors ?? {})).to.deep.equal(['langchain-sparse']);
    const query = 'cats sleep';
    const filter = { must: [{ key: 'metadata.topic', match: { value: 'pets' } }] };
    const { points } = await client.query('hybrid', {
      prefetch: [
        { using: '', query: BagOfWordsEmbeddings.vector(query), filter, limit: 4 },
        { using: 'langchain-sparse', query: sparseOf(query), filter, limit: 4 },
      ],
      query: { fusion: 'rrf' },
      limit: 2,
      with_payload: true,
      with_vector: false,
    });
    expect(points.map((p) => (p.payload!.metadata as { n: number }).n)).to.have.members([1, 5]);
    const sparseOnly = await client.query('hybrid', { query: sparseOf('dogs fetch'), using: 'langchain-sparse', limit: 1, with_payload: true });
    expect((sparseOnly.points[0]!.payload!.metadata as { n: number }).n).to.equal(2);
  });
});
