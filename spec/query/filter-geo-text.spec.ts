import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import { filterBitsets } from '../../query/filter/filter-bitsets.js';
import { haversineMetres, inGeoArea } from '../../query/filter/geo.js';
import { parseFilter } from '../../query/filter/parse-filter.js';
import { scrollCollection } from '../../query/search/scroll.js';

const config = { size: 1, distance: 'Dot' as const, m: 4, m0: 8, efConstruct: 8, ml: 0.7 };

function collection(payloads: Record<string, unknown>[]): Collection {
  const c = new Collection('g', config, 1);
  c.upsert(payloads.map((payload, i) => ({ id: i + 1, vector: Float32Array.of(1), payload, labels: [] })));
  return c;
}

const ids = (c: Collection, filter: unknown): unknown[] => scrollCollection(c, 0, 100, parseFilter(filter)).slots.map((s) => c.store.idOf(s));

describe('query/filter: geo areas and full-text matches', () => {
  it('measures the haversine distance on a sphere of the mean earth radius (6,371,008.8 m)', () => {
    // A quarter of a great circle: π/2 · R.
    expect(haversineMetres({ lat: 0, lon: 0 }, { lat: 0, lon: 90 })).to.be.closeTo((Math.PI / 2) * 6_371_008.8, 1e-6);
    expect(haversineMetres({ lat: 90, lon: 0 }, { lat: -90, lon: 45 })).to.be.closeTo(Math.PI * 6_371_008.8, 1e-6);
    expect(haversineMetres({ lat: 52.52, lon: 13.405 }, { lat: 51.3397, lon: 12.3731 }) / 1000).to.be.closeTo(149, 1);
  });

  it('holds a polygon\'s interior only: not its edges, corners or holes', () => {
    const square = [{ lat: 0, lon: 0 }, { lat: 0, lon: 10 }, { lat: 10, lon: 10 }, { lat: 10, lon: 0 }, { lat: 0, lon: 0 }];
    const hole = [{ lat: 4, lon: 4 }, { lat: 4, lon: 6 }, { lat: 6, lon: 6 }, { lat: 6, lon: 4 }, { lat: 4, lon: 4 }];
    const area = { shape: 'polygon' as const, exterior: square, interiors: [hole] };
    expect(inGeoArea(area, { lat: 2, lon: 2 })).to.equal(true);
    expect(inGeoArea(area, { lat: 5, lon: 5 }), 'in the hole').to.equal(false);
    expect(inGeoArea(area, { lat: 4, lon: 5 }), 'on the hole\'s edge').to.equal(false);
    expect(inGeoArea(area, { lat: 0, lon: 5 }), 'on the edge').to.equal(false);
    expect(inGeoArea(area, { lat: 10, lon: 10 }), 'a corner').to.equal(false);
    expect(inGeoArea(area, { lat: 11, lon: 5 })).to.equal(false);
  });

  it('reads a nested array\'s field by the index declared at "key[].field"', () => {
    const c = collection([{ reviews: [{ text: 'Loved it' }] }, { reviews: [{ text: 'gloved hands' }] }]);
    const nested = { must: [{ nested: { key: 'reviews', filter: { must: [{ key: 'text', match: { text: 'loved' } }] } } }] };
    expect(ids(c, nested), 'a substring').to.deep.equal([2]);
    c.declareIndex('reviews[].text', { type: 'text', params: {} });
    expect(ids(c, nested), 'the word').to.deep.equal([1]);
  });

  it('makes kept filter matches anew when a text index comes or goes (the same filter then means something else)', async () => {
    const c = collection(Array.from({ length: 40 }, (_, i) => ({ body: i % 2 ? 'odd one' : 'Odd one' })));
    const filter = parseFilter({ must: [{ key: 'body', match: { text: 'odd' } }] });
    const keptCount = async (): Promise<number> => {
      for (let i = 0; i < 1000; i++) {
        filterBitsets(c).bitsFor(filter);
        const n = filterBitsets(c).matchCount(filter);
        if (n !== null) return n;
        await new Promise((r) => setImmediate(r));
      }
      throw new Error('the matches were never kept');
    };
    expect(await keptCount(), 'the substring, case and all').to.equal(20);
    c.declareIndex('body', { type: 'text', params: {} });
    expect(filterBitsets(c).matchCount(filter), 'dropped').to.equal(null);
    expect(await keptCount(), 'the word, any case').to.equal(40);
    c.declareIndex('body', null);
    expect(await keptCount()).to.equal(20);
  });

  it('refuses a geo area with a wrong shape, naming the field', () => {
    const geo = (condition: object) => () => parseFilter({ must: [{ key: 'p', ...condition }] });
    expect(geo({ geo_radius: { center: { lat: 'x', lon: 1 }, radius: 1 } })).to.throw(/geo_radius\.center: lat and lon must be numbers/);
    expect(geo({ geo_radius: { center: { lat: 1, lon: 1 }, radius: '1' } })).to.throw(/geo_radius\.radius must be a number/);
    expect(geo({ geo_polygon: { exterior: { points: [] }, interiors: {} } })).to.throw(/geo_polygon\.interiors must be an array/);
    expect(geo({ geo_bounding_box: { top_left: { lat: 1, lon: 1, alt: 3 }, bottom_right: { lat: 0, lon: 2 } } })).to.throw(/top_left\.alt is not a field/);
    expect(() => parseFilter({ must: [{ key: 'p', match: { phrase: 7 } }] })).to.throw(/match\.phrase must be a string/);
  });
});
