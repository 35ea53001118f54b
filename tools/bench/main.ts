import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { oneOf, wholeNumber } from '../lib/args.js';
import { runTool } from '../lib/run-tool.js';
import { annTableRows, benchHnswlib, benchOurs, benchOursBuiltByWorkers, type AnnRow } from './ann.js';
import { makeDataset } from './dataset.js';
import { benchCypherLoad } from './cypher-load-bench.js';
import { benchCypherSideBySide } from './cypher-side-by-side-bench.js';
import { benchDurability } from './durability-bench.js';
import { benchFiltered } from './filtered-bench.js';
import { benchGraph } from './graph-bench.js';
import { benchHttp } from './http-bench.js';
import { benchQuantization } from './quantization-bench.js';
import { benchReplication } from './replication-bench.js';
import { benchRequestPathVsBare } from './request-path-bench.js';
import { benchScale } from './scale-bench.js';
import { benchWorkers } from './workers-bench.js';
import { table } from './table.js';

const PARTS = ['ann', 'filtered', 'quantization', 'http', 'workers', 'graph', 'cypher-load', 'browser', 'durability', 'console', 'replication', 'scale'] as const;
/** `scale` runs on its own: its default is a million points. */
const BY_DEFAULT: readonly string[] = PARTS.filter((p) => p !== 'scale');

const USAGE = `usage: npm run bench -- [--points N] [--queries N] [--only PART]
A benchmark, not a test: prints markdown tables (stdout) of in-process ANN figures next to
hnswlib-node, of filtered search at 1% selectivity (a keyword match from the payload index and
a range scanned), of int8 and binary quantization next to float search (N x 128 and N / 5 x 768:
code bytes, recall and QPS at ef 64 and 128), of the real server over loopback HTTP (and its
request path next to a bare node:http server running the same search and durable write on a
copy of its data, and to the same search through Koa, a router and koa-body alone), of searches with the default pool of search workers next to one worker and
none (1 to 16 clients, and batch searches), of Cypher queries on a graph of N nodes and
ten times as many edges, of loading a knowledge graph with UNWIND/MERGE over REST and Bolt (N
nodes, 5 x N relationship rows) and Bolt next to REST, and two long read-only Cypher queries
side by side over REST and over Bolt with SERVICE_CYPHER_WORKERS=0, the default and 2 (and /healthz's p99 meanwhile), of the browser library in headless Chromium next to Node (N / 5 points),
of durability (snapshots, start-up, export/import on 2 x N points), of the web console's
graph view in headless Chromium (N / 20 nodes, at least 1,000), and of writes with replication
over a 3-node JetStream cluster (Debian's nats-server) off, async and sync, with a replica's lag
under that load and the changefeed's read rate (Q writes one at a time, min(N, 5000) at once).
'--only scale' (not run by default) loads the real server with --scale-points clustered 128-d
points and a fifth as many 768-d ones, and measures ingest, memory, recall and QPS at ef 64 and
128, export and import, the data dir next to the export file and start-up from the snapshot.
  --points N     dataset size, 10 to 10000000 (default 100000)
  --scale-points N  the scale part's 128-d points, 1000 to 10000000 (default 1000000)
  --queries N    queries per measurement, 1 to 100000 (default 200)
  --only PART    run one part: ${PARTS.join(', ')} (default: all but scale)
  -h, --help     this text
Progress goes to stderr. CHROMIUM_PATH names the browser (default /usr/bin/chromium).
Exit codes: 0 done, 1 a part failed, 2 bad arguments.`;

const SPEC = {
  name: 'bench',
  usage: USAGE,
  flags: {
    points: wholeNumber({ min: 10, max: 10_000_000 }, 100_000),
    'scale-points': wholeNumber({ min: 1000, max: 10_000_000 }, 1_000_000),
    queries: wholeNumber({ min: 1, max: 100_000 }, 200),
    only: oneOf(PARTS),
  },
};
const log = (message: string): void => void process.stderr.write(`${message}\n`);

