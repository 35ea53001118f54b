import { expect } from 'chai';
import { QdrantClient as GrpcClient, Distance, type PointId, type Value } from '@qdrant/js-client-grpc';
import { QdrantClient as RestClient } from '@qdrant/js-client-rest';
import { startTestServer, type TestServer } from '../helpers/http.js';

const num = (n: number): PointId => ({ pointIdOptions: { case: 'num', value: BigInt(n) } }) as PointId;
const str = (s: string): Value => ({ kind: { case: 'stringValue', value: s } }) as Value;
const idOf = (id: PointId | undefined): number | string | undefined => (id?.pointIdOptions.case === 'num' ? Number(id.pointIdOptions.value) : id?.pointIdOptions.value);
const ids = (...n: number[]) => ({ pointsSelectorOneOf: { case: 'points' as const, value: { ids: n.map(num) } } });
const example = (n: number) => ({ example: { case: 'id' as const, value: num(n) } });

describe('qdrant-grpc: batches, groups, discover, facet, matrix, named and sparse vectors', () => {
  let server: TestServer;
  let client: GrpcClient;

  before(async () => {
    server = await startTestServer();
    client = new GrpcClient({ url: server.service.qdrantGrpcUrl!, checkCompatibility: false });
    await client.api('collections').create({
      collectionName: 'mixed',
      vectorsConfig: { config: { case: 'paramsMap', value: { map: { img: { size: 2n, distance: Distance.Dot } } } } },
      sparseVectorsConfig: { map: { words: {} } },
    });
    // Named dense and sparse vectors, the sparse one in the deprecated data + indices form.
    await client.api('points').upsert({
      collectionName: 'mixed',
      wait: true,
      points: [1, 2, 3, 4].map((n) => ({
        id: num(n),
        vectors: { vectorsOptions: { case: 'vectors', value: { vectors: { img: { data: [n, 1] }, words: { data: [n], indices: { data: [n % 2] } } } } } },
        payload: { kind: str(n % 2 === 0 ? 'even' : 'odd') },
      })),
    });
  });
  after(async () => {
    await server.stop();
    server.remove();
  });

  it('searches a named dense vector and a sparse one, and answers both in the output forms', async () => {
    const points = client.api('points');
    const dense = await points.search({ collectionName: 'mixed', vector: [1, 0], vectorName: 'img', limit: 2n });
    expect(dense.result.map((p) => idOf(p.id))).to.deep.equal([4, 3]);
    const sparse = await points.search({ collectionName: 'mixed', vector: [1], sparseIndices: { data: [1] }, vectorName: 'words', limit: 10n });
    expect(sparse.result.map((p) => idOf(p.id))).to.deep.equal([3, 1]);
    const got = await points.get({ collectionName: 'mixed', ids: [num(3)], withVectors: { selectorOptions: { case: 'enable', value: true } } });
    const named = got.result[0]!.vectors!.vectorsOptions;
    expect(named.case).to.equal('vectors');
    if (named.case !== 'vectors') return;
    const words = named.value.vectors.words!.vector;
    expect(words.case === 'sparse' && [words.value.indices, words.value.values]).to.deep.equal([[1], [3]]);
  });

  it('answers SearchBatch, QueryBatch and RecommendBatch one result list per request', async () => {
    const points = client.api('points');
    const searches = await points.searchBatch({ collectionName: 'mixed', searchPoints: [{ vector: [1, 0], vectorName: 'img', limit: 1n }, { vector: [-1, 0], vectorName: 'img', limit: 1n }] });
    expect(searches.result.map((r) => r.result.map((p) => idOf(p.id)))).to.deep.equal([[4], [1]]);
    const queries = await client.api('points').queryBatch({ collectionName: 'mixed', queryPoints: [{ query: { variant: { case: 'nearest', value: { variant: { case: 'dense', value: { data: [1, 0] } } } } }, using: 'img', limit: 2n }] });
    expect(queries.result.map((r) => r.result.map((p) => idOf(p.id)))).to.deep.equal([[4, 3]]);
    const recommended = await points.recommendBatch({ collectionName: 'mixed', recommendPoints: [{ positive: [num(4)], using: 'img', limit: 1n }] });
    expect(recommended.result[0]!.result.map((p) => idOf(p.id))).to.deep.equal([3]);
  });

  it('groups search results by a payload key, and discovers with a target and a context pair', async () => {
    const points = client.api('points');
    const groups = await points.searchGroups({ collectionName: 'mixed', vector: [1, 0], vectorName: 'img', groupBy: 'kind', groupSize: 1, limit: 2 });
    const byGroup = groups.result!.groups.map((g) => [g.id!.kind.value, g.hits.map((h) => idOf(h.id))]);
    expect(byGroup).to.deep.equal([
      ['even', [4]],
      ['odd', [3]],
    ]);
    const discovered = await points.discover({ collectionName: 'mixed', using: 'img', target: { target: { case: 'single', value: example(2) } }, context: [{ positive: example(4), negative: example(1) }], limit: 1n });
    expect(discovered.result).to.have.length(1);
    expect(idOf(discovered.result[0]!.id)).to.not.equal(2);
  });

  it('counts facet values and answers the distance matrix in pairs', async () => {
    const points = client.api('points');
    const facet = await points.facet({ collectionName: 'mixed', key: 'kind', exact: true });
    expect(facet.hits.map((h) => [h.value!.variant.value, Number(h.count)]).sort()).to.deep.equal([
      ['even', 2],
      ['odd', 2],
    ]);
    const pairs = await points.searchMatrixPairs({ collectionName: 'mixed', using: 'img', sample: 4n, limit: 1n });
    expect(pairs.result!.pairs).to.have.length(4);
    expect(pairs.result!.pairs.every((p) => idOf(p.a) !== idOf(p.b))).to.equal(true);
  });

  it('applies UpdateBatch as one write, and updates and deletes named vectors', async () => {
    const points = client.api('points');
    const batch = await points.updateBatch({
      collectionName: 'mixed',
      wait: true,
      operations: [
        { operation: { case: 'setPayload', value: { payload: { tag: str('t') }, pointsSelector: ids(1) } } },
        { operation: { case: 'deletePoints', value: { points: ids(2) } } },
      ],
    });
    expect(batch.result.map((r) => r.status)).to.deep.equal([2, 2]);
    expect(batch.result[0]!.operationId).to.equal(batch.result[1]!.operationId);
    const after = await points.get({ collectionName: 'mixed', ids: [num(1), num(2)] });
    expect(after.result.map((p) => [idOf(p.id), p.payload.tag?.kind.value])).to.deep.equal([[1, 't']]);

    await points.updateVectors({ collectionName: 'mixed', wait: true, points: [{ id: num(1), vectors: { vectorsOptions: { case: 'vectors', value: { vectors: { img: { vector: { case: 'dense', value: { data: [9, 9] } } } } } } } }] });
    await points.deleteVectors({ collectionName: 'mixed', wait: true, pointsSelector: ids(1), vectors: { names: ['words'] } });
    const changed = await points.get({ collectionName: 'mixed', ids: [num(1)], withVectors: { selectorOptions: { case: 'enable', value: true } } });
    const vectors = changed.result[0]!.vectors!.vectorsOptions;
    expect(vectors.case === 'vectors' && Object.keys(vectors.value.vectors)).to.deep.equal(['img']);
    const img = vectors.case === 'vectors' ? vectors.value.vectors.img!.vector : null;
    expect(img?.case === 'dense' && img.value.data).to.deep.equal([9, 9]);
  });

  it("creates, lists and deletes a collection's snapshots", async () => {
    const snapshots = client.api('snapshots');
    const created = (await snapshots.create({ collectionName: 'mixed' })).snapshotDescription!;
    expect(created.name).to.match(/^mixed-/);
    expect(created.size > 0n).to.equal(true);
    // REST's creation_time is UTC without a zone; the Timestamp is the same instant.
    const [restView] = await new RestClient({ url: server.service.qdrantUrl!, checkCompatibility: false }).listSnapshots('mixed');
    expect(Number(created.creationTime!.seconds)).to.equal(Math.floor(Date.parse(`${restView!.creation_time}Z`) / 1000));
    expect((await snapshots.list({ collectionName: 'mixed' })).snapshotDescriptions.map((d) => d.name)).to.deep.equal([created.name]);
    await snapshots.delete({ collectionName: 'mixed', snapshotName: created.name });
    expect((await snapshots.list({ collectionName: 'mixed' })).snapshotDescriptions).to.deep.equal([]);
  });
});
