import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { join, relative } from 'node:path';
import { exited, spawnServer } from '../helpers/child-server.js';
import { call, startTestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Starts the server on `dataDir`, writes a point, restarts it on the same dir and reads the point back. */
async function keepsDataIn(dataDir: string): Promise<void> {
  let s = await startTestServer({}, dataDir);
  try {
    expect((await call(s.url, 'PUT', '/collections/c', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
    expect((await call(s.url, 'PUT', '/collections/c/points?wait=true', { points: [{ id: 7, vector: [1, 2], payload: { kept: true } }] })).status).to.equal(200);
  } finally {
    await s.stop();
  }
  s = await startTestServer({}, dataDir);
  try {
    const got = await call(s.url, 'POST', '/collections/c/points', { ids: [7] });
    expect(got.body.result).to.deep.equal([{ id: 7, payload: { kept: true }, labels: [] }]);
  } finally {
    await s.stop();
  }
}

describe('server data dir: any path works', function () {
  this.timeout(60_000);
  let parent: ReturnType<typeof tempDir>;
  beforeEach(() => (parent = tempDir()));
  afterEach(() => parent.remove());

  for (const [what, name] of [
    ['a dot, as `mktemp -d` makes (tmp.AbC123)', 'tmp.AbC123'],
    ['an extension-like suffix', 'vectors.data'],
    ['spaces', 'my data dir'],
    ['unicode', 'données-数据-🗄'],
  ] as const) {
    it(`keeps data in a dir whose name has ${what}`, async () => {
      await keepsDataIn(join(parent.path, name));
    });
  }

  it('keeps data in a relative path (resolved against the working directory)', async () => {
    const path = relative(process.cwd(), join(parent.path, 'relative.dir'));
    expect(path.startsWith('/')).to.equal(false);
    await keepsDataIn(path);
  });

  it('starts a real server process on an existing mktemp-style dir instead of exiting with "Is a directory"', async () => {
    const dir = mkdtempSync(join(parent.path, 'tmp.'));
    const server = await spawnServer(dir);
    try {
      expect((await call(server.url, 'GET', '/ready')).status).to.equal(200);
      expect((await call(server.url, 'PUT', '/collections/c', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
    } finally {
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
  });
});