runTool(SPEC, async ({ values: { points, queries, only, 'scale-points': scalePoints } }) => {
  const runs = (part: (typeof PARTS)[number]): boolean => (only === undefined ? BY_DEFAULT.includes(part) : only === part);
  console.log(`# vectorgraphdb benchmark\n\nNode ${process.version}, ${new Date().toISOString().slice(0, 10)}, one thread per engine.\n`);

  if (runs('ann')) {
    const rows: AnnRow[] = [];
    for (const [dim, distance] of [[128, 'Euclid'], [384, 'Cosine']] as const) {
      log(`generating ${points} x ${dim} ${distance} and exact answers for ${queries} queries...`);
      const ds = makeDataset(points, dim, distance, queries, dim);
      rows.push(benchOurs(ds));
      for (const workers of [1, 2]) rows.push(await benchOursBuiltByWorkers(ds, workers));
      rows.push(benchHnswlib(ds));
    }
    console.log('## In-process HNSW (m = 16, ef_construct = 200), recall@10 and single-thread QPS\n');
    console.log(table(['dataset', 'engine', 'build points/s', 'ef', 'recall@10', 'QPS'], annTableRows(rows)));
    console.log();
  }

  if (runs('filtered')) {
    log(`filtered: generating ${points} x 128 Euclid...`);
    const rows = benchFiltered(makeDataset(points, 128, 'Euclid', queries, 5));
    console.log('## Filtered search at 1% selectivity (in-process, ef 100, top 10, recall against brute force over the admitted points)\n');
    console.log(table(['filter', 'dataset', 'recall@10', 'QPS'], rows));
    console.log();
  }

  if (runs('quantization')) {
    const memory: (string | number)[][] = [];
    const search: (string | number)[][] = [];
    for (const [count, dim] of [[points, 128], [Math.max(10, Math.floor(points / 5)), 768]] as const) {
      log(`quantization: generating ${count} x ${dim} Cosine...`);
      const rows = benchQuantization(makeDataset(count, dim, 'Cosine', queries, 17));
      memory.push(...rows.memory);
      search.push(...rows.search);
    }
    console.log('## Quantization: memory of the vectors, and search (in-process, m = 16, ef_construct = 200, top 10)\n');
    console.log(table(['dataset', 'vectors as', 'MB', 'of float32', 'coding ms'], memory));
    console.log();
    console.log(table(['dataset', 'search', 'ef', 'recall@10', 'QPS'], search));
    console.log();
  }

  if (runs('http')) {
    const dir = mkdtempSync(join(tmpdir(), 'vgdb-bench-'));
    try {
      log(`HTTP: generating ${points} x 128 Euclid...`);
      const ds = makeDataset(points, 128, 'Euclid', queries, 7);
      log('HTTP: running against the real server...');
      const rows = await benchHttp(ds, dir);
      log('HTTP: the request path next to a bare node:http server...');
      rows.push(...(await benchRequestPathVsBare(ds, join(dir, 'request-path'))));
      console.log('## Over HTTP on loopback (real server, LMDB, every write durable before it is acknowledged)\n');
      console.log(table(['what', 'rate', 'latency'], rows));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  if (runs('workers')) {
    const dir = mkdtempSync(join(tmpdir(), 'vgdb-bench-'));
    try {
      log(`workers: generating ${points} x 128 Euclid and loading the real server...`);
      const rows = await benchWorkers(makeDataset(points, 128, 'Euclid', queries, 7), dir);
      console.log('## Search workers: the default pool next to one worker and none (real server over loopback; searches at ef 64, top 10, in alternating rounds)\n');
      console.log(table(['what', 'searches/s', 'latency'], rows));
      console.log();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  if (runs('graph')) {
    const dir = mkdtempSync(join(tmpdir(), 'vgdb-bench-'));
    try {
      const rows = await benchGraph(points, points * 10, queries, dir, log);
      console.log(`\n## Cypher on a graph (${queries} runs per query, random start nodes; in-process: parse, check, plan, run; HTTP: the real server on loopback)\n`);
      console.log(table(['query', 'text', 'in-process median ms', 'p99 ms', 'HTTP median ms', 'p99 ms', 'mean result'], rows));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  if (runs('cypher-load')) {
    const dir = mkdtempSync(join(tmpdir(), 'vgdb-bench-'));
    try {
      const rows = await benchCypherLoad(points, queries, dir, log);
      console.log(`\n## Loading a knowledge graph with MERGE, and Bolt next to REST (real server on loopback, every write durable; ${queries} queries per row)\n`);
      console.log(table(['what', 'rate', 'time'], rows));
      const side = await benchCypherSideBySide((name) => join(dir, name), log);
      console.log('\n## Two long read-only Cypher queries sent together, next to one alone (the fastest of 3 runs), and /healthz asked every 5 ms meanwhile (real server on loopback)\n');
      console.log(table(['protocol', 'where Cypher runs', 'one query', 'two together', 'two / one', '/healthz p99 ms, one', 'p99 ms, two', '/healthz requests', 'load average'], side));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  if (runs('browser')) {
    const count = Math.max(1000, Math.floor(points / 5));
    log(`browser: generating ${count} x 128 Euclid...`);
    // Loaded here, not at the top: playwright takes seconds to load, which --help should not wait for.
    const { benchBrowser } = await import('./browser-bench.js');
    const rows = await benchBrowser(makeDataset(count, 128, 'Euclid', queries, 3), process.env.CHROMIUM_PATH ?? '/usr/bin/chromium');
    console.log('\n## The browser library: the same calls in headless Chromium and in Node (m = 16, ef_construct = 200, ef 100, top 10)\n');
    console.log(table(['where', 'dataset', 'build points/s', 'recall@10', 'QPS'], rows));
  }

  if (runs('durability')) {
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
  if (runs('console')) {
    const dir = mkdtempSync(join(tmpdir(), 'vgdb-bench-'));
    try {
      const nodes = Math.max(1000, Math.floor(points / 20));
      // Loaded here, not at the top: playwright takes seconds to load, which --help should not wait for.
      const { benchConsole } = await import('./console-bench.js');
      const rows = await benchConsole(nodes, process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', dir, log);
      console.log('\n## The console\'s graph view in headless Chromium (1280x800)\n');
      console.log(table(['what', 'graph', 'ms'], rows));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (runs('replication')) {
    const dir = mkdtempSync(join(tmpdir(), 'vgdb-bench-'));
    try {
      const rows = await benchReplication(queries, Math.min(points, 5000), dir, log);
      console.log(`\n## Replication over a 3-node JetStream cluster on loopback (one-point upserts; ${queries} one at a time, then ${Math.min(points, 5000)} 32 at a time; one replica)\n`);
      console.log(table(['replication', 'write median ms', 'p99 ms', 'writes/s (32 at once)', 'replica lag max (entries)', 'replica lag max (ms)', 'replica caught up after the load (ms)', 'changefeed entries/s'], rows));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  if (runs('scale')) {
    const rows: (string | number)[][] = [];
    for (const [count, dim, distance] of [[scalePoints, 128, 'Euclid'], [Math.max(1000, Math.floor(scalePoints / 5)), 768, 'Cosine']] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'vgdb-bench-'));
      try {
        log(`scale: generating ${count} x ${dim} ${distance} and exact answers for ${queries} queries...`);
        rows.push(...(await benchScale(makeDataset(count, dim, distance, queries, dim + 11), dir, log)));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    console.log('\n## At scale (real server, clustered data; default settings but SERVICE_SNAPSHOT_EVERY_BYTES and SERVICE_LOG_RETENTION_BYTES, an eighth of the raw vectors each, at least 8 MiB)\n');
    console.log(table(['what', 'figure', 'notes'], rows));
  }
  return 0;
});
