import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { call, useTestServer } from '../helpers/http.js';

const U = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('clients: payload and vector updates with @qdrant/js-client-rest 1.18, each one logged operation', function () {
  this.timeout(30_000);
  const s = useTestServer({}, 'each');
  const client = (url = s.service.qdrantUrl!) => new QdrantClient({ url, checkCompatibility: false });
  const payloads = async () => {
    const { points } = await client().scroll('c', { limit: 10, with_payload: true, with_vector: true });
    return Object.fromEntries(points.map((p) => [String(p.id), { payload: p.payload, vector: p.vector }]));
  };

  beforeEach(async () => {
    const q = client();
    await q.createCollection('c', { vectors: { size: 2, distance: 'Dot' } });
    await q.upsert('c', {
      wait: true,
      points: [
        { id: 1, vector: [1, 0], payload: { a: 1, keep: true, deep: { x: 1, y: 2 } } },
        { id: 2, vector: [0, 1], payload: { a: 2, keep: true } },
        { id: U, vector: [1, 1], payload: { a: 3 } },
      ],
    });
  });

  it('sets payload keys (and at a nested key), overwrites, deletes keys (dotted paths) and clears, by ids and by filter', async () => {
    const q = client();
    await q.setPayload('c', { wait: true, payload: { b: 'x' }, points: [1, U] });
    await q.setPayload('c', { wait: true, payload: { z: 9 }, key: 'deep', filter: { must: [{ key: 'a', match: { value: 1 } }] } });
    await q.overwritePayload('c', { wait: true, payload: { only: true }, points: [2] });
    await q.deletePayload('c', { wait: true, keys: ['keep', 'deep.x'], points: [1] });
    let p = await payloads();
    expect(p['1']!.payload).to.deep.equal({ a: 1, b: 'x', deep: { y: 2, z: 9 } });
    expect(p['2']!.payload).to.deep.equal({ only: true });
    expect(p[U]!.payload).to.deep.equal({ a: 3, b: 'x' });
    await q.clearPayload('c', { wait: true, filter: { must: [{ key: 'b', match: { value: 'x' } }] } });
    p = await payloads();
    expect([p['1']!.payload, p[U]!.payload]).to.deep.equal([{}, {}]);
    expect(p['1']!.vector, 'the vector stays').to.deep.equal([1, 0]);
  });

  it('updates and deletes vectors, keeping payloads and edges, and searches see the new vectors', async () => {
    const q = client();
    await call(s.url, 'POST', '/collections/c/graph/edges', { from_id: 1, to_id: 2, relation: 'R' });
    await q.updateVectors('c', { wait: true, points: [{ id: 1, vector: [0, 5] }] });
    const top = await q.query('c', { query: [0, 1], limit: 1, with_payload: true });
    expect(top.points.map((x) => [x.id, x.payload])).to.deep.equal([[1, { a: 1, keep: true, deep: { x: 1, y: 2 } }]]);
    await q.deleteVectors('c', { wait: true, points: [2], vector: [''] });
    const p = await payloads();
    expect(p['2'], 'Qdrant answers {} for a point without a vector').to.deep.equal({ payload: { a: 2, keep: true }, vector: {} });
    const none = await q.query('c', { query: [0, 1], limit: 5, with_payload: false });
    expect(none.points.map((x) => x.id)).to.not.include(2);
    const edges = await call(s.url, 'GET', '/collections/c/graph/neighbors/1');
    expect(edges.body.result.neighbors).to.deep.equal([{ id: 2, weight: 1, relation: 'R' }]);
  });

  it('applies a batch of updates in order as one operation, and nothing of it when one fails', async () => {
    const q = client();
    const results = await q.batchUpdate('c', {
      wait: true,
      operations: [
        { upsert: { points: [{ id: 9, vector: [1, 2], payload: { n: 9 } }] } },
        { set_payload: { payload: { tag: 'new' }, points: [9] } },
        { delete: { points: [2] } },
        { delete_payload: { keys: ['a'], points: [1] } },
      ],
    });
    expect(results).to.have.length(4);
    expect(new Set(results.map((r) => r.operation_id)).size, 'one logged operation').to.equal(1);
    const p = await payloads();
    expect(p['9']!.payload).to.deep.equal({ n: 9, tag: 'new' });
    expect(p['2']).to.equal(undefined);
    expect(p['1']!.payload).to.deep.equal({ keep: true, deep: { x: 1, y: 2 } });
    let refused: { status: number; data: { status: { error: string } } } | null = null;
    await q
      .batchUpdate('c', { wait: true, operations: [{ set_payload: { payload: { tag: 'lost' }, points: [9] } }, { set_payload: { payload: { tag: 'x' }, points: [404] } }] })
      .catch((err: typeof refused) => (refused = err));
    expect(refused!.status).to.equal(404);
    expect(refused!.data.status.error).to.equal('no point with id 404 found in collection "c"');
    expect((await payloads())['9']!.payload, 'the first update of the failed batch did not apply').to.deep.equal({ n: 9, tag: 'new' });
  });

  it('keeps every update across a restart, and answers GET /points/{id} on both ports', async () => {
    const q = client();
    await q.setPayload('c', { wait: true, payload: { b: 1 }, points: [U] });
    await q.updateVectors('c', { wait: true, points: [{ id: U, vector: [3, 4] }] });
    await s.restart();
    const one = await client().retrieve('c', { ids: [U], with_vector: true });
    expect(one.map((p) => [p.payload, p.vector])).to.deep.equal([[{ a: 3, b: 1 }, [3, 4]]]);
    const spec = await call(s.url, 'GET', `/collections/c/points/${U}`);
    expect(spec.body.result).to.deep.equal({ id: U, payload: { a: 3, b: 1 }, labels: [], vector: [3, 4] });
    const qd = (await (await fetch(`${s.service.qdrantUrl}/collections/c/points/1`)).json()) as { result: { id: number } };
    expect(qd.result.id).to.equal(1);
    const missing = await fetch(`${s.service.qdrantUrl}/collections/c/points/77`);
    expect(missing.status).to.equal(404);
    expect(((await missing.json()) as { status: { error: string } }).status.error).to.equal('no point with id 77 found in collection "c"');
  });

  it('refuses bad updates by name before logging anything', async () => {
    for (const [path, body, message] of [
      ['/points/payload', { payload: { a: 1 } }, /points \(an array of ids\) or filter is required/],
      ['/points/payload', { payload: { a: 1 }, points: [1], filter: {} }, /send points \(an array of ids\) or filter, not both/],
      ['/points/vectors', { points: [{ id: 1, vector: [1, 2, 3] }] }, /point 1: vector has 3 dimensions, collection "c" expects 2/],
      ['/points/vectors/delete', { points: [1], vector: ['text'] }, /vector/],
      ['/points/payload/delete', { points: [1] }, /keys/],
    ] as const) {
      const res = await call(s.url, 'POST', `/collections/c${path}`, body);
      const put = res.status === 405 ? await call(s.url, 'PUT', `/collections/c${path}`, body) : res;
      expect(put.status, path).to.equal(400);
      expect(put.body.message, path).to.match(message);
    }
    expect(s.service.engine.lastAppliedOperationId, 'nothing was logged').to.equal(2);
  });
});
