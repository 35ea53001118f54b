import { expect } from 'chai';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { buildConsole } from '../../tools/build-console/main.js';
import { call, startTestServer, type TestServer } from '../helpers/http.js';
import { isExecutable, requirePrerequisite } from '../helpers/prerequisite.js';
import { useTestCertificate } from '../helpers/test-certificate.js';
import { tempDir } from '../helpers/temp-dir.js';
import { CHROMIUM, ConsolePage, launchChromium } from './console-harness.js';

const TOPICS = ['graphs', 'vectors'];

/** 30 articles (ids 1 to 30), every other one about vectors, cited in a chain 1 → 2 → … → 30. */
async function seed(url: string, headers: Record<string, string> = {}): Promise<void> {
  expect((await call(url, 'PUT', '/collections/articles', { vectors: { size: 4, distance: 'Cosine' } }, headers)).status).to.equal(200);
  const points = Array.from({ length: 30 }, (_, k) => {
    const i = k + 1;
    return { id: i, vector: [Math.cos(i), Math.sin(i), (i % 3) / 3, 0.1], labels: i % 5 === 0 ? ['Article', 'Tutorial'] : ['Article'], payload: { title: `Article ${i}`, topic: TOPICS[i % 2], year: 2000 + i } };
  });
  expect((await call(url, 'PUT', '/collections/articles/points', { points }, headers)).status).to.equal(200);
  for (let i = 1; i < 30; i++) expect((await call(url, 'POST', '/collections/articles/graph/edges', { from_id: i, to_id: i + 1, relation: 'CITES', weight: i / 10 }, headers)).status).to.equal(200);
}

