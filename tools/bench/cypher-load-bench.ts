import neo4j, { type Driver } from 'neo4j-driver';
import { HttpClient } from '../lib/http-client.js';
import { exited, spawnServer } from '../lib/spawn-server.js';
import { startProgress } from '../lib/progress.js';
import { seeded } from './dataset.js';
import { fmt, percentile } from './table.js';

const BATCH = 1000;
const LOAD = 'UNWIND $rows AS row MERGE (a:Entity {id: row.a}) MERGE (b:Entity {id: row.b}) MERGE (a)-[:REL {kind: row.kind}]->(b)';
const LOOKUP = 'MATCH (n:Entity {id: $id}) RETURN n.id AS id';
const TWO_HOP = 'MATCH (n:Entity {id: $id})-[:REL]->()-[:REL]->(m) RETURN count(m) AS n';
/** A date for every entity, spread over four years by its number. */
const SET_DATES = "MATCH (n:Entity) SET n.seen = date('2020-01-01') + duration({days: toInteger(substring(n.id, 1)) % 1461})";
const DATE_RANGE = 'MATCH (n:Entity) WHERE n.seen >= date($from) AND n.seen < date($to) RETURN count(n) AS n';
const STREAM_ROWS = 1_000_000;
const STREAM = `UNWIND range(1, ${STREAM_ROWS}) AS i RETURN i`;

type Row = (string | number)[];

/** The knowledge graph's relationships: `edges` rows between `nodes` entities, in batches. */
function batches(nodes: number, edges: number, seed: number): { a: string; b: string; kind: string }[][] {
  const rnd = seeded(seed);
  const out: { a: string; b: string; kind: string }[][] = [];
  for (let i = 0; i < edges; i += BATCH) {
    const rows = [];
    for (let j = i; j < Math.min(edges, i + BATCH); j++) rows.push({ a: `e${j % nodes}`, b: `e${Math.floor(rnd() * nodes)}`, kind: `k${j % 7}` });
    out.push(rows);
  }
  return out;
}

/** Runs `once` from `clients` loops at a time for `runs` calls in all: median and p99 latency, calls per second. */
async function measure(runs: number, clients: number, once: (i: number) => Promise<void>): Promise<[string, string, string]> {
  const times = new Float64Array(runs);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < runs; i = next++) {
        const t0 = performance.now();
        await once(i);
        times[i] = performance.now() - t0;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  times.sort();
  return [fmt(percentile(times, 50), 2), fmt(percentile(times, 99), 2), fmt(runs / seconds)];
}

/** The Bolt port from the server's log line `listening (Bolt)` (written once the HTTP listener is up). */
export async function boltPort(output: () => string): Promise<string> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    const m = /"port":(\d+)[^\n]*"msg":"listening \(Bolt\)"/.exec(output());
    if (m) return m[1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the server did not report its Bolt port');
}

async function cypherOverHttp(client: HttpClient, collection: string, query: string, parameters: Record<string, unknown>): Promise<unknown> {
  const body = (await client.json('POST', `/collections/${collection}/graph/query`, JSON.stringify({ query, parameters }))) as { status: string; result?: { rows: unknown[][] }; message?: string };
  if (body.status !== 'ok') throw new Error(`${query}: ${body.message}`);
  return body.result!.rows;
}

/**
 * Loading a knowledge graph as LLM tools do (UNWIND $rows MERGE ... in batches of 1,000, each a
 * durable write), over REST and over Bolt into collections of their own; then the same point
 * lookup, two-hop query and temporal range filter over both protocols with one and eight
 * clients, and a 1,000,000-row result pulled through each.
 */
