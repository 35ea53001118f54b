import { expect } from 'chai';
import fc from 'fast-check';
import { craftedImport } from '../../tools/crash-test/crafted-import.js';
import { exited, spawnServer, type ChildServer } from '../helpers/child-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runToolProcess } from '../tools/tool-process.js';

/** Generous, past the server's own 30 s Cypher deadline: a request still unanswered after this is a hang, and fails the property. */
const ANSWER_WITHIN_MS = 45_000;
const ENV = { SERVICE_QUERY_MEMORY_MB: '8', SERVICE_SNAPSHOT_EVERY: '25' };
const CONFIG = { size: 2, distance: 'Euclid' as const, m: 8, m0: 16, efConstruct: 32, ml: 0.5 };

const ODD_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '', '.', 'a.b', '[0]', 'ключ', '💥', '\u0000', '\ud800', 'k'.repeat(300)];

/** Payload JSON text: arbitrary values with odd keys, values nested up to thousands deep (as text), long strings. */
const payloadText: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
  fc.dictionary(fc.oneof(fc.constantFrom(...ODD_KEYS), fc.string({ unit: 'grapheme' })), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 8 }).map((v) => JSON.stringify(v)),
  fc.record({ levels: fc.integer({ min: 1, max: 5000 }), open: fc.constantFrom('[', '{"a":', '{"__proto__":', '[{"constructor":'), leaf: fc.constantFrom('1', '"x"', 'null', '[]', '{}') }).map(({ levels, open, leaf }) => {
    const close = open.startsWith('[{') ? '}]' : open.startsWith('[') ? ']' : '}';
    return `{"deep":${open.repeat(levels)}${leaf}${close.repeat(levels)}}`;
  }),
  fc.record({ length: fc.integer({ min: 0, max: 1_100_000 }), char: fc.constantFrom('x', 'é', '😀', '"', '\\') }).map(({ length, char }) => JSON.stringify({ text: char.repeat(Math.ceil(length / char.length)) })),
);

const FRAGMENTS = [
  'MATCH (n)', 'MATCH (a)-[r]->(b)', 'OPTIONAL MATCH (n)<-[:T*1..3]-(m)', 'WHERE', 'RETURN', 'WITH', 'UNWIND', 'AS x', 'AS n', 'count(*)', 'collect(x)', 'range(1, 1000000)', 'range(1, 2000)',
  'n.a', 'n.__proto__', 'n.constructor', 'x', '$p', '$constructor', "'s'", '1', '-1', '0.5', 'null', 'true', 'NOT', '+', '-', '*', '/', '%', '=', '<>', 'AND', 'OR', 'IN', '(', ')', '[', ']', '{', '}', ':',
  ',', '.', '..', 'SET n.a = 1', 'SET n += {b: 2}', 'CREATE (m {a: 1})', 'DELETE n', 'DETACH DELETE n', 'REMOVE n.a', 'MERGE (m {a: 2})', 'ORDER BY x', 'DESC', 'SKIP 1', 'LIMIT 5', 'CASE', 'WHEN', 'THEN', 'ELSE', 'END',
  'id(n)', 'size(x)', 'keys(n)', 'toString(x)', 'reduce(s = 0, i IN x | s + i)', '[i IN x | i * 2]', 'UNION', 'CALL', 'exists(n.a)', 'x + x', "'\u0000'", '`odd name`', '💥',
];

/** Cypher text: fragments recombined, nesting thousands deep, long lists, memory attacks of random size. */
const cypherText: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 30 }).map((parts) => parts.join(' ')),
  fc.record({ levels: fc.integer({ min: 1, max: 20_000 }), open: fc.constantFrom('(', '[', 'NOT ', '- ', '{a: ', 'size(', '[x IN ') }).map(({ levels, open }) => {
    const close = { '(': ')', '[': ']', 'NOT ': '', '- ': '', '{a: ': '}', 'size(': ')', '[x IN ': ' | x]' }[open]!;
    const leaf = open === '[x IN ' ? '[1]' : open === 'NOT ' ? 'true' : '1';
    return `RETURN ${open.repeat(levels)}${leaf}${close.repeat(levels)} AS v`;
  }),
  fc.record({ length: fc.integer({ min: 0, max: 50_000 }), operator: fc.constantFrom(', ', ' + ', ' - ', ' AND ') }).map(({ length, operator }) =>
    operator === ', ' ? `RETURN [${Array(length).fill('1').join(operator)}] AS l` : `RETURN ${Array(length + 1).fill('1').join(operator)} AS v`,
  ),
  // Lists past the memory budget are refused at once; those within it stay small, so that rows × width (the work) stays cheap.
  fc.record({ rows: fc.integer({ min: 1, max: 5000 }), width: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1_000_000, max: 1_000_000_000 })), write: fc.boolean() }).map(
    ({ rows, width, write }) => `${write ? 'MATCH (n) SET n.hit = 1 WITH count(n) AS c ' : ''}UNWIND range(1, ${rows}) AS i WITH i, range(1, ${width}) AS r RETURN count(*)`,
  ),
);

