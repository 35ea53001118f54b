import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import { DbError } from '../../storage/errors.js';
import { candidateSlots } from '../../query/filter/candidates.js';
import { parseFilter } from '../../query/filter/parse-filter.js';
import { countMatching } from '../../query/search/matching-slots.js';
import { searchCollection } from '../../query/search/vector-search.js';
import { randomVectors } from '../helpers/vectors.js';

const DIM = 8;

function collectionWith(payloads: Record<string, unknown>[]): Collection {
  const c = new Collection('f', { size: DIM, distance: 'Euclid', m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16) }, 1);
  const vectors = randomVectors(payloads.length, DIM, 3);
  c.upsert(payloads.map((payload, id) => ({ id, vector: vectors[id]!, payload, labels: [] })));
  while (c.indexSome(10_000));
  return c;
}

const people = [
  { name: 'ann', city: 'Berlin', age: 31, tags: ['admin', 'dev'], address: { zip: '10115' }, active: true },
  { name: 'bob', city: 'London', age: 45, tags: ['dev'], address: { zip: 'E1' }, active: false },
  { name: 'cat', city: 'Berlin', age: 22, tags: [], address: null, active: true },
  { name: 'dan', city: 'Paris', age: 60, jobs: [{ title: 'cook' }, { title: 'pilot' }] },
  { name: 'eve', city: null, age: 38.5 },
];

function matching(raw: unknown): string[] {
  const c = collectionWith(people);
  const filter = parseFilter(raw);
  const out: string[] = [];
  for (let slot = 0; slot < c.store.slotCount; slot++) {
    const hits = searchCollection(c, { vector: c.store.vectorOf(slot), limit: 10, offset: 0, ef: 50, filter, scoreThreshold: null });
    for (const h of hits) if (!out.includes(people[h.id as number]!.name)) out.push(people[h.id as number]!.name);
  }
  expect(countMatching(c, filter)).to.equal(out.length);
  return out.sort();
}

