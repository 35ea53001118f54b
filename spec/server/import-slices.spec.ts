import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import { Engine } from '../../storage/engine/engine.js';
import { exportCollection } from '../../storage/export/export-writer.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { call, startTestServer, type TestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';

const POINTS = 200_000;
const EDGES = 20_000;

/** The export file of `c`, as a server at operation `opId` whose log head is `logHead` writes it. */
function fileBytes(c: Collection, opId = 0, logHead = ''): Buffer {
  return Buffer.concat([...exportCollection(c, opId, logHead).chunks()]);
}

/** A collection of POINTS small points and EDGES edges, made in this process. */
function bigCollection(): Collection {
  const c = new Collection('big', { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) }, 1);
  c.upsert(Array.from({ length: POINTS }, (_, id) => ({ id, vector: new Float32Array([id % 1000, id / 1000]), payload: { n: id }, labels: [] })));
  for (let id = 0; id < EDGES; id++) c.graph.add(id, id + 1, 'NEXT', 1, {});
  return c;
}

async function exported(url: string, name: string): Promise<Buffer> {
  const res = await fetch(`${url}/collections/${name}/export`);
  expect(res.status).to.equal(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('server: a large import applies in slices', () => {
  const dir = tempDir();
  let s: TestServer | null = null;

  after(async () => {
    await s?.stop();
    dir.remove();
  });

  it('answers /healthz and searches while it applies, shows the collection whole or not at all, and replays to the same state', async () => {
    const big = bigCollection();
    const file = fileBytes(big);
    s = await startTestServer({}, dir.path);
    const { url, service } = s;
    await call(url, 'PUT', '/collections/other', { vectors: { size: 2, distance: 'Euclid' } });
    await call(url, 'PUT', '/collections/other/points', { points: [1, 2, 3].map((id) => ({ id, vector: [id, id] })) });

    let importAnswered = false;
    const importing = fetch(`${url}/collections/big/import?mode=create`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: new Uint8Array(file) }).then(
      async (res) => {
        importAnswered = true;
        return { status: res.status, body: await res.json() };
      },
    );
    const counts = new Set<string>();
    let answeredWhileApplying = 0;
    while (!importAnswered) {
      const sentWhileApplying = service.engine.applyingInSlices;
      const [health, search, count] = await Promise.all([
        call(url, 'GET', '/healthz'),
        call(url, 'POST', '/collections/other/points/query', { query: [1, 1], limit: 1 }),
        call(url, 'POST', '/collections/big/points/count', {}),
      ]);
      expect(health.status).to.equal(200);
      expect(search.body.result[0].id).to.equal(1);
      counts.add(count.status === 404 ? '404' : String(count.body.result.count));
      // Sent after the apply began and answered before it ended, so before the import's response.
      if (sentWhileApplying && service.engine.applyingInSlices && !importAnswered) answeredWhileApplying++;
    }
    const imported = await importing;
    expect(imported.status).to.equal(200);
    expect(imported.body.result).to.include({ points_imported: POINTS, points_skipped: 0 });
    expect(answeredWhileApplying).to.be.greaterThan(0);
    expect([...counts].filter((c) => c !== '404' && c !== String(POINTS))).to.deep.equal([]);
    expect((await call(url, 'POST', '/collections/big/points/count', {})).body.result.count).to.equal(POINTS);

    // Exported again it is the same file, but for the server's operation_id (the import was
    // operation 3) and its log's head hash.
    const served = await exported(url, 'big');
    const head = service.engine.log.headHash!;
    expect(head).to.match(/^[0-9a-f]{64}$/);
    expect(served.equals(fileBytes(big, 3, head))).to.equal(true);
    await s.stop();
    s = null;

    // The log alone, replayed without the snapshot written at shutdown, gives the same collection.
    const replayed = new Engine(LmdbLog.open(dir.path));
    try {
      replayed.replay();
      expect(fileBytes(replayed.collections.get('big')!, 3, head).equals(served)).to.equal(true);
    } finally {
      await replayed.close();
    }
    s = await startTestServer({}, dir.path);
    expect((await exported(s.url, 'big')).equals(served)).to.equal(true);
  });
});
