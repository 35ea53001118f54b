import { chromium, type Page } from 'playwright-core';
import { buildConsole } from '../build-console/main.js';
import { HttpClient } from '../lib/http-client.js';
import { exited, spawnServer } from '../lib/spawn-server.js';
import { fmt } from './table.js';

const LABELS = 5;
const RELATIONS = 3;

async function call(client: HttpClient, method: string, path: string, body: unknown): Promise<void> {
  const r = await client.send(method, path, JSON.stringify(body));
  if (r.status !== 200) throw new Error(`${method} ${path} answered ${r.status}: ${r.text}`);
}

/** A chain of `nodes` points, five labels and three relations taking turns, with weights 0 to 2. */
async function makeGraph(client: HttpClient, nodes: number): Promise<void> {
  await call(client, 'PUT', '/collections/graph', { vectors: { size: 2, distance: 'Dot' } });
  for (let from = 0; from < nodes; from += 1000) {
    const points = Array.from({ length: Math.min(1000, nodes - from) }, (_, k) => ({ id: from + k, vector: [1, (from + k) / nodes], labels: [`L${(from + k) % LABELS}`], payload: { name: `n${from + k}` } }));
    await call(client, 'PUT', '/collections/graph/points', { points });
  }
  for (let r = 0; r < RELATIONS; r++) {
    const query = `UNWIND range($r, $last, ${RELATIONS}) AS i MATCH (a) WHERE id(a) = i MATCH (b) WHERE id(b) = i + 1 CREATE (a)-[:R${r} {weight: (i % 5) / 2.0}]->(b)`;
    await call(client, 'POST', '/collections/graph/graph/query', { query, parameters: { r, last: nodes - 2 } });
  }
}

/** Clicks nearer and nearer the canvas centre's neighbourhood until a click lands on a node; answers the ms that click took to show it. */
async function clickANode(page: Page): Promise<number> {
  const box = (await page.locator('.graph-canvas').boundingBox())!;
  for (let step = 0; step < 400; step++) {
    const angle = step * 0.5;
    const radius = step * 1.5;
    const x = box.x + box.width / 2 + radius * Math.cos(angle);
    const y = box.y + box.height / 2 + radius * Math.sin(angle);
    const t0 = performance.now();
    await page.mouse.click(x, y);
    const hit = await page.waitForFunction(() => document.querySelector('.node-details h3') !== null, undefined, { timeout: 250 }).then(
      () => true,
      () => false,
    );
    if (hit) return performance.now() - t0;
  }
  throw new Error('no click landed on a node');
}

/**
 * The console's graph view in headless Chromium on a chain of `nodes` points: the ms from
 * pressing Draw to every node drawn (the Cypher query, the grid layout and two frames), and from
 * a click on a node to its details shown.
 */
export async function benchConsole(nodes: number, chromiumPath: string, dataDir: string, log: (m: string) => void): Promise<(string | number)[][]> {
  await buildConsole();
  const server = await spawnServer(dataDir, { SERVICE_LOG_LEVEL: 'info' });
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'] });
  try {
    log(`console: a graph of ${nodes} nodes...`);
    await makeGraph(new HttpClient(server.url, 2), nodes);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.url}/console#/graph/graph`);
    await page.getByLabel('Relationships to draw').fill(String(nodes));
    const t0 = performance.now();
    await page.getByRole('button', { name: 'Draw', exact: true }).click();
    await page.getByText(`${nodes} nodes, ${nodes - 1} edges`).waitFor({ timeout: 120_000 });
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const drawMs = performance.now() - t0;
    const clickMs = await clickANode(page);
    const where = `${fmt(nodes)} nodes, ${fmt(nodes - 1)} edges`;
    return [
      ['draw (query, grid layout, first frames)', where, fmt(drawMs)],
      ['click on a node until its details show', where, fmt(clickMs)],
    ];
  } finally {
    await browser.close();
    server.child.kill('SIGTERM');
    await exited(server.child);
  }
}
