import { expect } from 'chai';
import { ImportReader } from '../../storage/export/import-reader.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { runToolProcess } from '../tools/tool-process.js';
import { exited, spawnServer } from '../helpers/child-server.js';
import { call, startTestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';

const upsert = async (url: string, id: number): Promise<number> => {
  const res = await call(url, 'PUT', '/collections/c/points', { points: [{ id, vector: [id, 1] }] });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.result.operation_id as number;
};

describe('server: an import keeps operation_ids above those its export file has seen', function () {
  this.timeout(60_000);

  it('recovers into a fresh data dir from an export taken at a high operation_id; the ids keep going up across a restart', async () => {
    // A data dir whose counter is far along, as after a long life: its next write is operation 50,001.
    const source = tempDir();
    const log = LmdbLog.open(source.path);
    log.reserveThrough(50_000);
    await log.close();
    const old = await startTestServer({}, source.path);
    let bytes: Uint8Array;
    try {
      await call(old.url, 'PUT', '/collections/c', { vectors: { size: 2, distance: 'Euclid' } });
      expect(await upsert(old.url, 1)).to.equal(50_002);
      bytes = new Uint8Array(await (await fetch(`${old.url}/collections/c/export`)).arrayBuffer());
    } finally {
      await old.stop();
      source.remove();
    }
    const reader = new ImportReader();
    reader.feed(bytes);
    expect(reader.finish().exportedAt).to.equal(50_002);

    const freshDir = tempDir();
    try {
      const fresh = await spawnServer(freshDir.path);
      const imported = await fetch(`${fresh.url}/collections/c/import?mode=create`, { method: 'POST', body: Buffer.from(bytes), headers: { 'content-type': 'application/octet-stream' } });
      expect(imported.status).to.equal(200);
      const next = await upsert(fresh.url, 2);
      expect(next).to.be.above(50_002);
      // Killed, so no snapshot covers the log: it jumps from nothing to the import's id, and start-up must not take that for lost entries.
      fresh.child.kill('SIGKILL');
      await exited(fresh.child);
      const again = await startTestServer({}, freshDir.path);
      try {
        expect(await upsert(again.url, 3)).to.equal(next + 1);
        expect((await call(again.url, 'POST', '/collections/c/points/count', {})).body.result.count).to.equal(3);
      } finally {
        await again.stop();
      }
      const verify = runToolProcess('replay', ['verify', '--data-dir', freshDir.path]);
      expect(verify.code, verify.out + verify.err).to.equal(0);
    } finally {
      freshDir.remove();
    }
  });
});
