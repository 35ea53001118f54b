import { expect } from 'chai';
import type { Browser, Locator } from 'playwright-core';
import { buildConsole } from '../../tools/build-console/main.js';
import { call, startTestServer, type TestServer } from '../helpers/http.js';
import { isExecutable, requirePrerequisite } from '../helpers/prerequisite.js';
import { CHROMIUM, ConsolePage, launchChromium } from './console-harness.js';

/** 12 people (ids 1 to 12) with payloads long enough to fill a table cell's line, linked in a chain. */
async function seed(url: string): Promise<void> {
  expect((await call(url, 'PUT', '/collections/people', { vectors: { size: 4, distance: 'Cosine' } })).status).to.equal(200);
  const points = Array.from({ length: 12 }, (_, k) => ({
    id: k + 1,
    vector: [Math.cos(k), Math.sin(k), (k % 3) / 3, 0.2],
    labels: ['Person'],
    payload: { name: `Person ${k + 1}`, born: 1815 + k * 12, field: k % 2 ? 'languages' : 'theory', address: { city: k % 2 ? 'London' : 'Boston' }, bio: 'x'.repeat(200) },
  }));
  expect((await call(url, 'PUT', '/collections/people/points', { points })).status).to.equal(200);
  for (let i = 1; i < 12; i++) expect((await call(url, 'POST', '/collections/people/graph/edges', { from_id: i, to_id: i + 1, relation: 'KNOWS', weight: 1 })).status).to.equal(200);
}

/** How many lines each element's text takes on the page. */
function linesOf(cells: Locator): Promise<number[]> {
  return cells.evaluateAll((elements) =>
    elements.map((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
    }),
  );
}

