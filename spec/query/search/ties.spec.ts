import { expect } from 'chai';
import { Collection } from '../../../storage/collection.js';
import { searchCollection } from '../../../query/search/vector-search.js';

describe('query/search: ties', () => {
  it('orders equal scores by id, UUIDs too (integers first, then UUIDs by their bytes), whatever slots they took', () => {
    const ids = ['00000000-0000-4000-8000-000000000031', 7, '00000000-0000-4000-8000-00000000002e', 3];
    for (const order of [ids, [...ids].reverse()]) {
      const c = new Collection('t', { size: 2, distance: 'Euclid', m: 4, m0: 8, efConstruct: 8, ml: 0.7 }, 1);
      c.upsert(order.map((id) => ({ id, vector: Float32Array.of(1, 1), payload: {}, labels: [] })));
      for (const indexed of [false, true]) {
        if (indexed) while (c.indexSome(100));
        const hits = searchCollection(c, { vector: [1, 1], limit: 4, offset: 0, ef: 16, filter: null, scoreThreshold: null });
        expect(hits.map((h) => h.id)).to.deep.equal([3, 7, '00000000-0000-4000-8000-00000000002e', '00000000-0000-4000-8000-000000000031']);
      }
    }
  });
});
