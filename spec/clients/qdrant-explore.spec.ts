import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { call, useTestServer } from '../helpers/http.js';
import { idsOf as ids, scoresOf as scores } from '../helpers/scored-points.js';

/**
 * Qdrant's explore API through the official client: discovery and context search (their own
 * endpoints and the universal query's forms), recommend grouped by a payload key, and the
 * distance matrix. Small 2-d data on Euclid, where a raw similarity is minus the squared distance.
 */
describe('clients: discover, context search, recommend groups and the distance matrix with @qdrant/js-client-rest 1.18', function () {
  this.timeout(30_000);
  const s = useTestServer({}, 'each');
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });
  // Nearer [3, 0] than [0, 3]: the side of the line x = y where x is larger.
  const pair = { positive: [3, 0], negative: [0, 3] };
  const half = (x: number) => 0.5 * (x / (1 + Math.abs(x)) + 1);

  beforeEach(async () => {
    const q = client();
    await q.createCollection('e', { vectors: { size: 2, distance: 'Euclid' } });
    await q.upsert('e', {
      wait: true,
      points: [
        { id: 1, vector: [0, 0], payload: { g: 'a' } },
        { id: 2, vector: [1, 0], payload: { g: 'a' } },
        { id: 3, vector: [2, 0], payload: { g: 'b' } },
        { id: 4, vector: [0, 1], payload: { g: 'b' } },
        { id: 5, vector: [3, 0], payload: { g: 'c' } },
        { id: 6, vector: [0, 3], payload: { g: 'c' } },
      ],
    });
  });

  // Rank per pair (+1 positive side, -1 negative, 0 on the line) plus the target's similarity squashed into (0, 1).
  const discovered = [
    [3, 1 + half(0)],
    [2, 1 + half(-1)],
    [5, 1 + half(-1)],
    [1, 0 + half(-4)],
    [4, -1 + half(-5)],
    [6, -1 + half(-13)],
  ] as const;

  it('discoverPoints: by context rank, then by similarity to the target; ids used as examples are left out', async () => {
    const q = client();
    const found = await q.discoverPoints('e', { target: [2, 0], context: [pair], limit: 10 });
    expect(ids(found)).to.deep.equal(discovered.map(([id]) => id));
    scores(found).forEach((score, i) => expect(score).to.be.closeTo(discovered[i]![1], 1e-6));
    const byIds = await q.discoverPoints('e', { target: 3, context: [{ positive: 5, negative: 6 }], limit: 2 });
    expect(ids(byIds)).to.deep.equal([2, 1]);
    // The client's discoverPoints leaves out its filter; its batch sends each search whole.
    const batch = await q.discoverBatchPoints('e', {
      searches: [
        { target: [2, 0], context: [pair], limit: 1 },
        { target: 3, limit: 1 },
        { target: [2, 0], context: [pair], filter: { must: [{ key: 'g', match: { value: 'b' } }] }, limit: 10 },
      ],
    });
    expect(batch.map(ids)).to.deep.equal([[3], [2], [3, 4]]);
    expect(batch[1]![0]!.score).to.be.closeTo(half(-1), 1e-6);
  });

  // The loss per pair: fast sigmoid of min(sim(positive) - sim(negative) - margin, 0); here sim(positive) - sim(negative) = 6x - 6y.
  const contextOrder = [2, 3, 5, 1, 4, 6];
  const contextScores = [0, 0, 0, 0, -6 / 7, -18 / 19];

  it('context search: discoverPoints without a target scores by the loss, 0 on the positive side', async () => {
    const found = await client().discoverPoints('e', { context: [pair], limit: 10 });
    expect(ids(found)).to.deep.equal(contextOrder);
    scores(found).forEach((score, i) => expect(score).to.be.closeTo(contextScores[i]!, 1e-6));
    expect(found[3]!.score, 'a point on the line is just short of the positive side').to.be.below(0);
  });

  it('the universal query answers {discover: {target, context}} and {context} as the discover endpoint does', async () => {
    const q = client();
    const discover = await q.query('e', { query: { discover: { target: [2, 0], context: pair } } });
    expect(ids(discover.points)).to.deep.equal(discovered.map(([id]) => id));
    const context = await q.query('e', { query: { context: [pair] }, limit: 3 });
    expect(ids(context.points)).to.deep.equal([2, 3, 5]);
    const prefetched = await q.query('e', { prefetch: { query: [0, 0], limit: 3 }, query: { context: pair } });
    expect(ids(prefetched.points), 'ranks only the prefetched points 1, 2, 4').to.deep.equal([2, 1, 4]);
  });

  it('recommendPointGroups: recommend, then groups by a payload key, Euclid shown as the distance', async () => {
    const { groups } = await client().recommendPointGroups('e', { positive: [2], group_by: 'g', group_size: 2, limit: 2 });
    expect(groups.map((g) => [g.id, ids(g.hits)])).to.deep.equal([
      ['a', [1]],
      ['b', [3, 4]],
    ]);
    expect(scores(groups[1]!.hits)[1]).to.be.closeTo(Math.SQRT2, 1e-6);
  });

  it('searchMatrixOffsets and searchMatrixPairs: the first points by id, each with its nearest among them', async () => {
    const q = client();
    const offsets = await q.searchMatrixOffsets('e', { sample: 4, limit: 2 });
    expect(offsets.ids).to.deep.equal([1, 2, 3, 4]);
    expect(offsets.offsets_row).to.deep.equal([0, 0, 1, 1, 2, 2, 3, 3]);
    expect(offsets.offsets_col).to.deep.equal([1, 3, 0, 2, 1, 0, 0, 1]);
    offsets.scores.forEach((score, i) => expect(score).to.be.closeTo([1, 1, 1, 1, 1, 2, 1, Math.SQRT2][i]!, 1e-6));
    const { pairs } = await q.searchMatrixPairs('e', { filter: { must: [{ key: 'g', match: { any: ['b', 'c'] } }] }, limit: 1 });
    expect(pairs).to.deep.equal([
      { a: 3, b: 5, score: 1 },
      { a: 4, b: 6, score: 2 },
      { a: 5, b: 3, score: 1 },
      { a: 6, b: 4, score: 2 },
    ]);
  });

  it('refuses bad input with a 400 naming the field, and takes no endpoint word for a point id', async () => {
    const q = client();
    const refused = async (run: () => Promise<unknown>, message: RegExp) => {
      const error = await run().then(
        () => null,
        (e: { status?: number; data?: { status?: { error?: string } } }) => e,
      );
      expect(error?.status).to.equal(400);
      expect(error?.data?.status?.error).to.match(message);
    };
    await refused(() => q.discoverPoints('e', { target: [2, 0], context: [{ positive: [3, 0] } as never], limit: 3 }), /context\[0\]\.negative is required/);
    await refused(() => q.query('e', { query: { context: [{ negative: 6 } as never] } }), /query\.context\[0\]\.positive is required/);
    await refused(() => q.discoverPoints('e', { limit: 3 }), /a target or at least one context pair/);
    await refused(() => q.recommendPointGroups('e', { positive: [2], group_by: 'g', group_size: 2, limit: 2, lookup_from: { collection: 'e', shard_key: 'x' } as never }), /lookup_from\.shard_key/);
    // The client leaves with_lookup out of its recommendPointGroups; sent by hand on the spec port.
    const withLookup = await call(s.url, 'POST', '/collections/e/points/recommend/groups', { positive: [2], group_by: 'g', group_size: 2, limit: 2, with_lookup: 'other' });
    expect(withLookup.status).to.equal(400);
    expect(withLookup.body.message).to.match(/with_lookup/);
    for (const [path, body] of [['/collections/e/points/recommend/groups', { positive: [2] }], ['/collections/e/points/search/groups', { vector: [1, 0] }]] as const) {
      const paged = await call(s.url, 'POST', path, { ...body, group_by: 'g', limit: 2, offset: 2 });
      expect(paged.status, path).to.equal(400);
      expect(paged.body.message, path).to.match(/^offset must be absent \(a grouped search takes no offset/);
    }
    await refused(() => q.searchMatrixPairs('e', { sample: 100_000 }), /sample/);
    const get = await fetch(`${s.service.qdrantUrl!}/collections/e/points/discover`);
    expect(get.status).to.equal(404);
    expect(((await get.json()) as { status: { error: string } }).status.error).to.equal('no endpoint GET /collections/e/points/discover');
    const spec = await call(s.url, 'GET', '/collections/e/points/search');
    expect(spec.status, 'nor on the spec port').to.equal(404);
  });
});
