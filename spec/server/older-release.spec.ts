import { expect } from 'chai';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { call, startTestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIXTURES = new URL('../../../spec/fixtures/', import.meta.url).pathname;

/**
 * spec/fixtures/datadir-0.1.0 is a data dir written by release 0.1.0 (log entries and snapshots
 * of event format 2 and snapshot format 2); export-v2.vgdb is that release's export of it.
 */
const EXPECTED_POINTS = [
  { id: 1, payload: { name: 'one', tags: ['a'] }, labels: ['Doc'], vector: [1, 0, 0] },
  { id: 2, payload: { name: 'two' }, labels: [], vector: [0, 1, 0] },
  { id: 3, payload: { name: 'three' }, labels: [], vector: [0, 0, 1] },
  { id: 1001, payload: { x: 1 }, labels: ['Node'], vector: null },
];
const EXPECTED_EDGES = [
  [1, 'LINKS', 0.25, null, 2],
  [2, 'MADE', 1, 2020, 1001],
];
const EDGES_QUERY = 'MATCH (a)-[r]->(b) RETURN id(a), type(r), r.weight, r.since, id(b) ORDER BY id(a)';

describe('server: data of the previous release', () => {
  async function expectOldState(url: string, collection: string): Promise<void> {
    const scroll = await call(url, 'POST', `/collections/${collection}/points/scroll`, { with_vector: true });
    expect(scroll.body.result.points).to.deep.equal(EXPECTED_POINTS);
    const edges = await call(url, 'POST', `/collections/${collection}/graph/query`, { query: EDGES_QUERY });
    expect(edges.body.result.rows).to.deep.equal(EXPECTED_EDGES);
  }

  for (const [how, keepSnapshots] of [['from its snapshot', true], ['replaying its whole log (snapshots removed)', false]] as const) {
    it(`starts on a 0.1.0 data dir ${how}, with every point and edge, and takes UUID ids after it`, async () => {
      const dir = tempDir();
      try {
        cpSync(join(FIXTURES, 'datadir-0.1.0'), dir.path, { recursive: true });
        if (!keepSnapshots) for (const f of ['snapshot-0000000000000004.snap', 'snapshot-0000000000000006.snap']) rmSync(join(dir.path, 'snapshots', f));
        let s = await startTestServer({}, dir.path);
        await expectOldState(s.url, 'old');
        const write = await call(s.url, 'PUT', '/collections/old/points?wait=true', { points: [{ id: '0f8fad5b-d9cb-469f-a165-70867728950e', vector: [1, 1, 0] }] });
        expect(write.body.result.operation_id).to.equal(7, 'operation ids go on from the old log');
        await s.stop();
        s = await startTestServer({}, dir.path);
        const ids = await call(s.url, 'POST', '/collections/old/points/scroll', { with_payload: false });
        expect(ids.body.result.points.map((p: { id: unknown }) => p.id)).to.deep.equal([1, 2, 3, 1001, '0f8fad5b-d9cb-469f-a165-70867728950e']);
        await s.stop();
      } finally {
        dir.remove();
      }
    });
  }

  it('imports a version 2 export file of 0.1.0 exactly', async () => {
    const s = await startTestServer();
    try {
      const res = await fetch(`${s.url}/collections/again/import?mode=create`, { method: 'POST', body: readFileSync(join(FIXTURES, 'export-v2.vgdb')), headers: { 'content-type': 'application/octet-stream' } });
      expect(res.status, await res.clone().text()).to.equal(200);
      await expectOldState(s.url, 'again');
    } finally {
      await s.stop();
      s.remove();
    }
  });
});
