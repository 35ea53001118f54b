import { expect } from 'chai';
import { packVectors } from '../../../query/api/packed-vectors.js';

const f64 = (...values: number[]) => Float64Array.from(values);

describe('query/api: vectors packed where a body is parsed off the request thread', () => {
  it('packs the vectors of points, named vectors and columns, and answers their buffers', () => {
    const body = {
      points: [
        { id: 1, vector: [0.1, 2, -3e38], payload: { nums: [1, 2, 3] } },
        { id: 2, vector: { a: [1, 2], b: [3], s: { indices: [1], values: [0.5] } }, payload: { v: [4, 5] } },
      ],
      batch: { ids: [3, 4], vectors: [[5, 6], [7, 8]], payloads: [{ list: [9] }, null] },
    };
    const made = packVectors(body);
    expect(body.points[0]!.vector).to.deep.equal(f64(0.1, 2, -3e38));
    expect(body.points[1]!.vector).to.deep.equal({ a: f64(1, 2), b: f64(3), s: { indices: [1], values: [0.5] } });
    expect(body.batch.vectors).to.deep.equal([f64(5, 6), f64(7, 8)]);
    // Payloads keep their arrays: they are stored as JSON.
    expect(body.points[0]!.payload.nums).to.be.an('array');
    expect(body.points[1]!.payload.v).to.be.an('array');
    expect(body.batch.payloads[0]!.list).to.be.an('array');
    // All five vectors are views of one buffer, in the order they come, which is what is transferred.
    expect(made).to.have.length(1);
    expect(made[0]).to.be.instanceOf(ArrayBuffer);
    expect(made[0]!.byteLength).to.equal(10 * 8);
    const named = body.points[1]!.vector as unknown as Record<string, Float64Array>;
    const views = [body.points[0]!.vector, named.a, named.b, ...body.batch.vectors] as unknown as Float64Array[];
    expect(views.map((v) => [v.buffer === made[0], v.byteOffset / 8, v.length])).to.deep.equal([[true, 0, 3], [true, 3, 2], [true, 5, 1], [true, 6, 2], [true, 8, 2]]);
  });

  it('packs named columns, batches of updates, batch searches and batch queries', () => {
    const columns = { batch: { ids: [1], vectors: { a: [[1, 2]], b: [[3]] } } };
    packVectors(columns);
    expect(columns.batch.vectors).to.deep.equal({ a: [f64(1, 2)], b: [f64(3)] });
    const operations = {
      operations: [{ upsert: { points: [{ id: 1, vector: [1, 2] }] } }, { update_vectors: { points: [{ id: 1, vector: { a: [3, 4] } }] } }, { delete: { points: [1, 2] } }],
    };
    packVectors(operations);
    expect(operations.operations[0]!.upsert!.points[0]!.vector).to.deep.equal(f64(1, 2));
    expect(operations.operations[1]!.update_vectors!.points[0]!.vector).to.deep.equal({ a: f64(3, 4) });
    expect(operations.operations[2]!.delete!.points).to.deep.equal([1, 2]);
    const searches = { searches: [{ vector: [1, 2], limit: 3 }, { vector: { name: 'a', vector: [3, 4] } }, { query: [5, 6] }, { query: { nearest: [7] } }] };
    packVectors(searches);
    expect(searches.searches.map((s) => s.vector ?? s.query)).to.deep.equal([f64(1, 2), { name: 'a', vector: f64(3, 4) }, f64(5, 6), { nearest: [7] }]);
  });

  it('leaves anything that is not a non-empty array of numbers as sent, and adds no field', () => {
    const body = {
      points: [
        { id: 1, vector: [1, 'x', 3] },
        { id: 2, vector: [] },
        { id: 3, vector: [[1, 2], [3, 4]] },
        { id: 4, vector: [1, null] },
        { id: 5 },
        7,
      ],
      searches: [{ limit: 1 }],
    };
    const before = structuredClone(body);
    expect(packVectors(body)).to.deep.equal([]);
    expect(body).to.deep.equal(before);
    expect(Object.keys(body.searches[0]!)).to.deep.equal(['limit']);
    expect(Object.keys(body.points[4] as object)).to.deep.equal(['id']);
  });

  it('packs nothing outside the places vectors are sent (a Cypher body, a payload update, a scalar)', () => {
    const cypher = { query: 'RETURN $v', params: { v: [1, 2, 3], points: [{ vector: [1] }] } };
    expect(packVectors(cypher)).to.deep.equal([]);
    expect(cypher.params.v).to.be.an('array');
    expect(packVectors({ payload: { vector: [1, 2] }, points: [1, 2] })).to.deep.equal([]);
    expect(packVectors([1, 2, 3])).to.deep.equal([]);
    expect(packVectors('text')).to.deep.equal([]);
    expect(packVectors(null)).to.deep.equal([]);
  });
});
