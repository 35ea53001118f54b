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
});
