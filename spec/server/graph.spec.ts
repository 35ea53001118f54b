import { expect } from 'chai';
import { call, useTestServer } from '../helpers/http.js';

describe('server: graph endpoints', () => {
  const s = useTestServer({}, 'each');
  const edge = (body: unknown) => call(s.url, 'POST', '/collections/g/graph/edges', body);
  const neighbours = (id: number | string, query = '') => call(s.url, 'GET', `/collections/g/graph/neighbors/${id}${query}`);
  const traverse = (body: unknown) => call(s.url, 'POST', '/collections/g/graph/traverse', body);

  beforeEach(async () => {
    await call(s.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } });
    await call(s.url, 'PUT', '/collections/g/points', { points: [1, 2, 3, 4, 5, 6].map((id) => ({ id, vector: [id, 0] })) });
  });

  it('adds directed edges, accepts source_id/target_id, defaults the weight, and updates on a repeat', async () => {
    const first = await edge({ from_id: 1, to_id: 2, weight: 0.5, relation: 'KNOWS' });
    expect(first.status).to.equal(200);
    expect(first.body.result).to.deep.equal({ created: true });
    expect((await edge({ source_id: 2, target_id: 3, relation: 'KNOWS' })).body.result).to.deep.equal({ created: true });
    const again = await edge({ from_id: 1, to_id: 2, weight: 0.9, relation: 'KNOWS' });
    expect(again.body.result).to.deep.equal({ created: false });
    expect((await edge({ from_id: 1, to_id: 2, relation: 'LIKES' })).body.result).to.deep.equal({ created: true });

    const out = await neighbours(1);
    expect(out.body.result.neighbors).to.deep.equal([
      { id: 2, weight: 0.9, relation: 'KNOWS' },
      { id: 2, weight: 1, relation: 'LIKES' },
    ]);
    expect((await neighbours(2)).body.result.neighbors).to.deep.equal([{ id: 3, weight: 1, relation: 'KNOWS' }]);
    expect((await neighbours(3)).body.result.neighbors, 'A→B does not make B→A').to.deep.equal([]);
  });

  it('filters neighbours by direction and relation', async () => {
    await edge({ from_id: 1, to_id: 2, relation: 'A' });
    await edge({ from_id: 3, to_id: 2, relation: 'B' });
    await edge({ from_id: 2, to_id: 4, relation: 'A' });
    const ids = (r: { body: { result: { neighbors: { id: number }[] } } }) => r.body.result.neighbors.map((n) => n.id);
    expect(ids(await neighbours(2, '?direction=incoming'))).to.deep.equal([1, 3]);
    expect(ids(await neighbours(2, '?direction=both'))).to.deep.equal([4, 1, 3]);
    expect(ids(await neighbours(2, '?direction=both&relation=A'))).to.deep.equal([4, 1]);
    expect(ids(await neighbours(2, '?relation=B'))).to.deep.equal([]);
    expect(ids(await neighbours(2, '?relation=NONE&direction=incoming'))).to.deep.equal([]);
  });

  it('traverses breadth-first with depth and relation limits', async () => {
    for (const [from, to, relation] of [[1, 2, 'A'], [1, 3, 'A'], [2, 4, 'A'], [3, 4, 'B'], [4, 5, 'B'], [5, 1, 'A']] as const) {
      await edge({ from_id: from, to_id: to, relation, weight: from / 10 });
    }
    const all = await traverse({ start_id: 1, max_depth: 10 });
    expect(all.body.result).to.deep.equal({
      visited: [1, 2, 3, 4, 5],
      edges: [
        { from_id: 1, to_id: 2, relation: 'A', weight: 0.1 },
        { from_id: 1, to_id: 3, relation: 'A', weight: 0.1 },
        { from_id: 2, to_id: 4, relation: 'A', weight: 0.2 },
        { from_id: 4, to_id: 5, relation: 'B', weight: 0.4 },
      ],
      max_depth_reached: 3,
    });
    const shallow = await traverse({ start_id: 1, max_depth: 1 });
    expect(shallow.body.result.visited).to.deep.equal([1, 2, 3]);
    expect(shallow.body.result.max_depth_reached).to.equal(1);
    const onlyA = await traverse({ start_id: 1, max_depth: 100, relations: ['A'] });
    expect(onlyA.body.result.visited).to.deep.equal([1, 2, 3, 4]);
    const none = await traverse({ start_id: 6, max_depth: 5, relations: null });
    expect(none.body.result).to.deep.equal({ visited: [6], edges: [], max_depth_reached: 0 });
    expect((await traverse({ start_id: 1, max_depth: 0 })).body.result).to.deep.equal({ visited: [1], edges: [], max_depth_reached: 0 });
  });

  it('deletes a point with its edges in both directions', async () => {
    await edge({ from_id: 1, to_id: 2, relation: 'A' });
    await edge({ from_id: 2, to_id: 3, relation: 'A' });
    await call(s.url, 'POST', '/collections/g/points/delete', { points: [2] });
    expect((await neighbours(1)).body.result.neighbors).to.deep.equal([]);
    expect((await neighbours(3, '?direction=incoming')).body.result.neighbors).to.deep.equal([]);
    await call(s.url, 'PUT', '/collections/g/points', { points: [{ id: 2, vector: [9, 9] }] });
    expect((await neighbours(2, '?direction=both')).body.result.neighbors, 'a new point 2 has no old edges').to.deep.equal([]);
  });

  it('keeps edges when a point is upserted again, and across a restart', async () => {
    await edge({ from_id: 1, to_id: 2, relation: 'A', weight: 0.25 });
    await call(s.url, 'PUT', '/collections/g/points', { points: [{ id: 1, vector: [7, 7], payload: { new: true } }] });
    expect((await neighbours(1)).body.result.neighbors).to.deep.equal([{ id: 2, weight: 0.25, relation: 'A' }]);
    await s.restart();
    expect((await neighbours(1)).body.result.neighbors).to.deep.equal([{ id: 2, weight: 0.25, relation: 'A' }]);
    expect((await neighbours(2, '?direction=incoming')).body.result.neighbors).to.deep.equal([{ id: 1, weight: 0.25, relation: 'A' }]);
  });

  it('answers bad input with 400 and missing things with 404, changing nothing', async () => {
    const bad: [unknown, number, RegExp][] = [
      [{ to_id: 2, relation: 'A' }, 400, /from_id \(or source_id\) is required/],
      [{ from_id: 1, relation: 'A' }, 400, /to_id \(or target_id\) is required/],
      [{ from_id: 1, source_id: 2, to_id: 2, relation: 'A' }, 400, /from_id and source_id name different points/],
      [{ from_id: -1, to_id: 2, relation: 'A' }, 400, /from_id: invalid point id -1/],
      [{ from_id: 1, to_id: 2 }, 400, /relation is required/],
      [{ from_id: 1, to_id: 2, relation: '' }, 400, /relation must be a non-empty string of at most 255 characters, such as "KNOWS", got ""/],
      [{ from_id: 1, to_id: 2, relation: 'x'.repeat(300) }, 400, /at most 255 characters/],
      [{ from_id: 1, to_id: 2, relation: 'A', weight: 'heavy' }, 400, /weight must be a finite number/],
      [{ from_id: 1, to_id: 99, relation: 'A' }, 404, /point 99 not found in collection "g"/],
      [{ from_id: 98, to_id: 1, relation: 'A' }, 404, /point 98 not found/],
    ];
    for (const [body, status, message] of bad) {
      const res = await edge(body);
      expect(res.status, JSON.stringify(body)).to.equal(status);
      expect(res.body).to.include({ status: 'error', code: status });
      expect(res.body.message).to.match(message);
    }
    expect((await neighbours(1, '?direction=both')).body.result.neighbors).to.deep.equal([]);

    expect((await neighbours(99)).status).to.equal(404);
    expect((await neighbours('abc')).status).to.equal(400);
    expect((await neighbours('1.5')).status).to.equal(400);
    expect((await neighbours(1, '?direction=sideways')).body.message).to.match(/direction must be one of outgoing, incoming, both/);
    expect((await call(s.url, 'GET', '/collections/nope/graph/neighbors/1')).status).to.equal(404);

    const badTraverse: [unknown, number, RegExp][] = [
      [{ max_depth: 2 }, 400, /start_id is required/],
      [{ start_id: 1 }, 400, /max_depth is required/],
      [{ start_id: 1, max_depth: 101 }, 400, /max_depth must be an integer from 0 to 100, got 101/],
      [{ start_id: 1, max_depth: -1 }, 400, /from 0 to 100/],
      [{ start_id: 1, max_depth: 1000 }, 400, /^max_depth must be an integer from 0 to 100, got 1000$/],
      [{ start_id: 1, max_depth: 1.5 }, 400, /max_depth/],
      [{ start_id: 1, max_depth: 2, relations: 'A' }, 400, /relations must be an array/],
      [{ start_id: 42, max_depth: 2 }, 404, /point 42 not found/],
    ];
    for (const [body, status, message] of badTraverse) {
      const res = await traverse(body);
      expect(res.status, JSON.stringify(body)).to.equal(status);
      expect(res.body.message).to.match(message);
    }
    expect((await call(s.url, 'POST', '/collections/nope/graph/traverse', { start_id: 1, max_depth: 1 })).status).to.equal(404);
  });
});
