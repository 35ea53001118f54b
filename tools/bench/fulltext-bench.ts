import { Collection } from '../../storage/collection.js';
import { applyEvent } from '../../storage/engine/apply-event.js';
import type { PointRecord } from '../../storage/events/types.js';
import { compileQuery, executeQuery } from '../../query/cypher/run-query.js';
import { wholeNumber } from '../lib/args.js';
import { runTool } from '../lib/run-tool.js';

const USAGE = `usage: node dist/tools/bench/fulltext-bench.js [--nodes N] [--words W] [--runs R]
A benchmark, not a test: db.index.fulltext.queryNodes in process on N nodes (20,000) labelled
Doc, each with a 3-word title and a W-word body (30) drawn from 5,000 made-up words (skewed, so
some are common), under a full-text index on both. Prints the CPU milliseconds of the first query
(which builds the index's postings when it is kept as a view) and the median of R runs (20) of
each query form. Run node with --expose-gc for the heap figure (the memory the first query left
behind: the index's postings when it is kept as a view).`;

const VOCABULARY = 5000;

/** A deterministic generator (mulberry32), so every run indexes the same text. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function madeUpWords(rand: () => number): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const out = new Set<string>();
  while (out.size < VOCABULARY) {
    const length = 3 + Math.floor(rand() * 7);
    let w = '';
    for (let i = 0; i < length; i++) w += letters[Math.floor(rand() * letters.length)];
    out.add(w);
  }
  return [...out];
}

const QUERIES: [string, (v: string[]) => string][] = [
  ['common term', (v) => v[3]!],
  ['rare term', (v) => v[3000]!],
  ['two terms', (v) => `${v[10]} ${v[400]}`],
  ['phrase', (v) => `"${v[0]} ${v[1]}"`],
  ['field term', (v) => `title:${v[7]}`],
  ['boolean', (v) => `+${v[2]} -${v[5]}`],
  ['prefix', (v) => `${v[20]!.slice(0, 2)}*`],
  ['wildcard', (v) => `${v[30]!.slice(0, 1)}?${v[30]!.slice(2)}`],
  ['fuzzy', (v) => `${v[50]}~1`],
  ['range', (v) => `[${v[60]} TO ${v[61]}]`],
];

const FLAGS = { nodes: wholeNumber({ min: 1 }, 20_000), words: wholeNumber({ min: 1 }, 30), runs: wholeNumber({ min: 1 }, 20) };

runTool({ name: 'fulltext-bench', usage: USAGE, flags: FLAGS }, async ({ values }) => {
  const { nodes, words: bodyWords, runs } = values;
  const rand = random(7);
  const vocabulary = madeUpWords(rand);
  // Skewed: word k is drawn about as often as 1 / (k + 1).
  const word = () => vocabulary[Math.floor(Math.exp(rand() * Math.log(VOCABULARY + 1))) - 1]!;
  const text = (n: number) => Array.from({ length: n }, word).join(' ');
  const collections = new Map<string, Collection>();
  applyEvent(collections, 1, { type: 'create_collection', name: 'g', config: { size: 0, distance: 'Cosine', m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16) } });
  const c = collections.get('g')!;
  const points: PointRecord[] = Array.from({ length: nodes }, (_, id) => ({ id, vector: null, payload: { title: text(3), body: text(bodyWords) }, labels: ['Doc'] }));
  applyEvent(collections, 2, { type: 'upsert_points', collection: 'g', points });
  const schema = executeQuery(c, compileQuery('CREATE FULLTEXT INDEX docs FOR (d:Doc) ON EACH [d.title, d.body]'), {}).schema!;
  applyEvent(collections, 3, { type: 'collection_settings', collection: 'g', settings: schema });
  const query = compileQuery('CALL db.index.fulltext.queryNodes("docs", $q) YIELD node, score RETURN count(node) AS hits, max(score) AS best');
  // CPU time of this thread, not wall time: a machine shared with other work slows the wall clock, not this.
  const time = (q: string) => {
    const start = process.cpuUsage();
    const rows = executeQuery(c, query, { q }).rows;
    const used = process.cpuUsage(start);
    return { ms: (used.user + used.system) / 1000, hits: rows[0]![0] };
  };
  const heap = () => {
    globalThis.gc?.();
    return process.memoryUsage().heapUsed;
  };
  const before = heap();
  const first = time(vocabulary[3]!);
  const grown = (heap() - before) / 2 ** 20;
  console.log(`${nodes} nodes of ${bodyWords} + 3 words; first query ${first.ms.toFixed(1)} CPU ms, heap ${grown.toFixed(1)} MiB larger after it`);
  console.log('| query | text | hits | median CPU ms |\n|---|---|---|---|');
  for (const [name, make] of QUERIES) {
    const q = make(vocabulary);
    const times: number[] = [];
    let hits: unknown = 0;
    for (let r = 0; r < runs; r++) ({ ms: times[r], hits } = time(q));
    times.sort((a, b) => a - b);
    console.log(`| ${name} | \`${q}\` | ${String(hits)} | ${times[runs >> 1]!.toFixed(2)} |`);
  }
  return 0;
});
