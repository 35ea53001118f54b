import { expect } from 'chai';
import { call, useTestServer } from '../helpers/http.js';

describe('server: points', () => {
  const s = useTestServer({}, 'each');
  const put = (points: unknown[]) => call(s.url, 'PUT', '/collections/p/points?wait=true', { points });

  beforeEach(async () => {
    await call(s.url, 'PUT', '/collections/p', { vectors: { size: 3, distance: 'Euclid' } });
  });

  it('upserts and answers operation_id and completed; ids only go up', async () => {
    const first = await put([{ id: 1, vector: [1, 0, 0], payload: { a: 1 } }]);
    expect(first.status).to.equal(200);
    expect(first.body.result.status).to.equal('completed');
    const second = await put([{ id: 2, vector: [0, 1, 0] }]);
    expect(second.body.result.operation_id).to.be.greaterThan(first.body.result.operation_id);
  });

  it('retrieves points in request order, leaving out missing ids, with payload and labels by default', async () => {
    await put([
      { id: 1, vector: [1, 0, 0], payload: { a: 1, b: 2 }, labels: ['Doc'] },
      { id: 2, vector: [0, 1, 0], payload: { a: 2 } },
    ]);
    const res = await call(s.url, 'POST', '/collections/p/points', { ids: [2, 99, 1] });
    expect(res.body.result).to.deep.equal([
      { id: 2, payload: { a: 2 }, labels: [] },
      { id: 1, payload: { a: 1, b: 2 }, labels: ['Doc'] },
    ]);
    const bare = await call(s.url, 'POST', '/collections/p/points', { ids: [1], with_payload: false, with_vector: true });
    expect(bare.body.result).to.deep.equal([{ id: 1, vector: [1, 0, 0] }]);
    const some = await call(s.url, 'POST', '/collections/p/points', { ids: [1], with_payload: ['b'] });
    expect(some.body.result[0].payload).to.deep.equal({ b: 2 });
  });

  it('replaces a point on upsert of an existing id (payload and vector)', async () => {
    await put([{ id: 1, vector: [1, 0, 0], payload: { v: 1, gone: true } }]);
    await put([{ id: 1, vector: [0, 0, 1], payload: { v: 2 } }]);
    const res = await call(s.url, 'POST', '/collections/p/points', { ids: [1], with_vector: true });
    expect(res.body.result).to.deep.equal([{ id: 1, payload: { v: 2 }, labels: [], vector: [0, 0, 1] }]);
    expect((await call(s.url, 'GET', '/collections/p')).body.result.vectors_count).to.equal(1);
  });

  it('accepts the columnar batch form', async () => {
    const res = await call(s.url, 'PUT', '/collections/p/points', { batch: { ids: [5, 6], vectors: [[1, 1, 1], [2, 2, 2]], payloads: [{ k: 'x' }, null] } });
    expect(res.status).to.equal(200);
    const got = await call(s.url, 'POST', '/collections/p/points', { ids: [5, 6] });
    expect(got.body.result.map((p: { payload: unknown }) => p.payload)).to.deep.equal([{ k: 'x' }, {}]);
  });

  it('deletes by id and by filter', async () => {
    await put([1, 2, 3, 4].map((id) => ({ id, vector: [id, 0, 0], payload: { even: id % 2 === 0 } })));
    const byId = await call(s.url, 'POST', '/collections/p/points/delete', { points: [1, 42] });
    expect(byId.body.result.status).to.equal('completed');
    const byFilter = await call(s.url, 'POST', '/collections/p/points/delete', { filter: { must: [{ key: 'even', match: { value: true } }] } });
    expect(byFilter.status).to.equal(200);
    const left = await call(s.url, 'POST', '/collections/p/points/scroll', {});
    expect(left.body.result.points.map((p: { id: number }) => p.id)).to.deep.equal([3]);
  });

  it('scrolls in ascending id order with offsets, filters and next_page_offset', async () => {
    await put([9, 3, 7, 1, 5].map((id) => ({ id, vector: [id, 0, 0], payload: { big: id > 4 } })));
    const page1 = await call(s.url, 'POST', '/collections/p/points/scroll', { limit: 2 });
    expect(page1.body.result.points.map((p: { id: number }) => p.id)).to.deep.equal([1, 3]);
    expect(page1.body.result.next_page_offset).to.equal(5);
    const page2 = await call(s.url, 'POST', '/collections/p/points/scroll', { limit: 2, offset: 5, with_vector: true });
    expect(page2.body.result.points).to.deep.equal([
      { id: 5, payload: { big: true }, labels: [], vector: [5, 0, 0] },
      { id: 7, payload: { big: true }, labels: [], vector: [7, 0, 0] },
    ]);
    const last = await call(s.url, 'POST', '/collections/p/points/scroll', { limit: 2, offset: 9 });
    expect(last.body.result).to.deep.equal({ points: [{ id: 9, payload: { big: true }, labels: [] }], next_page_offset: null });
    const filtered = await call(s.url, 'POST', '/collections/p/points/scroll', { filter: { must: [{ key: 'big', match: { value: false } }] } });
    expect(filtered.body.result.points.map((p: { id: number }) => p.id)).to.deep.equal([1, 3]);
    const all = await call(s.url, 'POST', '/collections/p/points/scroll');
    expect(all.body.result.points).to.have.length(5);
  });

  it('counts points, with and without a filter', async () => {
    await put([1, 2, 3].map((id) => ({ id, vector: [id, 0, 0], payload: { odd: id % 2 === 1 } })));
    expect((await call(s.url, 'POST', '/collections/p/points/count', {})).body.result).to.deep.equal({ count: 3 });
    const odd = await call(s.url, 'POST', '/collections/p/points/count', { filter: { must: [{ key: 'odd', match: { value: true } }] }, exact: true });
    expect(odd.body.result).to.deep.equal({ count: 2 });
  });

  it('rejects bad upserts whole, naming the point and the problem', async () => {
    await put([{ id: 1, vector: [1, 1, 1], payload: { keep: true } }]);
    const bad: [unknown, RegExp][] = [
      [{ points: [] }, /points must be a non-empty array/],
      [{}, /points must be a non-empty array/],
      [{ points: [{ id: 2, vector: [1, 2] }] }, /point 2: vector has 2 dimensions, collection "p" expects 3/],
      [{ points: [{ id: 2, vector: [1, 2, 'x'] }] }, /point 2: vector\[2\] must be a number/],
      [{ points: [{ id: 2, vector: [1, 2, 1e39] }] }, /point 2: vector element 2 is not a finite 32-bit float/],
      [{ points: [{ id: -3, vector: [1, 2, 3] }] }, /points\[0\]\.id: invalid point id -3/],
      [{ points: [{ id: 1.5, vector: [1, 2, 3] }] }, /invalid point id 1\.5/],
      [{ points: [{ id: '7', vector: [1, 2, 3] }] }, /invalid point id "7"/],
      [{ points: [{ id: 2 ** 53, vector: [1, 2, 3] }] }, /invalid point id 9007199254740992/],
      [{ points: [{ id: 2, vector: [1, 2, 3], payload: [1] }] }, /point 2: payload must be a JSON object/],
      [{ points: [{ id: 2, vector: [1, 2, 3], labels: [''] }] }, /point 2: labels must be an array of non-empty strings/],
      [{ points: [{ id: 2 }] }, /point 2: vector is required: a vector \(array of numbers\), or an object from vector names to vectors/],
      [{ points: [{ id: 2, vector: [1, 2, 3] }, { id: 1, vector: [1] }] }, /point 1: vector has 1 dimensions/],
      [{ points: ['x'] }, /points\[0\] must be an object/],
      [{ batch: { ids: [1], vectors: [] } }, /batch\.ids and batch\.vectors/],
    ];
    for (const [body, message] of bad) {
      const res = await call(s.url, 'PUT', '/collections/p/points', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.message).to.match(message);
    }
    const state = await call(s.url, 'POST', '/collections/p/points/scroll', { with_vector: true });
    expect(state.body.result.points).to.deep.equal([{ id: 1, payload: { keep: true }, labels: [], vector: [1, 1, 1] }]);
  });

  it('rejects bad retrieve, delete, scroll and count bodies with 400', async () => {
    const bad: [string, unknown, RegExp][] = [
      ['/points', { ids: 'x' }, /ids must be an array/],
      ['/points', { ids: [1], with_payload: 'yes' }, /with_payload must be/],
      ['/points', { ids: [1], with_vector: 1 }, /with_vector must be true, false, or a list of vector names/],
      ['/points/delete', {}, /points \(an array of ids\) or filter is required/],
      ['/points/delete', { points: [-1] }, /invalid point id -1/],
      ['/points/delete', { filter: { must: 3 } }, /filter\.must must be an object/],
      ['/points/scroll', { limit: 0 }, /limit must be an integer from 1/],
      ['/points/scroll', { offset: -1 }, /offset: invalid point id -1: ids are integers from 0 to 9007199254740991 or UUIDs/],
      ['/points/scroll', { filter: { must: [{ key: 'a', match: {} }] } }, /needs one of "value"/],
      ['/points/count', { filter: 'x' }, /filter must be an object/],
    ];
    for (const [path, body, message] of bad) {
      const res = await call(s.url, 'POST', `/collections/p${path}`, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).to.equal(400);
      expect(res.body.message).to.match(message);
    }
  });
});