describe('server: poison payloads and Cypher text (property-based, a server process)', function () {
  this.timeout(120_000);
  let dir: ReturnType<typeof tempDir>;
  let server: ChildServer;
  const statuses = new Map<number, number>();

  /** One request; fails when it answers 5xx, or answers nothing within ANSWER_WITHIN_MS. */
  async function send(method: string, path: string, body: string | Uint8Array<ArrayBuffer>, contentType = 'application/json'): Promise<number> {
    const what = `${method} ${path} ${body.length} bytes: ${Buffer.from(body).toString().slice(0, 200)}`;
    let res: Response;
    try {
      res = await fetch(server.url + path, { method, headers: { 'Content-Type': contentType }, body, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
    } catch (err) {
      throw new Error(`no answer within ${ANSWER_WITHIN_MS} ms (${(err as Error).message}) to ${what}`);
    }
    const text = await res.text();
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    expect(res.status, `${what} -> ${text.slice(0, 300)}`).to.be.below(500);
    return res.status;
  }

  before(async () => {
    dir = tempDir('vgdb-poison-');
    server = await spawnServer(dir.path, ENV);
    expect(await send('PUT', '/collections/c', JSON.stringify({ vectors: { size: 2, distance: 'Euclid' } }))).to.equal(200);
  });

  after(async () => {
    if (server !== undefined && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await exited(server.child);
    }
    dir.remove();
  });

  it('answers random payloads by upsert, by import and as Cypher parameters with no 5xx and no hang', async () => {
    let id = 0;
    await fc.assert(
      fc.asyncProperty(payloadText, fc.constantFrom('merge', 'create'), async (payload, mode) => {
        id++;
        await send('PUT', '/collections/c/points', `{"points":[{"id":${id},"vector":[${id},1],"payload":${payload}}]}`);
        const file = new Uint8Array(craftedImport(CONFIG, [{ id: 1_000_000 + id, vector: [1, id], payloadJson: payload }]));
        await send('POST', `/collections/${mode === 'merge' ? 'c' : `imported-${id}`}/import?mode=${mode}`, file, 'application/octet-stream');
        await send('POST', '/collections/c/graph/query', `{"query":"RETURN $p AS p","parameters":{"p":${payload}}}`);
      }),
      { numRuns: 40, seed: 20261124 },
    );
    expect(statuses.get(200), 'some payloads are taken').to.be.above(0);
    expect(statuses.get(400), 'some are refused').to.be.above(0);
  });

  it('answers random Cypher text with no 5xx and no hang', async () => {
    await fc.assert(
      fc.asyncProperty(cypherText, async (query) => {
        await send('POST', '/collections/c/graph/query', JSON.stringify({ query, parameters: { p: [1, 2, 3] } }));
      }),
      { numRuns: 80, seed: 11_24 },
    );
  });

  it('leaves a data dir that starts again, becomes ready, and passes `replay verify`', async () => {
    server.child.kill('SIGTERM');
    expect(await exited(server.child)).to.equal(0);
    server = await spawnServer(dir.path, ENV);
    while ((await fetch(`${server.url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 50));
    expect((await fetch(`${server.url}/collections/c`)).status).to.equal(200);
    server.child.kill('SIGTERM');
    expect(await exited(server.child)).to.equal(0);
    const verify = runToolProcess('replay', ['verify', '--data-dir', dir.path]);
    expect(verify.code, verify.out + verify.err).to.equal(0);
  });
});
