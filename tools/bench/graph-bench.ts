import { Collection } from '../../storage/collection.js';
import { joinChunks } from '../../storage/codec/join-chunks.js';
import { exportCollection } from '../../storage/export/export-writer.js';
import { HttpClient } from '../lib/http-client.js';
import { exited, spawnServer } from '../lib/spawn-server.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { compileQuery, executeQuery } from '../../query/cypher/run-query.js';
import { startProgress } from '../lib/progress.js';
import { seeded } from './dataset.js';
import { fmt, percentile } from './table.js';

const DIM = 16;
const LABELS = 10;
const GROUPS = 100;
const RELATIONS = ['R0', 'R1', 'R2'];

interface GraphQueryCase {
  what: string;
  query: string;
  params: (rnd: () => number) => Record<string, unknown>;
}

/** Untimed runs before each query's timed ones, so the p99 measures the query, not the JIT warming up. */
const WARM_UP = 20;

const latencies = (times: Float64Array): [string, string] => {
  times.sort();
  return [fmt(percentile(times, 50), 2), fmt(percentile(times, 99), 2)];
};

/** The same queries over loopback HTTP: the graph moves to a real server through export/import. */
async function overHttp(c: Collection, cases: GraphQueryCase[], runs: number, dataDir: string, log: (m: string) => void): Promise<[string, string][]> {
  const file = Buffer.from(joinChunks([...exportCollection(c).chunks()]));
  const server = await spawnServer(dataDir, { SERVICE_LOG_LEVEL: 'info' });
  const client = new HttpClient(server.url, 4);
  try {
    log(`graph: importing ${fmt(file.length / 2 ** 20, 1)} MiB into the server...`);
    const imported = await client.send('POST', `/collections/${c.name}/import?mode=create`, file, 'application/octet-stream');
    if (imported.status !== 200) throw new Error(`import answered ${imported.status}: ${imported.text}`);
    const green = async () => ((await client.json('GET', `/collections/${c.name}`)) as { result: { status: string } }).result.status === 'green';
    while (!(await green())) await new Promise((r) => setTimeout(r, 200));
    const out: [string, string][] = [];
    const progress = startProgress('bench graph: queries over HTTP', cases.length * runs, 'queries');
    for (const q of cases) {
      const r = seeded(11);
      const times = new Float64Array(runs);
      for (let i = 0; i < WARM_UP; i++) await client.json('POST', `/collections/${c.name}/graph/query`, JSON.stringify({ query: q.query, parameters: q.params(seeded(99)) }));
      for (let i = 0; i < runs; i++) {
        const body = JSON.stringify({ query: q.query, parameters: q.params(r) });
        const t0 = performance.now();
        await client.json('POST', `/collections/${c.name}/graph/query`, body);
        times[i] = performance.now() - t0;
      }
      out.push(latencies(times));
      progress.tick(runs);
    }
    progress.end();
    return out;
  } finally {
    client.close();
    server.child.kill('SIGTERM');
    await exited(server.child);
  }
}

/**
 * Builds a random graph in one collection (nodes with a label, a group property and a vector;
 * edges of three types to uniformly random targets), then times Cypher queries on it
 * in-process (parse, check, plan and run, as the route does) and over HTTP on a real server.
 */
export async function benchGraph(nodes: number, edges: number, runs: number, dataDir: string, log: (m: string) => void): Promise<(string | number)[][]> {
  const config: CollectionConfig = { size: DIM, distance: 'Euclid', m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16) };
  const c = new Collection('graph', config, 1);
  const rnd = seeded(5);
  const vec = () => Float32Array.from({ length: DIM }, () => rnd());
  let t = performance.now();
  for (let from = 0; from < nodes; from += 10_000) {
    const batch = [];
    for (let id = from; id < Math.min(nodes, from + 10_000); id++) batch.push({ id, vector: vec(), payload: { group: id % GROUPS, name: `n${id}` }, labels: [`L${id % LABELS}`] });
    c.upsert(batch);
  }
  for (let i = 0; i < edges; i++) c.graph.add(Math.floor(rnd() * nodes), Math.floor(rnd() * nodes), RELATIONS[i % RELATIONS.length]!, 1);
  const loadMs = performance.now() - t;
  log(`graph: ${nodes} nodes and ${edges} edges loaded in ${fmt(loadMs)} ms; indexing vectors...`);
  const indexing = startProgress('bench graph: index build', nodes, 'nodes');
  t = performance.now();
  while (c.indexSome(10_000)) indexing.update(nodes - c.pendingCount);
  const indexMs = performance.now() - t;
  indexing.update(nodes);
  indexing.end();

  const start = (r: () => number) => ({ id: Math.floor(r() * nodes) });
  const cases: GraphQueryCase[] = [
    { what: '1-hop neighbourhood count', query: 'MATCH (a)-->(b) WHERE id(a) = $id RETURN count(b)', params: start },
    { what: '2-hop neighbourhood count (distinct)', query: 'MATCH (a)-->()-->(c) WHERE id(a) = $id RETURN count(DISTINCT c)', params: start },
    { what: 'label + property MATCH', query: 'MATCH (n:L3 {group: $g}) RETURN n.name ORDER BY n.name LIMIT 20', params: (r) => ({ g: 3 + LABELS * Math.floor(r() * (GROUPS / LABELS)) }) },
    { what: 'variable-length path [:R0*1..3]', query: 'MATCH (a)-[:R0*1..3]->(b) WHERE id(a) = $id RETURN count(DISTINCT b)', params: start },
    { what: 'vector predicate (HNSW)', query: 'MATCH (n) WHERE n.embedding <-> $q < 0.85 RETURN count(*)', params: (r) => ({ q: Array.from({ length: DIM }, () => r()) }) },
  ];
  const http = await overHttp(c, cases, runs, dataDir, log);
  const rows: (string | number)[][] = [[`build: ${fmt(nodes)} nodes, ${fmt(edges)} edges`, `${fmt(loadMs)} ms load + ${fmt(indexMs / 1000, 1)} s HNSW`, '', '', '', '', '']];
  const progress = startProgress('bench graph: queries in process', cases.length * runs, 'queries');
  cases.forEach((q, n) => {
    const r = seeded(11);
    const times = new Float64Array(runs);
    let results = 0;
    const warm = seeded(99);
    for (let i = 0; i < WARM_UP; i++) executeQuery(c, compileQuery(q.query), q.params(warm));
    for (let i = 0; i < runs; i++) {
      const params = q.params(r);
      const t0 = performance.now();
      const out = executeQuery(c, compileQuery(q.query), params);
      times[i] = performance.now() - t0;
      results += Number(out.rows[0]?.[0] ?? 0) || out.rows.length;
    }
    rows.push([q.what, `\`${q.query}\``, ...latencies(times), ...http[n]!, fmt(results / runs, 1)]);
    progress.tick(runs);
  });
  progress.end();
  return rows;
}
