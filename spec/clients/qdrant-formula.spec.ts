import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { call, useTestServer } from '../helpers/http.js';
import { refusal } from '../helpers/qdrant-refusal.js';
import { expectScoresNear as near, idsOf as ids, scoresOf as scores } from '../helpers/scored-points.js';

/**
 * Qdrant's score boosting (`{"formula", "defaults"}` in the query API) through the official
 * client: the prefetches' points rescored by an expression, highest first, ties by the smaller
 * id. Scores worked out by hand from Qdrant 1.18's formula scorer (segment's formula_scorer.rs).
 */
describe('clients: score boosting formulas with @qdrant/js-client-rest 1.18', function () {
  this.timeout(30_000);
  const s = useTestServer();
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });
  // Dot on the x axis: a nearest search for [1, 0] scores each point its x.
  const all = { query: [1, 0], limit: 10 };
  /** One degree of latitude in metres on Qdrant's sphere (radius 6 371 008.8 m). */
  const DEGREE = (6_371_008.8 * Math.PI) / 180;

  before(async () => {
    const q = client();
    await q.createCollection('f', { vectors: { size: 2, distance: 'Dot' } });
    await q.upsert('f', {
      wait: true,
      points: [
        { id: 1, vector: [1, 0], payload: { price: 10, tag: 'a', loc: { lat: 0, lon: 0 }, at: '2024-01-01T00:00:00Z' } },
        { id: 2, vector: [0.75, 0], payload: { price: 5, tag: 'b', loc: { lat: 1, lon: 0 }, at: '2024-01-02T00:00:00Z' } },
        { id: 3, vector: [0.5, 0], payload: { price: [20], tag: 'a', loc: { lat: 2, lon: 0 }, at: '2024-01-03T00:00:00Z' } },
        { id: 4, vector: [0.25, 0], payload: { tag: 'b', prices: [1, 2] } },
      ],
    });
    await q.createCollection('e', { vectors: { size: 2, distance: 'Euclid' } });
    await q.upsert('e', { wait: true, points: [{ id: 1, vector: [0, 0] }, { id: 2, vector: [3, 4] }] });
  });

  it('adds a condition as 1 or 0: $score + 0.5 when tag is "a"', async () => {
    const formula = { sum: ['$score', { mult: [0.5, { key: 'tag', match: { value: 'a' } }] }] };
    const found = await client().query('f', { prefetch: all, query: { formula } });
    expect(ids(found.points)).to.deep.equal([1, 3, 2, 4]);
    near(scores(found.points), [1.5, 1, 0.75, 0.25]);
  });

  it('reads a payload number (an array of one too), a default where there is none, and ties by the smaller id', async () => {
    const found = await client().query('f', { prefetch: all, query: { formula: { mult: ['$score', 'price'] }, defaults: { price: 2 } }, with_payload: ['tag'] });
    // 1·10, 0.75·5, 0.5·20, 0.25·2 (the default)
    expect(ids(found.points)).to.deep.equal([1, 3, 2, 4]);
    near(scores(found.points), [10, 10, 3.75, 0.5]);
    expect(found.points[0]!.payload).to.deep.equal({ tag: 'a' });
  });

  it('a variable with neither a value nor a default, or not a number, is a 400 in Qdrant\'s words', async () => {
    const q = client();
    expect(await refusal(q.query('f', { prefetch: all, query: { formula: { mult: ['$score', 'price'] } } }))).to.equal(
      '400 Expected number value for price in the payload and/or in the formula defaults. Error: No value found in a payload nor defaults',
    );
    expect(await refusal(q.query('f', { prefetch: all, query: { formula: { sum: ['tag', 1] } } }))).to.equal('400 Expected number value for tag in the payload and/or in the formula defaults. Error: Value is not a number');
    expect(await refusal(q.query('f', { prefetch: all, query: { formula: 'prices', defaults: { prices: 0 } } }))).to.match(/^400 Expected number value for prices .* Error: Value is not a number$/);
  });

  it('div: a non-finite result is a 400; by_zero_default answers a division by zero; a zero numerator is 0', async () => {
    const q = client();
    const divide = (extra: object) => ({ div: { left: 3, right: { sum: ['$score', -1] }, ...extra } });
    expect(await refusal(q.query('f', { prefetch: all, query: { formula: divide({}) } }))).to.equal('400 The expression 3/0 = inf produced a non-finite number');
    const found = await q.query('f', { prefetch: all, query: { formula: divide({ by_zero_default: 7 }) } });
    // 3 / (x - 1): 1 → 7 (the default), 0.75 → -12, 0.5 → -6, 0.25 → -4
    expect(ids(found.points)).to.deep.equal([1, 4, 3, 2]);
    near(scores(found.points), [7, -4, -6, -12]);
    const zero = await q.query('f', { prefetch: all, query: { formula: { div: { left: { mult: [0, 'missing'] }, right: 0 } } } });
    near(scores(zero.points), [0, 0, 0, 0]);
    expect(ids(zero.points), 'equal scores tie by the smaller id').to.deep.equal([1, 2, 3, 4]);
    expect(await refusal(q.query('f', { prefetch: all, query: { formula: { ln: { sum: ['$score', -0.5] } } } }))).to.equal('400 The expression ln(0) = -inf produced a non-finite number');
  });

  it('neg, abs, sqrt, pow, exp, log10 and ln', async () => {
    const formula = {
      sum: [{ neg: { abs: -2 } }, { sqrt: 16 }, { pow: { base: '$score', exponent: 2 } }, { exp: 0 }, { log10: 100 }, { ln: 1 }],
    };
    const found = await client().query('f', { prefetch: all, query: { formula } });
    // -2 + 4 + x² + 1 + 2 + 0
    near(scores(found.points), [6, 5 + 0.5625, 5.25, 5.0625]);
  });

  it('exp, gauss and lin decays from a target, with scale and midpoint', async () => {
    const q = client();
    const decay = (kind: string, extra: object = {}) => ({ [kind]: { x: 'price', target: 10, scale: 5, midpoint: 0.5, ...extra } });
    const run = async (formula: object) => (await q.query('f', { prefetch: all, query: { formula, defaults: { price: 0 } } })).points;
    // |price - 10| = 0, 5, 10, 10 for points 1, 2, 3, 4 (4 has no price: the default 0)
    near(scores(await run(decay('exp_decay'))), [1, 0.5, 0.25, 0.25]);
    near(scores(await run(decay('gauss_decay'))), [1, 0.5, 0.0625, 0.0625]);
    near(scores(await run(decay('lin_decay'))), [1, 0.5, 0, 0]);
    // Defaults: target 0, scale 1, midpoint 0.5: exp(ln(0.5)·|x|)
    near(scores(await run({ exp_decay: { x: '$score' } })), [0.5, 0.5 ** 0.75, 0.5 ** 0.5, 0.5 ** 0.25].sort((a, b) => b - a));
    expect(await refusal(q.query('f', { prefetch: all, query: { formula: decay('exp_decay', { midpoint: 1 }) } }))).to.equal('400 Validation failed: Decay midpoint should be in the range (0.0, 1.0), got 1.');
    expect(await refusal(q.query('f', { prefetch: all, query: { formula: decay('lin_decay', { scale: 0 }) } }))).to.equal('400 Validation failed: Decay scale should be non-zero positive, got 0.');
  });

  it('geo_distance in metres (haversine) and datetime / datetime_key in seconds', async () => {
    const q = client();
    const geo = await q.query('f', { prefetch: all, query: { formula: { geo_distance: { origin: { lat: 0, lon: 0 }, to: 'loc' } }, defaults: { loc: { lat: 3, lon: 0 } } } });
    expect(ids(geo.points)).to.deep.equal([4, 3, 2, 1]);
    near(scores(geo.points).map((m) => m / DEGREE), [3, 2, 1, 0]);
    // A geo condition as an expression: within 1.5 degrees of the origin (point 4 has no loc).
    const within = await q.query('f', { prefetch: all, query: { formula: { key: 'loc', geo_radius: { center: { lat: 0, lon: 0 }, radius: 1.5 * DEGREE } } } });
    expect(ids(within.points)).to.deep.equal([1, 2, 3, 4]);
    near(scores(within.points), [1, 1, 0, 0]);
    const time = await q.query('f', {
      prefetch: { ...all, filter: { must: [{ key: 'at', match: { any: ['2024-01-02T00:00:00Z', '2024-01-03T00:00:00Z'] } }] } },
      query: { formula: { sum: [{ datetime_key: 'at' }, { neg: { datetime: '2024-01-01T00:00:00Z' } }] } },
    });
    expect(ids(time.points)).to.deep.equal([3, 2]);
    near(scores(time.points), [2 * 86_400, 86_400]);
  });

  it('$score[i] reads the i-th prefetch; a point it did not find scores its default (else 0)', async () => {
    const q = client();
    const prefetch = [
      { query: [1, 0], limit: 2 },
      { query: [1, 0], filter: { must: [{ key: 'tag', match: { value: 'b' } }] } },
    ];
    // 1: 1 + 0; 2: 0.75 + 2·0.75; 4: -1 (default of $score[0]) + 2·0.25
    const found = await q.query('f', { prefetch, query: { formula: { sum: ['$score[0]', { mult: [2, '$score[1]'] }] }, defaults: { '$score[0]': -1 } } });
    expect(ids(found.points)).to.deep.equal([2, 1, 4]);
    near(scores(found.points), [2.25, 1, -0.5]);
  });

  it('score_threshold keeps scores at or above it; limit and offset page the rescored points', async () => {
    const q = client();
    const formula = { sum: ['$score', { mult: [0.5, { key: 'tag', match: { value: 'a' } }] }] };
    expect(ids((await q.query('f', { prefetch: all, query: { formula }, score_threshold: 1 })).points)).to.deep.equal([1, 3]);
    expect(ids((await q.query('f', { prefetch: all, query: { formula }, limit: 2, offset: 1 })).points)).to.deep.equal([3, 2]);
  });

  it('batch, groups and a prefetch take formulas', async () => {
    const q = client();
    const boost = { formula: { mult: ['$score', 'price'] }, defaults: { price: 2 } };
    const batch = await q.queryBatch('f', { searches: [{ prefetch: all, query: boost, limit: 1 }, { prefetch: all, query: { formula: { neg: '$score' } }, limit: 2 }] });
    expect(batch.map((r) => ids(r.points))).to.deep.equal([[1], [4, 3]]);
    const groups = await q.queryGroups('f', { prefetch: all, query: boost, group_by: 'tag', group_size: 1 });
    expect(groups.groups.map((g) => [g.id, ids(g.hits)])).to.deep.equal([
      ['a', [1]],
      ['b', [2]],
    ]);
    // -x keeps the two smallest, 4 then 3, which the outer fusion ranks as they came.
    const nested = await q.query('f', { prefetch: { prefetch: all, query: { formula: { neg: '$score' } }, limit: 2 }, query: { fusion: 'rrf' } });
    expect(ids(nested.points)).to.deep.equal([4, 3]);
  });

  it('reads a Euclid prefetch as this port shows it: the distance on the Qdrant port, minus it on port 6333', async () => {
    const body = { prefetch: { query: [0, 0] }, query: { formula: { mult: ['$score', 2] } } };
    const found = await client().query('e', body);
    expect(ids(found.points)).to.deep.equal([2, 1]);
    near(scores(found.points), [10, 0]);
    const spec = await call(s.url, 'POST', '/collections/e/points/query', body);
    expect(spec.status).to.equal(200);
    const points = spec.body.result as { id: number; score: number }[];
    expect(ids(points)).to.deep.equal([1, 2]);
    near(scores(points), [0, -10]);
  });

  it('refuses, as Qdrant does, a formula without prefetch, an unknown variable or expression, and a bad date-time', async () => {
    const q = client();
    expect(await refusal(q.query('f', { query: { formula: '$score' } }))).to.equal('400 Validation failed: cannot apply Formula without prefetches');
    expect(await refusal(q.query('f', { prefetch: all, query: { formula: '$price' } }))).to.equal('400 Validation failed: failed to parse variable ID $price: Invalid reserved word: $price');
    expect(await refusal(q.query('f', { prefetch: all, query: { formula: { max: [1, 2] } as never } }))).to.match(/^400 query\.formula\.max is not an expression: send a number/);
    expect(await refusal(q.query('f', { prefetch: all, query: { formula: { datetime: 'yesterday' } } }))).to.match(/^400 Validation failed: failed to parse date-time yesterday/);
    const spec = await call(s.url, 'POST', '/collections/f/points/query', { query: { formula: '$score' } });
    expect(spec.status).to.equal(400);
    expect(spec.body.message).to.equal('Validation failed: cannot apply Formula without prefetches');
  });
});