export async function benchCypherLoad(nodes: number, runs: number, dataDir: string, log: (m: string) => void): Promise<Row[]> {
  const edges = nodes * 5;
  const server = await spawnServer(dataDir, { SERVICE_LOG_LEVEL: 'info' });
  const client = new HttpClient(server.url, 8);
  let driver: Driver | null = null;
  try {
    const bolt = await boltPort(server.output);
    driver = neo4j.driver(`bolt://127.0.0.1:${bolt}`, neo4j.auth.basic('neo4j', 'bench'));
    const rows: Row[] = [];
    const data = batches(nodes, edges, 5);
    for (const [protocol, collection] of [['REST', 'kg'], ['Bolt', 'kg_bolt']] as const) {
      await client.json('PUT', `/collections/${collection}`, JSON.stringify({ vectors: { size: 16, distance: 'Cosine' } }));
      const progress = startProgress(`bench cypher-load: MERGE over ${protocol}`, edges, 'rows');
      const t0 = performance.now();
      for (const batch of data) {
        if (protocol === 'REST') await cypherOverHttp(client, collection, LOAD, { rows: batch });
        else await driver.executeQuery(LOAD, { rows: batch }, { database: collection });
        progress.tick(batch.length);
      }
      progress.end();
      const seconds = (performance.now() - t0) / 1000;
      rows.push([`MERGE load over ${protocol} (${fmt(nodes)} nodes, ${fmt(edges)} relationship rows)`, `${fmt(edges / seconds)} rows/s`, `${fmt(seconds, 1)} s`]);
    }
    // Every entity gets a date over four years, for the temporal range filter.
    await cypherOverHttp(client, 'kg', SET_DATES, {});
    const ids = Array.from({ length: runs }, (_, i) => ({ id: `e${(i * 7919) % nodes}` }));
    const windows = Array.from({ length: runs }, (_, i) => {
      const from = new Date(Date.UTC(2020, 0, 1 + ((i * 37) % 1400)));
      const to = new Date(from.getTime() + 30 * 86_400_000);
      return { from: from.toISOString().slice(0, 10), to: to.toISOString().slice(0, 10) };
    });
    for (const [what, query, params] of [['point lookup', LOOKUP, ids], ['two hops', TWO_HOP, ids], ['temporal range filter (a 30-day window of dates)', DATE_RANGE, windows]] as const) {
      for (const clients of [1, 8]) {
        log(`cypher-load: ${what}, ${clients} client(s)...`);
        const rest = await measure(runs, clients, async (i) => void (await cypherOverHttp(client, 'kg', query, params[i]!)));
        const viaBolt = await measure(runs, clients, async (i) => void (await driver!.executeQuery(query, params[i]!, { database: 'kg' })));
        rows.push([`${what}, ${clients} client(s), REST`, `${rest[2]} queries/s`, `median ${rest[0]} ms, p99 ${rest[1]} ms`]);
        rows.push([`${what}, ${clients} client(s), Bolt`, `${viaBolt[2]} queries/s`, `median ${viaBolt[0]} ms, p99 ${viaBolt[1]} ms`]);
      }
    }
    log('cypher-load: a 1,000,000-row result...');
    let t0 = performance.now();
    const over = (await cypherOverHttp(client, 'kg', STREAM, {})) as unknown[];
    let seconds = (performance.now() - t0) / 1000;
    rows.push([`${fmt(over.length)}-row result over REST`, `${fmt(over.length / seconds)} rows/s`, `${fmt(seconds, 1)} s`]);
    const session = driver.session({ database: 'kg', fetchSize: 1000 });
    try {
      t0 = performance.now();
      let n = 0;
      await new Promise<void>((done, fail) => session.run(STREAM).subscribe({ onNext: () => void n++, onCompleted: () => done(), onError: fail }));
      seconds = (performance.now() - t0) / 1000;
      rows.push([`${fmt(n)}-row result over Bolt (fetch size 1,000)`, `${fmt(n / seconds)} rows/s`, `${fmt(seconds, 1)} s`]);
    } finally {
      await session.close();
    }
    return rows;
  } finally {
    await driver?.close();
    client.close();
    server.child.kill('SIGTERM');
    await exited(server.child);
  }
}
