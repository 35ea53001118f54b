import { expect } from 'chai';
import { MAX_PAYLOAD_DEPTH_CEILING } from '../../storage/engine/write-limits.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { craftedImport } from '../../tools/crash-test/crafted-import.js';
import { call, useTestServer, type SuiteServer } from '../helpers/http.js';

const CONFIG: CollectionConfig = { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 32, ml: 0.5 };

/** `{"deep": [[[...]]]}` nested `levels` arrays deep, written as text (JSON.stringify would overflow first). */
const deepPayloadJson = (levels: number): string => `{"deep":${'['.repeat(levels)}${']'.repeat(levels)}}`;

/** An export file written by hand, so it can hold what no collection could export: repeated ids, raw payload JSON. */
const exportFile = (points: { id: number; payloadJson: string }[]): Uint8Array =>
  craftedImport(CONFIG, points.map(({ id, payloadJson }) => ({ id, vector: [id, 1], payloadJson })));

async function upload(s: SuiteServer, name: string, mode: string, bytes: Uint8Array): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.url}/collections/${name}/import?mode=${mode}`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: Buffer.from(bytes) });
  return { status: res.status, body: await res.json() };
}

const createCollection = (s: SuiteServer, name: string) => call(s.url, 'PUT', `/collections/${name}`, { vectors: { size: 2, distance: 'Euclid' } });
const upsert = (s: SuiteServer, name: string, ids: number[], payload: unknown = {}) =>
  call(s.url, 'PUT', `/collections/${name}/points`, { points: ids.map((id) => ({ id, vector: [id, 1], payload })) });
const count = async (s: SuiteServer, name: string): Promise<number> => (await call(s.url, 'GET', `/collections/${name}`)).body.result.vectors_count;

/** The server still takes writes, and comes back after a restart with what it acknowledged. */
async function stillHealthy(s: SuiteServer, name: string): Promise<void> {
  expect((await upsert(s, name, [1000], { after: true })).status).to.equal(200);
  const before = await count(s, name);
  expect((await call(s.url, 'GET', '/readyz')).status).to.equal(200);
  await s.restart();
  expect((await call(s.url, 'GET', '/readyz')).status).to.equal(200);
  expect(await count(s, name)).to.equal(before);
  expect((await upsert(s, name, [1001])).status).to.equal(200);
}

describe('server: poison input is refused before it is logged', function () {
  this.timeout(60_000);

  describe('with the default limits', () => {
    const s = useTestServer({}, 'each');
    beforeEach(async () => {
      expect((await createCollection(s, 'c')).status).to.equal(200);
    });

    it('answers 400 for a payload nested 4,000 arrays deep (one 8 KB request): the body nests past what any request may', async () => {
      const body = `{"points":[{"id":1,"vector":[1,1],"payload":${deepPayloadJson(4000)}}]}`;
      expect(body.length).to.be.within(8000, 8100);
      const last = s.service.engine.log.lastOperationId;
      const r = await call(s.url, 'PUT', '/collections/c/points', body);
      expect(r.status).to.equal(400);
      expect(r.body.message).to.match(/request body is nested more than 256 levels deep/);
      expect(s.service.engine.log.lastOperationId, 'nothing logged').to.equal(last);
      await stillHealthy(s, 'c');
    });

    it('answers 400 naming the limit for a payload nested 100 arrays deep', async () => {
      const body = `{"points":[{"id":1,"vector":[1,1],"payload":${deepPayloadJson(100)}}]}`;
      const last = s.service.engine.log.lastOperationId;
      const r = await call(s.url, 'PUT', '/collections/c/points', body);
      expect(r.status).to.equal(400);
      expect(r.body.message).to.match(/point 1: payload nests .* more than 64 levels deep.*SERVICE_MAX_PAYLOAD_DEPTH/);
      expect(s.service.engine.log.lastOperationId, 'nothing logged').to.equal(last);
      await stillHealthy(s, 'c');
    });

    it('takes a payload exactly 64 levels deep, and indexes, filters and returns it', async () => {
      const nested = (levels: number): Record<string, unknown> => {
        let v: Record<string, unknown> = { k: 'x' };
        for (let i = 1; i < levels; i++) v = { k: v };
        return v;
      };
      expect((await upsert(s, 'c', [2], nested(65))).body.message).to.match(/more than 64 levels deep/);
      expect((await upsert(s, 'c', [1], nested(64))).status).to.equal(200);
      const key = Array.from({ length: 64 }, () => 'k').join('.');
      for (const filter of [{ must: [{ key, match: { value: 'x' } }] }, { must_not: [{ is_empty: { key } }] }]) {
        const hit = await call(s.url, 'POST', '/collections/c/points/scroll', { filter });
        expect(hit.body.result.points.map((p: { id: number }) => p.id)).to.deep.equal([1]);
        expect(hit.body.result.points[0].payload).to.deep.equal(nested(64));
      }
      await stillHealthy(s, 'c');
    });

    it('answers 400 for an import whose file holds a payload nested 4,000 deep, leaving nothing behind', async () => {
      const r = await upload(s, 'imported', 'create', exportFile([{ id: 1, payloadJson: deepPayloadJson(4000) }]));
      expect(r.status).to.equal(400);
      expect(r.body.message).to.match(/point 1: payload nests .*SERVICE_MAX_PAYLOAD_DEPTH/);
      expect((await call(s.url, 'GET', '/collections/imported')).status).to.equal(404);
      await stillHealthy(s, 'c');
    });

    it('reads payload keys as own properties: is_empty on "constructor" holds for a payload without it', async () => {
      await upsert(s, 'c', [1, 2]);
      await upsert(s, 'c', [3], { constructor: 'set' });
      const empty = await call(s.url, 'POST', '/collections/c/points/scroll', { filter: { must: [{ is_empty: { key: 'constructor' } }] } });
      expect(empty.body.result.points.map((p: { id: number }) => p.id)).to.deep.equal([1, 2]);
      const isNull = await call(s.url, 'POST', '/collections/c/points/scroll', { filter: { must: [{ is_null: { key: 'toString' } }] } });
      expect(isNull.body.result.points).to.deep.equal([]);
      const match = await call(s.url, 'POST', '/collections/c/points/scroll', { filter: { must: [{ key: 'constructor', match: { value: 'set' } }] } });
      expect(match.body.result.points.map((p: { id: number }) => p.id)).to.deep.equal([3]);
    });

    it('counts an import whose file repeats an id once: imported + skipped = entries in the file', async () => {
      const file = exportFile([1, 2, 2, 3, 3, 3].map((id) => ({ id, payloadJson: `{"id":${id}}` })));
      const created = await upload(s, 'dups', 'create', file);
      expect(created.status).to.equal(200);
      expect(created.body.result).to.include({ points_imported: 3, points_skipped: 3 });
      expect(await count(s, 'dups')).to.equal(3);
      await upsert(s, 'c', [3, 9]);
      const merged = await upload(s, 'c', 'merge', exportFile([1, 1, 3, 4].map((id) => ({ id, payloadJson: '{}' }))));
      expect(merged.body.result).to.include({ points_imported: 2, points_skipped: 2 });
      expect(await count(s, 'c')).to.equal(4);
    });
  });

  describe('with small limits set by SERVICE_* variables', () => {
    const s = useTestServer({ SERVICE_MAX_POINTS_PER_COLLECTION: '5', SERVICE_MAX_COLLECTIONS: '2', SERVICE_MAX_PAYLOAD_BYTES: '100', SERVICE_MAX_PAYLOAD_DEPTH: '3' }, 'each');

    it('answers 400 naming the limit for points beyond the per-collection limit, counting repeated and present ids once', async () => {
      await createCollection(s, 'c');
      expect((await upsert(s, 'c', [1, 2, 3, 3, 3, 3, 3])).status).to.equal(200);
      expect((await upsert(s, 'c', [1, 2, 3, 4, 5])).status).to.equal(200);
      const r = await upsert(s, 'c', [6]);
      expect(r.status).to.equal(400);
      expect(r.body.message).to.equal('collection "c" would hold 6 points, more than the limit of 5 (SERVICE_MAX_POINTS_PER_COLLECTION)');
      const file = exportFile([1, 2, 3, 4, 5, 6].map((id) => ({ id, payloadJson: '{}' })));
      expect((await upload(s, 'd', 'create', file)).body.message).to.match(/the file holds 6 points, more than the limit of 5/);
      await call(s.url, 'POST', '/collections/c/points/delete', { points: [5] });
      expect((await upsert(s, 'c', [6])).status).to.equal(200);
      expect(await count(s, 'c')).to.equal(5);
      await s.restart();
      expect(await count(s, 'c')).to.equal(5);
    });

    it('answers 400 naming the limit for a collection beyond the database limit, by create or by import', async () => {
      await createCollection(s, 'a');
      await createCollection(s, 'b');
      const r = await createCollection(s, 'c');
      expect(r.status).to.equal(400);
      expect(r.body.message).to.match(/the database holds 2 collections, the limit \(SERVICE_MAX_COLLECTIONS\)/);
      const imported = await upload(s, 'c', 'create', exportFile([{ id: 1, payloadJson: '{}' }]));
      expect(imported.status).to.equal(400);
      expect((await upload(s, 'b', 'replace', exportFile([{ id: 1, payloadJson: '{}' }]))).status, 'replacing one is no new collection').to.equal(200);
      await call(s.url, 'DELETE', '/collections/a');
      expect((await createCollection(s, 'c')).status).to.equal(200);
      await stillHealthy(s, 'c');
    });

    it('answers 400 naming the limit for a payload above the size or depth limit, upserted or imported', async () => {
      await createCollection(s, 'c');
      const big = await upsert(s, 'c', [1], { text: 'é'.repeat(45) });
      expect(big.status).to.equal(400);
      expect(big.body.message).to.equal('point 1: payload is 101 bytes as JSON, more than the limit of 100 bytes (SERVICE_MAX_PAYLOAD_BYTES)');
      expect((await upsert(s, 'c', [1], { text: 'é'.repeat(44) })).status).to.equal(200);
      expect((await upsert(s, 'c', [2], { a: [[1]] })).status).to.equal(200);
      expect((await upsert(s, 'c', [2], { a: [[[1]]] })).body.message).to.match(/more than 3 levels deep/);
      expect((await upload(s, 'd', 'create', exportFile([{ id: 1, payloadJson: `{"t":"${'x'.repeat(100)}"}` }]))).body.message).to.match(/SERVICE_MAX_PAYLOAD_BYTES/);
      await stillHealthy(s, 'c');
    });
  });

  describe('with the payload depth raised to its ceiling', () => {
    const s = useTestServer({ SERVICE_MAX_PAYLOAD_DEPTH: String(MAX_PAYLOAD_DEPTH_CEILING) }, 'each');

    it('takes a payload as deep as the ceiling by HTTP, as it does by import: request bodies leave room for it', async () => {
      expect((await createCollection(s, 'c')).status).to.equal(200);
      const levels = MAX_PAYLOAD_DEPTH_CEILING - 1; // the payload object is level 1
      const r = await call(s.url, 'PUT', '/collections/c/points', `{"points":[{"id":1,"vector":[1,1],"payload":${deepPayloadJson(levels)}}]}`);
      expect(r.status, r.body.message).to.equal(200);
      expect((await upload(s, 'd', 'create', exportFile([{ id: 1, payloadJson: deepPayloadJson(levels) }]))).status).to.equal(200);
    });
  });
});
