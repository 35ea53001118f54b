import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { exited, spawnServer, type ChildServer } from '../helpers/child-server.js';
import { useTestServer } from '../helpers/http.js';
import { refusal } from '../helpers/qdrant-refusal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { freePort } from '../../tools/lib/child-processes.js';

const PAYLOAD = {
  g: 1,
  city: 'Berlin',
  nested: { x: 1, y: 2 },
  arr: [{ q: 1, r: 2 }, { q: 3 }],
  reviews: [{ user: 'al', score: 4 }, { user: 'bo', score: 5 }],
};

/** The points of collection c: id → payload. */
async function payloads(q: QdrantClient): Promise<Record<string, unknown>> {
  const { points } = await q.scroll('c', { limit: 100, with_payload: true });
  return Object.fromEntries(points.map((p) => [String(p.id), p.payload]));
}

describe('clients: Qdrant JSON paths and in-order batches with @qdrant/js-client-rest 1.18', function () {
  this.timeout(30_000);
  const s = useTestServer({}, 'each');
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });

  beforeEach(async () => {
    const q = client();
    await q.createCollection('c', { vectors: { size: 2, distance: 'Dot' } });
    await q.upsert('c', {
      wait: true,
      points: [
        { id: 1, vector: [1, 0], payload: PAYLOAD },
        { id: 3, vector: [1, 1], payload: { g: 3, nested: { x: 'k' }, reviews: [{ user: 'al' }] } },
      ],
    });
  });

  describe('batchUpdate applies its operations in order: a step’s filter sees the steps before it', () => {
    it('deletes by filter a point an earlier step upserted, as one operation', async () => {
      const q = client();
      const results = await q.batchUpdate('c', {
        wait: true,
        operations: [{ upsert: { points: [{ id: 2, vector: [0, 1], payload: { g: 2 } }] } }, { delete: { filter: { must: [{ key: 'g', match: { value: 2 } }] } } }],
      });
      expect(new Set(results.map((r) => r.operation_id)).size, 'one logged operation').to.equal(1);
      expect(await q.retrieve('c', { ids: [2] })).to.deep.equal([]);
    });

    it('sets, overwrites, deletes and clears payload and deletes vectors by filters that match what earlier steps wrote', async () => {
      const q = client();
      await q.batchUpdate('c', {
        wait: true,
        operations: [
          { upsert: { points: [{ id: 5, vector: [0, 1], payload: { g: 5 } }] } },
          { set_payload: { payload: { tag: 'new' }, filter: { must: [{ key: 'g', match: { value: 5 } }] } } },
          { delete_vectors: { vector: [''], filter: { must: [{ key: 'tag', match: { value: 'new' } }] } } },
          { set_payload: { payload: { seen: true }, filter: { must_not: [{ has_vector: '' }] } } },
          { overwrite_payload: { payload: { g: 6, keep: 1 }, filter: { must: [{ key: 'seen', match: { value: true } }] } } },
          { delete_payload: { keys: ['keep'], filter: { must: [{ key: 'g', match: { value: 6 } }] } } },
          { set_payload: { payload: { moved: true }, filter: { must: [{ key: 'g', match: { value: 3 } }] } } },
          { clear_payload: { filter: { must: [{ key: 'moved', match: { value: true } }] } } },
        ],
      });
      const [five] = await q.retrieve('c', { ids: [5], with_vector: true });
      expect([five!.payload, five!.vector]).to.deep.equal([{ g: 6 }, null]);
      expect((await payloads(q))['3']).to.deep.equal({});
    });

    it('keeps a batch whose filter is met only by an earlier step’s write across a replay of the log', async () => {
      const dir = tempDir();
      const qdrantPort = await freePort();
      const env = { SERVICE_QDRANT_PORT: String(qdrantPort), SERVICE_BOLT_PORT: 'off' };
      let server: ChildServer | null = await spawnServer(dir.path, env);
      try {
        const q = new QdrantClient({ url: `http://127.0.0.1:${qdrantPort}`, checkCompatibility: false });
        await q.createCollection('c', { vectors: { size: 2, distance: 'Dot' } });
        await q.upsert('c', { wait: true, points: [{ id: 1, vector: [1, 0], payload: PAYLOAD }] });
        await q.batchUpdate('c', {
          wait: true,
          operations: [
            { upsert: { points: [{ id: 2, vector: [0, 1], payload: { g: 2 } }, { id: 4, vector: [1, 1], payload: { g: 4 } }] } },
            { set_payload: { payload: { hit: true }, filter: { must: [{ key: 'g', range: { gte: 2 } }] } } },
            { delete: { filter: { must: [{ key: 'g', match: { value: 2 } }, { key: 'hit', match: { value: true } }] } } },
            { set_payload: { payload: { z: 9 }, key: 'arr[0]', filter: { must: [{ key: 'hit', match: { value: true } }, { key: 'g', match: { value: 4 } }] } } },
            { set_payload: { payload: { z: 9 }, key: 'arr[0]', points: [1] } },
            { delete_payload: { keys: ['arr[].q'], filter: { must: [{ key: 'city', match: { value: 'Berlin' } }] } } },
          ],
        });
        const before = await payloads(q);
        expect(before).to.deep.equal({
          '1': { ...PAYLOAD, arr: [{ r: 2, z: 9 }, {}] },
          // A set into arr[0] where there is no array makes an empty one, as Qdrant does.
          '4': { g: 4, hit: true, arr: [] },
        });
        // Killed: no snapshot at shutdown, so the next start replays the log through the apply code.
        server.child.kill('SIGKILL');
        await exited(server.child);
        server = await spawnServer(dir.path, env);
        expect(await payloads(q)).to.deep.equal(before);
      } finally {
        if (server) {
          server.child.kill('SIGKILL');
          await exited(server.child);
        }
        dir.remove();
      }
    });
  });

  describe('with_payload reads nested paths', () => {
    it('includes a nested key beside a top-level one, an absent nested key as its empty parent, and a[].b from each element', async () => {
      const q = client();
      const get = async (with_payload: unknown) => (await q.retrieve('c', { ids: [1], with_payload: with_payload as string[] }))[0]!.payload;
      expect(await get({ include: ['nested.x', 'city'] })).to.deep.equal({ city: 'Berlin', nested: { x: 1 } });
      expect(await get(['nested.z'])).to.deep.equal({ nested: {} });
      expect(await get(['reviews[].user'])).to.deep.equal({ reviews: [{ user: 'al' }, { user: 'bo' }] });
      expect(await get({ exclude: ['nested.x', 'arr[].q', 'g'] })).to.deep.equal({ city: 'Berlin', nested: { y: 2 }, arr: [{ r: 2 }, {}], reviews: PAYLOAD.reviews });
    });

    it('selects the same way in search, query, scroll and recommend', async () => {
      const q = client();
      const only = { include: ['nested.x'] };
      const want = { nested: { x: 1 } };
      expect((await q.search('c', { vector: [1, 0], limit: 1, with_payload: only }))[0]!.payload).to.deep.equal(want);
      expect((await q.query('c', { query: [1, 0], limit: 1, with_payload: only })).points[0]!.payload).to.deep.equal(want);
      const scrolled = await q.scroll('c', { filter: { must: [{ has_id: [1] }] }, with_payload: only });
      expect(scrolled.points[0]!.payload).to.deep.equal(want);
      const recommended = await q.recommend('c', { positive: [3], limit: 5, with_payload: { exclude: ['nested', 'arr', 'reviews', 'city'] } });
      expect(recommended.find((p) => p.id === 1)!.payload).to.deep.equal({ g: 1 });
    });

    it('refuses a key that is not a JSON path', async () => {
      expect(await refusal(client().retrieve('c', { ids: [1], with_payload: ['a..b'] }))).to.match(/^400 with_payload\[0\] "a\.\.b" is not a JSON path/);
    });
  });

  describe('group_by follows a path', () => {
    it('groups by a nested key, and by each value of a[].b (a point in every group it names)', async () => {
      const q = client();
      const nested = await q.searchPointGroups('c', { vector: [1, 1], group_by: 'nested.x', limit: 5, group_size: 2, with_payload: false });
      expect(nested.groups.map((g) => [g.id, g.hits.map((h) => h.id)])).to.deep.equal([
        ['k', [3]],
        [1, [1]],
      ]);
      const users = await q.queryGroups('c', { query: [1, 1], group_by: 'reviews[].user', limit: 5, group_size: 2, with_payload: false });
      expect(users.groups.map((g) => [g.id, g.hits.map((h) => h.id)])).to.deep.equal([
        ['al', [3, 1]],
        ['bo', [1]],
      ]);
    });
  });

  describe('set and delete payload at a path', () => {
    it('sets into one array element with arr[0] and into every element with arr[], and deletes arr[].q from every element', async () => {
      const q = client();
      await q.setPayload('c', { wait: true, points: [1], key: 'arr[0]', payload: { z: 9 } });
      await q.setPayload('c', { wait: true, points: [1], key: 'arr[]', payload: { w: 1 } });
      await q.deletePayload('c', { wait: true, points: [1], keys: ['arr[].q', 'nested.y'] });
      expect((await payloads(q))['1']).to.deep.equal({ ...PAYLOAD, nested: { x: 1 }, arr: [{ r: 2, z: 9, w: 1 }, { w: 1 }] });
    });

    it('takes overwrite_payload with a key as Qdrant does: the key is not read, the whole payload is replaced', async () => {
      const q = client();
      await q.overwritePayload('c', { wait: true, points: [3], key: 'nested', payload: { only: 1 } });
      expect((await payloads(q))['3']).to.deep.equal({ only: 1 });
    });

    it('refuses a key that is not a JSON path, logging nothing', async () => {
      const q = client();
      const before = s.service.engine.lastAppliedOperationId;
      expect(await refusal(q.setPayload('c', { points: [1], key: 'a[x]', payload: { w: 1 } }))).to.match(/^400 key "a\[x\]" is not a JSON path/);
      expect(await refusal(q.deletePayload('c', { points: [1], keys: ['ok', 'a.'] }))).to.match(/^400 keys\[1\] "a\." is not a JSON path/);
      expect(s.service.engine.lastAppliedOperationId).to.equal(before);
    });
  });

  describe('upsert update_filter (conditional update)', () => {
    it('writes an existing point only when it matches, and inserts new points whatever the filter says', async () => {
      const q = client();
      const filter = { must: [{ key: 'g', match: { value: 1 } }] };
      await q.upsert('c', {
        wait: true,
        update_filter: filter,
        points: [
          { id: 1, vector: [0, 1], payload: { g: 10 } },
          { id: 3, vector: [0, 1], payload: { g: 30 } },
          { id: 7, vector: [0, 1], payload: { g: 70 } },
        ],
      });
      expect(await payloads(q)).to.deep.equal({ '1': { g: 10 }, '3': { g: 3, nested: { x: 'k' }, reviews: [{ user: 'al' }] }, '7': { g: 70 } });
      await q.upsert('c', { wait: true, update_filter: filter, batch: { ids: [1], vectors: [[1, 1]], payloads: [{ g: 11 }] } });
      expect((await payloads(q))['1'], 'g is 10 now: not matched').to.deep.equal({ g: 10 });
    });

    it('updates vectors only of points that match, and still refuses a missing point', async () => {
      const q = client();
      // The client's updateVectors does not send update_filter; a batch's update_vectors step does.
      const onlyIf = { must: [{ key: 'g', match: { value: 3 } }] };
      await q.batchUpdate('c', { wait: true, operations: [{ update_vectors: { update_filter: onlyIf, points: [{ id: 1, vector: [5, 5] }, { id: 3, vector: [7, 7] }] } }] });
      const vectors = await q.retrieve('c', { ids: [1, 3], with_payload: false, with_vector: true });
      expect(vectors.map((p) => [p.id, p.vector])).to.deep.equal([
        [1, [1, 0]],
        [3, [7, 7]],
      ]);
      const put = (points: unknown[]) =>
        fetch(`${s.service.qdrantUrl}/collections/c/points/vectors`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ update_filter: onlyIf, points }) });
      expect((await put([{ id: 1, vector: [6, 6] }])).status).to.equal(200);
      expect((await q.retrieve('c', { ids: [1], with_vector: true }))[0]!.vector, 'not matched: unchanged').to.deep.equal([1, 0]);
      const missing = await put([{ id: 3, vector: [8, 8] }, { id: 404, vector: [1, 1] }]);
      expect([missing.status, ((await missing.json()) as { status: { error: string } }).status.error]).to.deep.equal([404, 'no point with id 404 found in collection "c"']);
    });

    it('reads the filter against the state the earlier steps of a batch leave', async () => {
      const q = client();
      await q.batchUpdate('c', {
        wait: true,
        operations: [
          { set_payload: { payload: { open: true }, points: [3] } },
          { upsert: { update_filter: { must: [{ key: 'open', match: { value: true } }] }, points: [{ id: 1, vector: [0, 1], payload: { no: 1 } }, { id: 3, vector: [0, 1], payload: { yes: 3 } }] } },
        ],
      });
      const p = await payloads(q);
      expect([p['1'], p['3']]).to.deep.equal([PAYLOAD, { yes: 3 }]);
    });
  });

  it('refuses has_id inside a nested condition with a 400, as Qdrant does', async () => {
    const q = client();
    const nested = { nested: { key: 'arr', filter: { must: [{ has_id: [1] }] } } };
    expect(await refusal(q.scroll('c', { filter: { must: [nested] } }))).to.match(/^400 filter\.must\[0\]\.nested\.filter: has_id is not supported inside nested/);
    expect(await refusal(q.count('c', { filter: { should: [{ must: [nested] }] } }))).to.match(/^400 .*has_id is not supported inside nested/);
  });
});