describe('web console, as a new user finds it, in headless Chromium', function () {
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

  it('says a collection was created or deleted after the page moves to it', async () => {
    const { page } = tab;
    await tab.goto('#/collections');
    const form = page.getByRole('form', { name: 'Create a collection' });
    await form.getByLabel('Name').fill('brief');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.locator('.notice', { hasText: 'Created collection brief: add its points on the Points tab.' }).waitFor();
    expect(page.url()).to.match(/#\/collections\/brief$/);

    await page.locator('tr[data-collection="brief"]').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Confirm' }).getByRole('button', { name: 'Delete' }).click();
    await page.locator('.notice', { hasText: 'Deleted collection brief.' }).waitFor();
    expect(page.url()).to.match(/#\/collections$/);
    await page.locator('tr[data-collection="brief"]').waitFor({ state: 'detached' });
  });

  it('offers an empty collection a form for its first point, refuses a vector of the wrong size by its message, and shows the saved point', async () => {
    expect((await call(server.url, 'PUT', '/collections/fresh', { vectors: { size: 3, distance: 'Cosine' } })).status).to.equal(200);
    const { page } = tab;
    await tab.goto('#/points/fresh');
    await page.getByText('No points yet: add one above').waitFor();
    const form = page.getByRole('form', { name: 'Add a point' });
    expect(await form.isVisible(), 'open on an empty collection').to.equal(true);
    await tab.screenshot('first-point');

    await form.getByLabel('Id').fill('7');
    await form.getByLabel('Vector').fill('1, 2');
    await form.getByLabel('Labels (comma-separated)').fill('Doc, Draft');
    await form.getByLabel('Payload (JSON)').fill('{"title": "first"}');
    tab.expectStatus(400);
    await form.getByRole('button', { name: 'Save point' }).click();
    await page.locator('.points-view .status-line.error', { hasText: 'vector has 2 dimensions, collection "fresh" expects 3' }).waitFor();

    await form.getByLabel('Payload (JSON)').fill('["not", "an object"]');
    await form.getByLabel('Vector').fill('[1, 2, 3]');
    await form.getByRole('button', { name: 'Save point' }).click();
    await page.locator('.points-view .status-line.error', { hasText: 'payload must be a JSON object' }).waitFor();

    await form.getByLabel('Payload (JSON)').fill('{"title": "first"}');
    await form.getByRole('button', { name: 'Save point' }).click();
    await page.getByText('Saved point 7.').waitFor();
    await page.getByText('1 point; page 1').waitFor();
    expect(await page.locator('tr[data-id="7"]').textContent()).to.include('Doc, Draft').and.to.include('"title":"first"');
    await page.getByRole('region', { name: 'Point 7' }).waitFor();
    const [stored] = (await call(server.url, 'POST', '/collections/fresh/points', { ids: [7], with_payload: true })).body.result as { labels: string[]; payload: unknown }[];
    expect(stored).to.deep.include({ labels: ['Doc', 'Draft'], payload: { title: 'first' } });
  });

  it("adds an edge out of a point from its details and deletes a point after a confirmation", async () => {
    expect((await call(server.url, 'PUT', '/collections/edits', { vectors: { size: 2, distance: 'Dot' } })).status).to.equal(200);
    const points = [1, 2, 3].map((id) => ({ id, vector: [id, 1], payload: { n: id } }));
    expect((await call(server.url, 'PUT', '/collections/edits/points', { points })).status).to.equal(200);
    const { page } = tab;
    await tab.goto('#/points/edits');
    await page.getByText('3 points; page 1').waitFor();
    await page.locator('tr[data-id="1"]').getByRole('button', { name: '1' }).click();
    const details = page.getByRole('region', { name: 'Point 1' });
    const edge = details.getByRole('form', { name: 'Add an edge' });
    await edge.getByLabel('Edge to').fill('3');
    await edge.getByLabel('Relation').fill('CITES');
    await edge.getByLabel('Weight').fill('0.5');
    await edge.getByRole('button', { name: 'Add edge' }).click();
    await details.getByText('-[:CITES]-> 3 (weight 0.5)').waitFor();
    await tab.screenshot('point-edits');
    expect((await call(server.url, 'GET', '/collections/edits/graph/neighbors/1')).body.result.neighbors).to.deep.equal([{ id: 3, weight: 0.5, relation: 'CITES' }]);

    tab.expectStatus(404);
    await edge.getByLabel('Edge to').fill('99');
    await edge.getByLabel('Relation').fill('CITES');
    await edge.getByRole('button', { name: 'Add edge' }).click();
    await details.locator('.status-line.error', { hasText: '99' }).waitFor();

    await details.getByRole('button', { name: 'Delete point' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm' });
    expect(await dialog.textContent()).to.include('Delete point 1 and its edges?');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted point 1.').waitFor();
    await page.getByText('2 points; page 1').waitFor();
    expect(await details.count()).to.equal(0);
    expect((await call(server.url, 'POST', '/collections/edits/points', { ids: [1] })).body.result).to.deep.equal([]);
    expect((await call(server.url, 'GET', '/collections/edits/graph/neighbors/3?direction=incoming')).body.result.neighbors).to.deep.equal([]);
  });

  it('says how to make relationships when a collection has none to draw', async () => {
    expect((await call(server.url, 'PUT', '/collections/flat', { vectors: { size: 2, distance: 'Dot' } })).status).to.equal(200);
    expect((await call(server.url, 'PUT', '/collections/flat/points', { points: [{ id: 1, vector: [1, 0] }] })).status).to.equal(200);
    const { page } = tab;
    await tab.goto('#/graph/flat');
    await page.getByRole('button', { name: 'Draw' }).click();
    await page.getByText("flat has no relationships yet: add one from a point's details (Points) or with Cypher (CREATE).").waitFor();

    await tab.goto('#/graph/people');
    await page.getByRole('button', { name: 'Draw' }).click();
    await page.getByText('12 nodes, 11 edges').waitFor();
    expect(await page.locator('.graph-tab .status-line').textContent()).to.equal('');
  });

  it('says when the address names a collection that is not there, and picks up one made elsewhere since the page loaded', async () => {
    const { page } = tab;
    tab.expectStatus(404);
    await tab.goto('#/points/nowhere');
    await page.locator('.notice.error', { hasText: 'There is no collection nowhere: choose one in the header, or create it on the Collections tab.' }).waitFor();

    expect((await call(server.url, 'PUT', '/collections/later', { vectors: { size: 2, distance: 'Dot' } })).status).to.equal(200);
    await page.evaluate(() => void (location.hash = '#/points/later'));
    await page.getByText('0 points; page 1').waitFor();
    const picker = page.getByLabel('Collection', { exact: true });
    await picker.locator('option', { hasText: /^later$/ }).waitFor({ state: 'attached' });
    expect(await picker.inputValue()).to.equal('later');
    expect(await page.locator('.notice').textContent()).to.equal('');
  });

  it('keeps ids and scores on one line beside long payloads', async () => {
    const { page } = tab;
    await tab.goto('#/search/people');
    await page.getByLabel('Query').fill('3');
    await page.getByLabel('Limit').fill('12');
    await page.locator('main').getByRole('button', { name: 'Search' }).click();
    await page.getByText('11 results').waitFor();
    const rows = page.locator('table.results tbody tr');
    expect(await linesOf(rows.locator('td:nth-child(1)')), 'ids').to.deep.equal(Array(11).fill(1));
    expect(await linesOf(rows.locator('td:nth-child(2)')), 'scores').to.deep.equal(Array(11).fill(1));

    await tab.goto('#/points/people');
    await page.getByText('12 points; page 1').waitFor();
    expect(await linesOf(page.locator('table.points tbody td:first-child button'))).to.deep.equal(Array(10).fill(1));
  });

  it('clears the results of the search before when one fails, and says what a vector must be', async () => {
    const { page } = tab;
    await tab.goto('#/search/people');
    await page.getByLabel('Query').fill('3');
    await page.locator('main').getByRole('button', { name: 'Search' }).click();
    await page.getByText('10 results').waitFor();
    await page.getByLabel('Search by').selectOption('vector');
    await page.getByLabel('Query').fill('[1, a]');
    await page.locator('main').getByRole('button', { name: 'Search' }).click();
    await page.locator('.search-view .status-line.error', { hasText: 'the vector must be numbers, e.g. [0.1, 0.2, 0.3]' }).waitFor();
    expect(await page.locator('table.results tbody tr').count()).to.equal(0);

    await page.getByLabel('Search by').selectOption('id');
    await page.getByLabel('Query').fill('3');
    await page.locator('main').getByRole('button', { name: 'Search' }).click();
    await page.getByText('10 results').waitFor();
    tab.expectStatus(404);
    await page.getByLabel('Query').fill('999');
    await page.locator('main').getByRole('button', { name: 'Search' }).click();
    await page.locator('.search-view .status-line.error', { hasText: 'point 999 not found' }).waitFor();
    expect(await page.locator('table.results tbody tr').count()).to.equal(0);
  });

  it('shows a green collection holding graph-only nodes as fully indexed', async () => {
    expect((await call(server.url, 'PUT', '/collections/mixed', { vectors: { size: 2, distance: 'Dot' } })).status).to.equal(200);
    expect((await call(server.url, 'PUT', '/collections/mixed/points', { points: [{ id: 1, vector: [1, 0] }] })).status).to.equal(200);
    expect((await call(server.url, 'POST', '/collections/mixed/graph/query', { query: "CREATE (:Tag {name: 'no vector'})" })).status).to.equal(200);
    const info = (await call(server.url, 'GET', '/collections/mixed')).body.result as { status: string; points_count: number; indexed_vectors_count: number };
    expect(info).to.include({ status: 'green', points_count: 2, indexed_vectors_count: 1 });

    const { page } = tab;
    await tab.goto('#/collections');
    const row = page.locator('tr[data-collection="mixed"]');
    await row.waitFor();
    expect(await row.locator('progress').evaluate((p) => (p as HTMLProgressElement).value)).to.equal(1);
    expect(await row.locator('.progress').textContent()).to.equal(' 100%');
  });

  it('closes completion when Ctrl-Enter runs, draws at most 1000 rows of a long result, and says why a result has no graph', async () => {
    const { page } = tab;
    await tab.goto('#/cypher/people');
    const editor = page.locator('.cm-content');
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('MATCH (n:Person) RETURN ');
    await page.keyboard.type('n');
    await page.locator('.cm-tooltip-autocomplete').waitFor();
    await page.keyboard.press('Control+Enter');
    await page.getByText(/^12 rows, /).waitFor();
    await page.locator('.cm-tooltip-autocomplete').waitFor({ state: 'detached' });
    expect(await editor.textContent(), 'the query as typed, no completion applied').to.equal('MATCH (n:Person) RETURN n');

    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('UNWIND range(1, 1500) AS i RETURN i');
    await page.keyboard.press('Control+Enter');
    await page.getByText(/^1500 rows, /).waitFor();
    await page.getByText('The table shows the first 1000 of 1500 rows; JSON shows them all.').waitFor();
    expect(await page.locator('table.cypher-table tbody tr').count()).to.equal(1000);
    const results = page.getByRole('group', { name: 'Show the result as' });
    await results.getByRole('button', { name: 'JSON' }).click();
    expect(JSON.parse((await page.locator('.cypher-output pre').textContent())!).rows).to.have.length(1500);

    await results.getByRole('button', { name: 'Graph' }).click();
    await page.getByText('Nothing to draw: the result holds no nodes or relationships.', { exact: false }).waitFor();
    expect(await page.locator('.cypher-output .graph-canvas').count()).to.equal(0);

    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('MATCH (n) WHERE id(n) = 1 RETURN n');
    await page.keyboard.press('Control+Enter');
    await page.getByText(/^1 row, /).waitFor();
    await page.locator('.cypher-output').getByText('1 nodes, 0 edges').waitFor();
  });

  it('marks the whole word a Cypher error points at', async () => {
    const { page } = tab;
    await tab.goto('#/cypher/people');
    const editor = page.locator('.cm-content');
    const status = page.locator('.cypher-view .status-line.error');
    tab.expectStatus(400);
    for (const [query, word] of [
      ['MATCH (n) RETURN n\nORDER BY n.name LIMT 5', 'LIMT'],
      ['MATCH (n) RETURN frobnicate(n)', 'frobnicate'],
    ] as const) {
      await editor.click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText(query);
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+Enter');
      // Wait for this query's mark (its first character is marked in any case), then read all it marks.
      await page.locator('.cm-lintRange-error', { hasText: word.slice(0, 1) }).waitFor();
      expect(await status.textContent()).to.match(/at line \d+, column \d+/);
      expect(await page.locator('.cm-lintRange-error').textContent(), query).to.equal(word);
    }
  });
});

describe('web console sign-in, in headless Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: TestServer;

  requirePrerequisite({ what: `Chromium at ${CHROMIUM}`, present: () => isExecutable(CHROMIUM), install: 'apt-get install -y chromium (as root; .ci/run does it), or set CHROMIUM_PATH' });
  before(async () => {
    await buildConsole();
    server = await startTestServer({ SERVICE_API_KEYS: 'sesame' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    server?.remove();
  });

  it('signs in from the keyboard without the browser warning of a form it cancelled', async () => {
    const tab = await ConsolePage.open(browser, server.url);
    const warnings: string[] = [];
    tab.page.on('console', (m) => void (m.type() === 'warning' && warnings.push(m.text())));
    try {
      const { page } = tab;
      await page.goto(`${server.url}/console`);
      const dialog = page.getByRole('dialog', { name: 'Sign in' });
      await dialog.getByLabel('Key or token').fill('sesame');
      await dialog.getByLabel('Key or token').press('Enter');
      await page.getByText('No collections yet: create one below.').waitFor();
      expect(await dialog.count()).to.equal(0);
      expect(warnings).to.deep.equal([]);
    } finally {
      await tab.close();
    }
  });
});
