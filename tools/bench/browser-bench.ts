import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { VectorGraphDB } from '../../browser/database.js';
import { buildBrowser } from '../build-browser/main.js';
import { recallAt10, type Dataset } from './dataset.js';
import { fmt } from './table.js';

interface LibraryRun {
  buildMs: number;
  queryMs: number;
  ids: number[][];
}

const PAGE = `<!doctype html><script type="module">
import { VectorGraphDB } from './vectorgraphdb.js';
window.VectorGraphDB = VectorGraphDB;
window.libraryReady = true;
</script>`;

/**
 * The library's own calls (upsert in batches of 1,000, flushIndex, search top 10 at ef 100
 * without payloads), wherever it runs: given the class, the data and the queries. Written
 * self-contained, as it is also sent to the page as source text.
 */
async function runLibrary(args: { lib?: unknown; dim: number; data: Float32Array | number[]; queries: Float32Array | number[] }): Promise<LibraryRun> {
  const DB = (args.lib ?? (globalThis as any).VectorGraphDB) as any;
  const data = Float32Array.from(args.data);
  const queries = Float32Array.from(args.queries);
  const { dim } = args;
  const db = await DB.init();
  db.createCollection('bench', { vectors: { size: dim, distance: 'Euclid' }, hnsw_config: { m: 16, ef_construct: 200 } });
  const count = data.length / dim;
  let t = performance.now();
  for (let from = 0; from < count; from += 1000) {
    const points = [];
    for (let id = from; id < Math.min(count, from + 1000); id++) points.push({ id, vector: data.subarray(id * dim, (id + 1) * dim) });
    db.upsert('bench', points);
  }
  db.flushIndex();
  const buildMs = performance.now() - t;
  const ids: number[][] = [];
  t = performance.now();
  for (let q = 0; q < queries.length / dim; q++) {
    ids.push(db.search('bench', queries.subarray(q * dim, (q + 1) * dim), 10, { with_payload: false, ef: 100 }).map((p: { id: number }) => p.id));
  }
  return { buildMs, queryMs: performance.now() - t, ids };
}

const row = (where: string, ds: Dataset, r: LibraryRun): (string | number)[] => {
  const recall = r.ids.reduce((s, got, q) => s + recallAt10(ds.truth[q]!, got), 0) / ds.queryCount;
  return [where, ds.name, fmt(ds.count / (r.buildMs / 1000)), recall.toFixed(3), fmt(ds.queryCount / (r.queryMs / 1000))];
};

/** The library in headless Chromium next to the same library (the same engine) in Node. */
export async function benchBrowser(ds: Dataset, chromiumPath: string): Promise<(string | number)[][]> {
  const inNode = await runLibrary({ lib: VectorGraphDB, dim: ds.dim, data: ds.data, queries: ds.queries });
  const dir = await buildBrowser();
  const bundle = readFileSync(`${dir}/vectorgraphdb.js`);
  const server = createServer((req, res) => {
    if (req.url === '/') res.writeHead(200, { 'Content-Type': 'text/html' }).end(PAGE);
    else if (req.url === '/vectorgraphdb.js') res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(bundle);
    else res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => (window as any).libraryReady === true);
    const inBrowser = await page.evaluate(runLibrary, { dim: ds.dim, data: Array.from(ds.data), queries: Array.from(ds.queries) });
    return [row('headless Chromium', ds, inBrowser), row('Node (in-process)', ds, inNode)];
  } finally {
    await browser.close();
    server.close();
  }
}