describe('web console at /console, in headless Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: TestServer;
  let tab: ConsolePage;

  requirePrerequisite({ what: `Chromium at ${CHROMIUM}`, present: () => isExecutable(CHROMIUM), install: 'apt-get install -y chromium (as root; .ci/run does it), or set CHROMIUM_PATH' });
  before(async () => {
    await buildConsole();
    server = await startTestServer();
    await seed(server.url);
    browser = await launchChromium();
  });
  beforeEach(async () => {
    tab = await ConsolePage.open(browser, server.url);
  });
  afterEach(async () => tab.close());
  after(async () => {
    await browser?.close();
    await server?.stop();
    server?.remove();
  });

  it('lists collections with counts and indexing, creates one with HNSW settings, shows its info and deletes it after confirming', async () => {
    const { page } = tab;
    await tab.goto();
    const row = page.locator('tr[data-collection="articles"]');
    expect(await row.locator('td').nth(1).textContent()).to.equal('30');
    expect(await row.textContent()).to.include('4 · Cosine');
    expect(await row.locator('progress').count()).to.equal(1);

    const form = page.getByRole('form', { name: 'Create a collection' });
    await form.getByLabel('Name').fill('made');
    await form.getByLabel('Dimension').fill('3');
    expect(await form.getByLabel('Distance').locator('option').allTextContents()).to.deep.equal(['Cosine', 'Dot', 'Euclid', 'Manhattan']);
    await form.getByLabel('Distance').selectOption('Dot');
    await form.getByLabel('HNSW m', { exact: true }).fill('8');
    await form.getByLabel('HNSW ef_construct').fill('50');
    await form.getByRole('button', { name: 'Create' }).click();
    const made = page.locator('tr[data-collection="made"]');
    await made.waitFor();
    expect(await made.textContent()).to.include('3 · Dot');
    expect((await call(server.url, 'GET', '/collections/made')).body.result.config.hnsw_config).to.include({ m: 8, ef_construct: 50 });

    await made.getByRole('button', { name: 'Info' }).click();
    expect(await page.locator('.collection-info pre').textContent()).to.include('"ef_construct": 50');
    await tab.screenshot('collections');

    await made.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm' });
    expect(await dialog.textContent()).to.include('Delete collection made and its 0 points?');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await call(server.url, 'GET', '/collections/made/exists')).body.result.exists, 'cancel keeps it').to.equal(true);
    await made.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await made.waitFor({ state: 'detached' });
    expect((await call(server.url, 'GET', '/collections/made/exists')).body.result.exists).to.equal(false);
  });

  it('pages through the points, filters them with must / must_not, and shows a point with its vector and edges', async () => {
    const { page } = tab;
    await tab.goto('#/points/articles');
    const ids = () => page.locator('table.points tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
    await page.getByText('30 points; page 1').waitFor();
    expect(await ids()).to.deep.equal(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(await page.locator('tr[data-id="5"]').textContent()).to.include('Article, Tutorial').and.to.include('"topic":"vectors"');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('30 points; page 2').waitFor();
    expect((await ids())[0]).to.equal('11');
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.getByText('30 points; page 1').waitFor();

    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Payload key').last().fill('topic');
    await page.getByLabel('Value').last().fill('vectors');
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Clause').last().selectOption('must_not');
    await page.getByLabel('Payload key').last().fill('year');
    await page.getByLabel('Test').last().selectOption('gt');
    await page.getByLabel('Value').last().fill('2020');
    expect(await page.locator('.filter-json').textContent()).to.equal('{"must":[{"key":"topic","match":{"value":"vectors"}}],"must_not":[{"key":"year","range":{"gt":2020}}]}');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.getByText('10 points match; page 1').waitFor();
    expect(await ids()).to.deep.equal(['1', '3', '5', '7', '9', '11', '13', '15', '17', '19']);

    await page.locator('tr[data-id="3"]').getByRole('button', { name: '3' }).click();
    const details = page.getByRole('region', { name: 'Point 3' });
    await details.waitFor();
    expect(await details.locator('.vector-summary').textContent()).to.match(/^Vector: 4 dimensions, norm 1\.000: \[/);
    expect(await details.textContent()).to.include('Edges out (1)').and.to.include('-[:CITES]-> 4 (weight 0.3)').and.to.include('<-[:CITES]- 2 (weight 0.2)');
    await tab.screenshot('points');
  });

  it("searches by a point's vector and by a pasted vector with a filter, and draws a result's neighbours", async () => {
    const { page } = tab;
    await tab.goto('#/search/articles');
    const main = page.locator('main');
    await page.getByLabel('Query').fill('7');
    await page.getByLabel('Limit').fill('5');
    await page.getByLabel('ef').fill('64');
    await main.getByRole('button', { name: 'Search' }).click();
    await page.getByText('5 results').waitFor();
    const expected = (await call(server.url, 'POST', '/collections/articles/points/query', { query: 7, limit: 5, ef: 64 })).body.result as { id: number; score: number }[];
    const rows = page.locator('table.results tbody tr');
    expect(await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-id')))).to.deep.equal(expected.map((p) => String(p.id)));
    expect(await rows.first().locator('td').nth(1).textContent()).to.equal(expected[0]!.score.toFixed(4));

    await page.getByLabel('Search by').selectOption('vector');
    await page.getByLabel('Query').fill('[1, 0, 0, 0]');
    await page.getByLabel('Score threshold').fill('0.5');
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Payload key').fill('topic');
    await page.getByLabel('Value').fill('graphs');
    await main.getByRole('button', { name: 'Search' }).click();
    const filtered = (await call(server.url, 'POST', '/collections/articles/points/query', { query: [1, 0, 0, 0], limit: 5, ef: 64, score_threshold: 0.5, filter: { must: [{ key: 'topic', match: { value: 'graphs' } }] } })).body.result as { id: number }[];
    await page.getByText(`${filtered.length} results`).waitFor();
    expect(await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-id')))).to.deep.equal(filtered.map((p) => String(p.id)));
    for (const payload of await rows.locator('td.payload').allTextContents()) expect(payload).to.include('"topic":"graphs"');
    await tab.screenshot('search');

    const first = filtered[0]!.id;
    await rows.first().getByRole('button', { name: 'Show neighbours in the graph' }).click();
    await page.getByText('3 nodes, 2 edges').waitFor();
    expect(page.url()).to.match(/#\/graph\/articles$/);
    expect(await page.locator('.node-details h3').textContent()).to.equal(`Node ${first}`);
  });

  it('runs Cypher with a parameter and shows the table, the JSON and the graph (with the ends of bare relationships); completes labels; marks an error at its line and column; keeps history', async () => {
    const { page } = tab;
    await tab.goto('#/cypher/articles');
    const results = page.getByRole('group', { name: 'Show the result as' });
    const editor = page.locator('.cm-content');
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('MATCH (a:Article)-[r:CITES]->(b)\nWHERE a.year >= $since\nRETURN a, r, b ORDER BY id(a) LIMIT 3');
    expect(await page.locator('.cm-content .cm-line').count(), 'three lines').to.equal(3);
    await page.getByLabel('Parameters (JSON)').fill('{"since": 2010}');
    await editor.press('Control+Enter');
    await page.getByText(/^3 rows, /).waitFor();
    expect(await page.locator('table.cypher-table thead').textContent()).to.equal('arb');
    const firstRow = await page.locator('table.cypher-table tbody tr').first().locator('td').allTextContents();
    expect(firstRow[0]).to.match(/^\(10:Article:Tutorial \{.*"year":2010/);
    expect(firstRow[1]).to.equal('(10)-[:CITES {"weight":1}]->(11)');
    await tab.screenshot('cypher-table');

    await results.getByRole('button', { name: 'JSON' }).click();
    const json = JSON.parse((await page.locator('.cypher-output pre').textContent())!);
    expect(json.columns).to.deep.equal(['a', 'r', 'b']);
    expect(json.rows).to.have.length(3);

    await results.getByRole('button', { name: 'Graph' }).click();
    await page.locator('.cypher-output').getByText('4 nodes, 3 edges').waitFor();
    expect(await page.locator('.cypher-output .legend').textContent()).to.include(':Article').and.to.include('[:CITES]');
    await tab.screenshot('cypher-graph');

    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('MATCH ()-[r:CITES]->() RETURN r ORDER BY r.weight LIMIT 2');
    await editor.press('Control+Enter');
    await page.locator('.cypher-output').getByText('3 nodes, 2 edges', { exact: true }).waitFor();

    await results.getByRole('button', { name: 'Table' }).click();
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('MATCH (x');
    await page.keyboard.type(':Tut');
    await page.locator('.cm-tooltip-autocomplete').getByText('Tutorial').waitFor();
    await page.keyboard.press('Escape');

    tab.expectStatus(400);
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('MATCH (n)\nRETURN n,');
    await page.getByRole('button', { name: 'Run (Ctrl-Enter)' }).click();
    const status = page.locator('.cypher-view .status-line.error');
    await status.waitFor();
    expect(await status.textContent()).to.match(/^SyntaxError \(\w+\) at line 2, column \d+/);
    expect(await page.locator('.cm-lintRange-error').count()).to.equal(1);

    const options = await page.getByLabel('Query history').locator('option').allTextContents();
    expect(options[0]).to.equal('History (3)');
    expect(options[1]).to.equal('MATCH (n) RETURN n,');
    await page.getByLabel('Query history').selectOption({ index: 3 });
    expect(await editor.textContent()).to.include('WHERE a.year >= $since');
    expect(await page.getByLabel('Parameters (JSON)').inputValue()).to.equal('{"since": 2010}');
  });

  it('draws a point with its neighbours, and clicking a node on the canvas draws its neighbours too', async () => {
    const { page } = tab;
    await tab.goto('#/graph/articles');
    await page.getByLabel('Start from point').fill('30');
    await page.getByRole('button', { name: 'Show neighbourhood' }).click();
    await page.getByText('2 nodes, 1 edges').waitFor();
    // Point 29 is placed right of 30 at 60 + 6 model units; Fit centres the pair (captions
    // below them included) and stops zooming in at 1.5, so 29 is drawn about 50 pixels right of
    // the canvas centre, a little above it. At the wheel's limit (4) it would be at 132.
    const box = (await page.locator('.graph-canvas').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2 + 50, box.y + box.height / 2 - 8);
    await page.getByText('3 nodes, 2 edges').waitFor();
    expect(await page.locator('.node-details h3').textContent()).to.equal('Node 29');
    expect(await page.locator('.node-details').textContent()).to.include('28 -[:CITES]-> 29').and.to.include('29 -[:CITES]-> 30');

    await page.getByLabel('Nodes in the graph').selectOption({ label: '28 Article 28' });
    await page.getByText('4 nodes, 3 edges').waitFor();
    await page.getByRole('button', { name: 'Fit' }).click();
    await tab.screenshot('graph');
  });

  it('exports a collection as a .vgdb file and imports it again under another name', async () => {
    const { page } = tab;
    const dir = tempDir('vgdb-console-');
    try {
      await tab.goto('#/transfer/articles');
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export articles' }).click()]);
      expect(download.suggestedFilename()).to.equal('articles.vgdb');
      const file = join(dir.path, 'articles.vgdb');
      await download.saveAs(file);
      await page.getByText(`Exported articles: ${statSync(file).size} bytes.`).waitFor();

      await page.getByLabel('File').setInputFiles(file);
      expect(await page.getByLabel('Into collection').inputValue(), 'named after the file').to.equal('articles');
      await page.getByLabel('Into collection').fill('articles-copy');
      await page.getByRole('form', { name: 'Import' }).getByRole('button', { name: 'Import' }).click();
      await page.getByText('Imported 30 points into articles-copy (0 skipped, dimension 4, create).').waitFor();
      expect((await call(server.url, 'POST', '/collections/articles-copy/points/count', {})).body.result.count).to.equal(30);
      expect((await call(server.url, 'GET', '/collections/articles-copy/graph/neighbors/1')).body.result.neighbors).to.deep.equal([{ id: 2, weight: 0.1, relation: 'CITES' }]);
      // The list is refreshed after the message shows (a fetch of its own): wait for its option.
      await page.getByLabel('Collection', { exact: true }).locator('option', { hasText: /^articles-copy$/ }).waitFor({ state: 'attached' });
      expect(await page.getByLabel('Collection', { exact: true }).locator('option').allTextContents()).to.include('articles-copy');
      await tab.screenshot('transfer');
    } finally {
      dir.remove();
    }
  });

  it('fits a narrow window: every section reachable from the keyboard, tables scroll inside the page', async () => {
    await tab.context.close();
    tab = await ConsolePage.open(browser, server.url, { width: 390, height: 844 });
    const { page } = tab;
    await tab.goto('#/points/articles');
    await page.getByText('points; page 1').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, 'no sideways scrolling of the page').to.be.at.most(0);
    await page.locator('body').press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).to.equal('Collection');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal('Search');
    await page.keyboard.press('Enter');
    await page.getByRole('form', { name: 'Search' }).waitFor();
    await tab.screenshot('narrow-search');
  });
});

describe('web console with authentication on, in headless Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: TestServer;

  requirePrerequisite({ what: `Chromium at ${CHROMIUM}`, present: () => isExecutable(CHROMIUM), install: 'apt-get install -y chromium (as root; .ci/run does it), or set CHROMIUM_PATH' });
  before(async () => {
    await buildConsole();
    server = await startTestServer({ SERVICE_API_KEYS: 'sesame' });
    await seed(server.url, { 'api-key': 'sesame' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    server?.remove();
  });

  it('serves the page without a key, asks for one, asks again when it is refused, and keeps it for the tab only', async () => {
    expect((await fetch(`${server.url}/console`)).status).to.equal(200);
    expect((await fetch(`${server.url}/collections`)).status).to.equal(401);
    const tab = await ConsolePage.open(browser, server.url);
    try {
      const { page } = tab;
      tab.expectStatus(401);
      await page.goto(`${server.url}/console`);
      const dialog = page.getByRole('dialog', { name: 'Sign in' });
      expect(await dialog.textContent()).to.include('This server needs an API key or token.');
      await dialog.getByLabel('Key or token').fill('open sesame');
      await tab.screenshot('sign-in');
      await dialog.getByRole('button', { name: 'Sign in' }).click();
      await dialog.getByText('The server refused the key: the credential is not valid').waitFor();
      await dialog.getByLabel('Key or token').fill('sesame');
      await dialog.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('tr[data-collection="articles"]').waitFor();
      expect(await page.evaluate(() => [sessionStorage.length, localStorage.length])).to.deep.equal([1, 0]);

      const other = await tab.context.newPage();
      await other.goto(`${server.url}/console`);
      await other.getByRole('dialog', { name: 'Sign in' }).waitFor();
      await other.close();

      await page.getByRole('button', { name: 'Forget key' }).click();
      await dialog.waitFor();
      expect(await page.evaluate(() => sessionStorage.length)).to.equal(0);
    } finally {
      await tab.close();
    }
  });
});

describe('web console over TLS with a bearer token, in headless Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: TestServer;

  requirePrerequisite({ what: `Chromium at ${CHROMIUM}`, present: () => isExecutable(CHROMIUM), install: 'apt-get install -y chromium (as root; .ci/run does it), or set CHROMIUM_PATH' });
  const { cert, key } = useTestCertificate('vgdb-console-tls-');
  before(async () => {
    await buildConsole();
    server = await startTestServer({ SERVICE_TLS_CERT: cert, SERVICE_TLS_KEY: key, SERVICE_BEARER_TOKENS: 'token-1' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    server?.remove();
  });

  it('signs in with the token over HTTPS and creates a collection from the page', async () => {
    expect(server.url).to.match(/^https:/);
    const tab = await ConsolePage.open(browser, server.url, undefined, true);
    try {
      const { page } = tab;
      await page.goto(`${server.url}/console`);
      const dialog = page.getByRole('dialog', { name: 'Sign in' });
      // The page fills the choices from the server's answer, after the dialog shows.
      await dialog.getByLabel('Kind').locator('option').first().waitFor({ state: 'attached' });
      expect(await dialog.getByLabel('Kind').locator('option').allTextContents(), 'only the scheme the server takes').to.deep.equal(['Bearer token']);
      await dialog.getByLabel('Key or token').fill('token-1');
      await dialog.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('No collections yet: create one below.').waitFor();
      const form = page.getByRole('form', { name: 'Create a collection' });
      await form.getByLabel('Name').fill('secure');
      await form.getByRole('button', { name: 'Create' }).click();
      expect(await page.locator('tr[data-collection="secure"]').textContent()).to.include('4 · Cosine');
    } finally {
      await tab.close();
    }
  });
});
