import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import { parseFilter } from '../../query/filter/parse-filter.js';
import { countMatching } from '../../query/search/matching-slots.js';
import { scrollCollection } from '../../query/search/scroll.js';

const config = { size: 1, distance: 'Dot' as const, m: 4, m0: 8, efConstruct: 8, ml: 0.7 };

function collection(payloads: Record<string, unknown>[]): Collection {
  const c = new Collection('f', config, 1);
  c.upsert(payloads.map((payload, i) => ({ id: i + 1, vector: Float32Array.of(1), payload, labels: [] })));
  return c;
}

const ids = (c: Collection, filter: unknown): unknown[] => scrollCollection(c, 0, 100, parseFilter(filter)).slots.map((s) => c.store.idOf(s));

describe('query/filter: the rest of Qdrant\'s filter language', () => {
  const c = collection([
    { title: 'Fast vector search in TypeScript', tags: ['db', 'ann'], at: '2024-03-01T10:00:00Z', reviews: [{ by: 'ann', stars: 5 }, { by: 'bob', stars: 2 }] },
    { title: 'Graph queries, fast', tags: ['db'], at: '2024-03-02T10:00:00+02:00', reviews: [{ by: 'ann', stars: 2 }, { by: 'bob', stars: 5 }] },
    { title: 'Cooking pasta', tags: [], at: '2023-12-31', reviews: [] },
    { title: 'ВЕКТОРНЫЙ поиск', at: null },
  ]);

  it('matches full text as a substring without a text index, and by words (every word of the query, any case, any script) with one', () => {
    const t = collection([{ title: 'Fast vector search in TypeScript' }, { title: 'Graph queries, fast' }, { title: 'Cooking pasta' }, { title: 'ВЕКТОРНЫЙ поиск' }]);
    const text = (query: string) => ({ must: [{ key: 'title', match: { text: query } }] });
    expect(ids(t, text('fast SEARCH'))).to.deep.equal([]);
    expect(ids(t, text('Fas'))).to.deep.equal([1]);
    expect(ids(t, text('fast'))).to.deep.equal([2]);
    t.declareIndex('title', { type: 'text', params: {} });
    expect(ids(t, text('fast SEARCH'))).to.deep.equal([1]);
    expect(ids(t, text('fast'))).to.deep.equal([1, 2]);
    expect(ids(t, text('Fas'))).to.deep.equal([]);
    expect(ids(t, text('векторный'))).to.deep.equal([4]);
  });

  it('compares date-times as instants, with or without an offset, and a date alone as its midnight UTC', () => {
    expect(ids(c, { must: [{ key: 'at', range: { gte: '2024-03-01T09:00:00Z', lt: '2024-03-02T09:00:00Z' } }] })).to.deep.equal([1, 2]);
    expect(ids(c, { must: [{ key: 'at', range: { gt: '2024-03-02T08:00:00Z' } }] })).to.deep.equal([]);
    expect(ids(c, { must: [{ key: 'at', range: { lte: '2024-01-01' } }] })).to.deep.equal([3]);
    expect(() => parseFilter({ must: [{ key: 'at', range: { gt: 1, lt: '2024-01-01' } }] })).to.throw(/mixes numbers and date-times/);
  });

  it('counts values, and needs min_count of min_should', () => {
    expect(ids(c, { must: [{ key: 'tags', values_count: { gte: 1 } }] })).to.deep.equal([1, 2]);
    expect(ids(c, { must: [{ key: 'tags', values_count: { lt: 1 } }] })).to.deep.equal([3, 4]);
    const some = { conditions: [{ key: 'tags', match: { value: 'db' } }, { key: 'tags', match: { value: 'ann' } }, { key: 'title', match: { text: 'Graph' } }], min_count: 2 };
    expect(ids(c, { min_should: some })).to.deep.equal([1, 2]);
    expect(ids(c, { min_should: { ...some, min_count: 3 } })).to.deep.equal([]);
  });

  it('holds a nested filter for one element of an array, not across elements, where a flat filter mixes them', () => {
    const flat = { must: [{ key: 'reviews[].by', match: { value: 'ann' } }, { key: 'reviews[].stars', range: { gte: 5 } }] };
    expect(ids(c, flat)).to.deep.equal([1, 2]);
    const nested = { must: [{ nested: { key: 'reviews', filter: { must: [{ key: 'by', match: { value: 'ann' } }, { key: 'stars', range: { gte: 5 } }] } } }] };
    expect(ids(c, nested)).to.deep.equal([1]);
    expect(countMatching(c, parseFilter(nested))).to.equal(1);
  });

  it('refuses what it does not know by name', () => {
    expect(() => parseFilter({ must: [{ key: 'a', match: { like: 'x' } }] })).to.throw(/needs one of "value", "any", "except", "text", "text_any" or "phrase"/);
    expect(() => parseFilter({ must: [{ key: 'a', geo_radius: {} }] })).to.throw(/must\[0\]\.geo_radius\.center is required/);
    expect(() => parseFilter({ must: [{ key: 'a', near: {} }] })).to.throw(/needs "match", "range", "values_count", "geo_radius", "geo_bounding_box" or "geo_polygon"/);
    expect(() => parseFilter({ min_should: { conditions: [] } })).to.throw(/min_should must be an object/);
  });
});
