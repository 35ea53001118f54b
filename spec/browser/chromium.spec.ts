import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { VectorGraphDB } from '../../browser/database.js';
import { buildBrowser } from '../../tools/build-browser/main.js';
import { startTestServer } from '../helpers/http.js';
import { ImportReader } from '../../storage/export/import-reader.js';
import { isExecutable, requirePrerequisite } from '../helpers/prerequisite.js';
import { exerciseLibrary } from './scenario.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.html': 'text/html', '.map': 'application/json', '.ts': 'text/plain' };
const TEST_PAGE = `<!doctype html><meta charset="utf-8"><script type="module">
import { VectorGraphDB } from './vectorgraphdb.js';
window.VectorGraphDB = VectorGraphDB;
window.libraryReady = true;
</script>`;

/** Serves dist/browser (the bundle and the demo) and the test page on a loopback port. */
function serve(dir: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0]!));
    if (path === '/test.html') {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(TEST_PAGE);
      return;
    }
    const file = join(dir, path === '/' ? 'index.html' : path);
    if (!file.startsWith(dir) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

describe('browser library, in headless Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let site: { server: Server; url: string };
  let page: Page;

  requirePrerequisite({ what: `Chromium at ${CHROMIUM}`, present: () => isExecutable(CHROMIUM), install: 'apt-get install -y chromium (as root; .ci/run does it), or set CHROMIUM_PATH' });
  before(async () => {
    const dir = await buildBrowser();
    site = await serve(dir);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'],
    });
  });
  beforeEach(async () => {
    page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${site.url}/test.html`);
    await page.waitForFunction(() => (window as unknown as { libraryReady?: boolean }).libraryReady === true, undefined, { timeout: 10_000 }).catch(() => {
      throw new Error(`the bundle did not load: ${errors.join('; ')}`);
    });
  });
  afterEach(async () => page.close());
  after(async () => {
    await browser?.close();
    site?.server.close();
  });

  it('answers every operation exactly as the same engine does in Node, errors included', async () => {
    const inBrowser = await page.evaluate(exerciseLibrary);
    const inNode = await exerciseLibrary(VectorGraphDB);
    expect(Object.keys(inBrowser)).to.deep.equal(Object.keys(inNode));
    for (const key of Object.keys(inNode)) expect(inBrowser[key], key).to.deep.equal(inNode[key]);
    expect(inBrowser.queryWrite).to.deep.include({ rows: [[5]] });
    expect(inBrowser.upsertWrongDim).to.deep.equal({ code: 400, message: 'point 1: vector has 2 dimensions, collection "docs" expects 8', isError: true });
  });

  it('moves a collection browser → server → browser through the export format, unchanged', async () => {
    const made = await page.evaluate(async () => {
      const DB = (window as any).VectorGraphDB;
      const db = await DB.init();
      db.createCollection('rt', { vectors: { size: 6, distance: 'Dot' } });
      const points = Array.from({ length: 500 }, (_, i) => ({ id: i * 3, vector: Float32Array.from({ length: 6 }, (_, k) => Math.sin(i * (k + 1))), payload: { i, tag: `t${i % 7}` }, labels: i % 5 ? [] : ['Five'] }));
      db.upsert('rt', points);
      for (let i = 0; i < 499; i++) db.addEdge('rt', i * 3, (i + 1) * 3, 'NEXT', i / 10);
      db.query('rt', "MATCH (a:Five) CREATE (a)-[:MARK {why: 'five'}]->(:Marker {of: a.i})");
      (window as any).db = db;
      return Array.from(db.exportCollection('rt') as Uint8Array);
    });
    const s = await startTestServer();
    try {
      const imported = await fetch(`${s.url}/collections/rt/import?mode=create`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: Buffer.from(Uint8Array.from(made)) });
      expect(imported.status).to.equal(200);
      expect((await imported.json()).result).to.deep.include({ points_imported: 600, points_skipped: 0, dimension: 6, mode: 'create' });
      const back = new Uint8Array(await (await fetch(`${s.url}/collections/rt/export`)).arrayBuffer());
      const [file, again] = [Uint8Array.from(made), back].map((bytes) => {
        const reader = new ImportReader();
        reader.feed(bytes);
        return reader.finish();
      });
      expect(again.exportedAt, "the server's operation_ids went on above the tab's").to.equal(file.exportedAt + 1);
      // The server's file also names its log's head hash; the tab's in-memory log keeps none.
      expect(again.logHead).to.match(/^[0-9a-f]{64}$/);
      expect({ ...again, exportedAt: 0, logHead: '' }, 'the server writes back the same content').to.deep.equal({ ...file, exportedAt: 0 });
      const compared = await page.evaluate(async (bytes: number[]) => {
        const DB = (window as any).VectorGraphDB;
        const original = (window as any).db;
        const copy = await DB.init();
        copy.importCollection('rt', Uint8Array.from(bytes), 'create');
        const q = Float32Array.of(0.5, -0.2, 0.1, 0.9, 0, 0.3);
        const answers = (db: any) => [
          db.search('rt', q, 10),
          db.traverse('rt', 0, 4, ['NEXT']),
          db.query('rt', 'MATCH (m:Marker)<-[r:MARK]-(a) RETURN m.of, r.why, a.tag ORDER BY m.of').rows,
          db.getPoints('rt', BigUint64Array.of(0n, 3n, 1497n), true, true),
        ];
        return [JSON.stringify(answers(original)), JSON.stringify(answers(copy))];
      }, Array.from(back));
      expect(compared[1]).to.equal(compared[0]);
      expect(JSON.parse(compared[0]!)[2]).to.have.length(100);
    } finally {
      await s.stop();
      s.remove();
    }
  });

  it('runs the demo page: loads a data set, searches and traverses', async () => {
    await page.goto(`${site.url}/index.html`);
    await page.waitForFunction(() => document.getElementById('out')?.textContent?.startsWith('loaded 5000 points'), undefined, { timeout: 30_000 });
    await page.click('#search');
    expect(await page.textContent('#out')).to.match(/^nearest 5 to point \d+/);
    await page.click('#traverse');
    expect(await page.textContent('#out')).to.match(/"max_depth_reached": 3/);
    await page.click('#cypher');
    expect(await page.textContent('#out')).to.match(/"b.name"/);
  });
});