describe('query/filter', () => {
  it('matches must, must_not and should', () => {
    expect(matching({ must: [{ key: 'city', match: { value: 'Berlin' } }] })).to.deep.equal(['ann', 'cat']);
    expect(matching({ must_not: [{ key: 'city', match: { value: 'Berlin' } }] })).to.deep.equal(['bob', 'dan', 'eve']);
    expect(matching({ should: [{ key: 'city', match: { value: 'Paris' } }, { key: 'age', match: { value: 45 } }] })).to.deep.equal(['bob', 'dan']);
    expect(matching({ must: [{ key: 'active', match: { value: true } }], must_not: [{ key: 'age', range: { lt: 25 } }] })).to.deep.equal(['ann']);
  });

  it('matches any, except, ranges, array elements and nested keys', () => {
    expect(matching({ must: [{ key: 'city', match: { any: ['Paris', 'London'] } }] })).to.deep.equal(['bob', 'dan']);
    expect(matching({ must: [{ key: 'city', match: { except: ['Paris', 'London'] } }] })).to.deep.equal(['ann', 'cat', 'eve']);
    expect(matching({ must: [{ key: 'age', range: { gte: 38.5, lt: 60 } }] })).to.deep.equal(['bob', 'eve']);
    expect(matching({ must: [{ key: 'tags', match: { value: 'dev' } }] })).to.deep.equal(['ann', 'bob']);
    expect(matching({ must: [{ key: 'address.zip', match: { value: 'E1' } }] })).to.deep.equal(['bob']);
    expect(matching({ must: [{ key: 'jobs[].title', match: { value: 'pilot' } }] })).to.deep.equal(['dan']);
    expect(matching({ must: [{ key: 'jobs.title', match: { value: 'cook' } }] })).to.deep.equal(['dan']);
  });

  it('matches has_id, is_empty, is_null and nested filters', () => {
    expect(matching({ must: [{ has_id: [1, 3, 99] }] })).to.deep.equal(['bob', 'dan']);
    expect(matching({ must: [{ is_empty: { key: 'tags' } }] })).to.deep.equal(['cat', 'dan', 'eve']);
    expect(matching({ must: [{ is_null: { key: 'city' } }] })).to.deep.equal(['eve']);
    expect(matching({ must: [{ should: [{ key: 'name', match: { value: 'ann' } }, { key: 'name', match: { value: 'eve' } }] }] })).to.deep.equal(['ann', 'eve']);
  });

  it('rejects malformed filters with a message naming the part', () => {
    const bad: [unknown, RegExp][] = [
      [[], /filter must be an object/],
      [{ must: [{ key: 'a' }] }, /filter\.must\[0\] needs "match", "range", "values_count", "geo_radius", "geo_bounding_box" or "geo_polygon"/],
      [{ must: [{ key: '', match: { value: 1 } }] }, /filter\.must\[0\]\.key must be a non-empty string/],
      [{ must: [{ key: 'a', match: { value: { x: 1 } } }] }, /match\.value must be a string, number or boolean/],
      [{ must: [{ key: 'a', match: {} }] }, /needs one of "value", "any", "except", "text", "text_any" or "phrase"/],
      [{ must: [{ key: 'a', range: { gt: 'x' } }] }, /range\.gt must be a finite number/],
      [{ must: [{ key: 'a', range: { near: 1 } }] }, /range\.near is not a range bound/],
      [{ must: [{ key: 'a', range: {} }] }, /needs at least one of gt/],
      [{ must: [{ has_id: [-1] }] }, /invalid point id -1/],
      [{ filter: [] }, /filter\.filter is not supported/],
      [{ must: ['x'] }, /filter\.must\[0\] must be an object/],
    ];
    for (const [raw, message] of bad) {
      expect(() => parseFilter(raw), JSON.stringify(raw)).to.throw(DbError, message);
    }
  });

  it('keeps recall when matches are rare and when they are common', () => {
    const N = 20_000; // large enough that common matches take the graph walk, not the scan
    const payloads = Array.from({ length: N }, (_, i) => ({ rare: i % 2000 === 0, group: i % 3 }));
    const c = collectionWith(payloads);
    const queries = randomVectors(20, DIM, 77);
    for (const [filter, admit] of [
      [{ must: [{ key: 'rare', match: { value: true } }] }, (i: number) => i % 2000 === 0],
      [{ must: [{ key: 'group', match: { any: [0, 1] } }] }, (i: number) => i % 3 !== 2],
      [{ must_not: [{ key: 'group', range: { gte: 2 } }] }, (i: number) => i % 3 !== 2],
    ] as const) {
      let hits = 0;
      for (const q of queries) {
        const truth = Array.from({ length: N }, (_, id) => id)
          .filter(admit)
          .map((id) => ({ id, d: c.store.vectorOf(c.store.slotOf(id)).reduce((s, x, i) => s + (x - q[i]!) ** 2, 0) }))
          .sort((a, b) => a.d - b.d || a.id - b.id)
          .slice(0, 10)
          .map((r) => r.id);
        const got = searchCollection(c, { vector: q, limit: 10, offset: 0, ef: 100, filter: parseFilter(filter), scoreThreshold: null });
        for (const h of got) {
          expect(admit(h.id as number), `result ${h.id} violates the filter`).to.equal(true);
          if (truth.includes(h.id as number)) hits++;
        }
      }
      expect(hits / (queries.length * 10), JSON.stringify(filter)).to.be.at.least(0.95);
    }
  });
  it('answers a range on a field declared integer or datetime from the payload index, with the same points as a scan', () => {
    const c = new Collection('r', { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) }, 1);
    c.upsert(Array.from({ length: 400 }, (_, id) => ({ id, vector: Float32Array.of(id, 1), payload: { year: 2000 + (id % 20), at: `2024-01-${String(1 + (id % 28)).padStart(2, '0')}T00:00:00Z` }, labels: [] })));
    const years = parseFilter({ must: [{ key: 'year', range: { gte: 2005, lt: 2008 } }] });
    const days = parseFilter({ must: [{ key: 'at', range: { gt: '2024-01-10T00:00:00Z', lte: '2024-01-12T00:00:00Z' } }] });
    const scanned = [countMatching(c, years), countMatching(c, days)];
    expect(candidateSlots(years, c), 'undeclared: no index answers a range').to.equal(null);
    c.declareIndex('year', { type: 'integer', params: {} });
    c.declareIndex('at', { type: 'datetime', params: {} });
    expect(candidateSlots(years, c)?.size).to.equal(60);
    expect(candidateSlots(days, c)?.size).to.be.greaterThan(0);
    expect([countMatching(c, years), countMatching(c, days)]).to.deep.equal(scanned);
    expect(scanned).to.deep.equal([60, 28]);
  });
});
