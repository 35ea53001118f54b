import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { annTableRows, benchHnswlib, benchOurs, type AnnRow } from './ann.js';
import { makeDataset } from './dataset.js';
import { benchBrowser } from './browser-bench.js';
import { benchDurability } from './durability-bench.js';
import { benchGraph } from './graph-bench.js';
import { benchHttp } from './http-bench.js';
import { table } from './table.js';

/**
 * `npm run bench`: a benchmark, not a test. Prints markdown tables of in-process ANN figures
 * next to hnswlib-node, of the real server over loopback HTTP, of durability, and of Cypher
 * queries on a graph of --points nodes and ten times as many edges, and of the browser library
 * in headless Chromium next to Node (--points / 5 points).
 * Options: --points N (default 100000), --queries N (default 200), --only ann|http|graph|browser|durability.
 */
const { values } = parseArgs({
  options: {
    points: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '200' },
    only: { type: 'string' },
  },
});
const points = Number(values.points);
const queries = Number(values.queries);
const log = (message: string): void => void process.stderr.write(`${message}\n`);

console.log(`# vectorgraphdb benchmark\n\nNode ${process.version}, ${new Date().toISOString().slice(0, 10)}, one thread per engine.\n`);

if (values.only === undefined || values.only === 'ann') {
  const rows: AnnRow[] = [];
  for (const [dim, distance] of [[128, 'Euclid'], [384, 'Cosine']] as const) {
    log(`generating ${points} x ${dim} ${distance} and exact answers for ${queries} queries...`);
    const ds = makeDataset(points, dim, distance, queries, dim);
    log('building ours...');
    rows.push(benchOurs(ds));
    log('building hnswlib-node...');
    rows.push(benchHnswlib(ds));
  }
  console.log('## In-process HNSW (m = 16, ef_construct = 200), recall@10 and single-thread QPS\n');
  console.log(table(['dataset', 'engine', 'build points/s', 'ef', 'recall@10', 'QPS'], annTableRows(rows)));
  console.log();
}

if (values.only === undefined || values.only === 'http') {
  const dir = mkdtempSync(join(tmpdir(), 'vgdb-bench-'));
  try {
    log(`HTTP: generating ${points} x 128 Euclid...`);
    const ds = makeDataset(points, 128, 'Euclid', queries, 7);
    log('HTTP: running against the real server...');
    const rows = await benchHttp(ds, dir);
    console.log('## Over HTTP on loopback (real server, LMDB, every write durable before it is acknowledged)\n');
    console.log(table(['what', 'rate', 'latency'], rows));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.only === undefined || values.only === 'graph') {
  const dir = mkdtempSync(join(tmpdir(), 'vgdb-bench-'));
  try {
    const rows = await benchGraph(points, points * 10, queries, dir, log);
    console.log(`\n## Cypher on a graph (${queries} runs per query, random start nodes; in-process: parse, check, plan, run; HTTP: the real server on loopback)\n`);
    console.log(table(['query', 'text', 'in-process median ms', 'p99 ms', 'HTTP median ms', 'p99 ms', 'mean result'], rows));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.only === undefined || values.only === 'browser') {
  const count = Math.max(1000, Math.floor(points / 5));
  log(`browser: generating ${count} x 128 Euclid...`);
  const rows = await benchBrowser(makeDataset(count, 128, 'Euclid', queries, 3), process.env.CHROMIUM_PATH ?? '/usr/bin/chromium');
  console.log('\n## The browser library: the same calls in headless Chromium and in Node (m = 16, ef_construct = 200, ef 100, top 10)\n');
  console.log(table(['where', 'dataset', 'build points/s', 'recall@10', 'QPS'], rows));
}

if (values.only === undefined || values.only === 'durability') {
  const dir = mkdtempSync(join(tmpdir(), 'vgdb-bench-'));
  try {
    const count = 2 * points;
    log(`durability: generating ${count} x 128 Euclid...`);
    const rows = await benchDurability(makeDataset(count, 128, 'Euclid', 1, 9), dir);
    console.log(`\n## Snapshots, start-up and export/import (real server, ${count.toLocaleString('en')} points)\n`);
    console.log(table(['what', 'rate', 'notes'], rows));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
