import { expect } from 'chai';
import fc from 'fast-check';
import neo4j from 'neo4j-driver';
import type { Collection } from '../../../storage/collection.js';
import { comparePointIds, type PointId } from '../../../storage/point-id.js';
import { fieldTokens } from '../../../storage/views/fulltext-index.js';
import { IndexStats, relevantDoc, ScannedDoc, type AnalysedDoc } from '../../../query/cypher/fulltext/analysed-doc.js';
import { parseLuceneQuery } from '../../../query/cypher/fulltext/parser.js';
import { compileLuceneQuery } from '../../../query/cypher/fulltext/scorer.js';
import { cypherFailure, cypherGraph } from '../../helpers/cypher-graph.js';
import { call, useTestServer } from '../../helpers/http.js';

const LABELS = ['Doc', 'Note'];
const PROPERTIES = ['title', 'body'];
const INDEX = 'CREATE FULLTEXT INDEX texts FOR (n:Doc|Note) ON EACH [n.title, n.body]';
const SEARCH = 'CALL db.index.fulltext.queryNodes("texts", $q) YIELD node, score RETURN id(node) AS id, score';

/**
 * The brute-force answer: every live node of the labels analysed whole, the field statistics
 * gathered over all of them, each scored by the compiled query, best first (ties by id).
 */
function reference(c: Collection, text: string): [PointId, number][] {
  const query = parseLuceneQuery(text);
  if (query === null) return [];
  const stats = new IndexStats(PROPERTIES);
  const docs: { id: PointId; doc: AnalysedDoc }[] = [];
  const { store } = c;
  for (let slot = 0; slot < store.slotCount; slot++) {
    if (store.state[slot] !== 1 || !store.labels[slot]!.some((l) => LABELS.includes(l))) continue;
    const fields = fieldTokens(store.payloads[slot] ?? {}, PROPERTIES);
    if (!fields) continue;
    stats.add(fields);
    docs.push({ id: store.idOf(slot), doc: relevantDoc(fields, () => true) ?? new ScannedDoc() });
  }
  const scorer = compileLuceneQuery(query, stats);
  const out: [PointId, number][] = [];
  for (const { id, doc } of scorer ? docs : []) {
    const score = scorer!(doc);
    if (score !== null) out.push([id, score]);
  }
  return out.sort((a, b) => b[1] - a[1] || comparePointIds(a[0], b[0]));
}

function texts() {
  const g = cypherGraph();
  g.run(INDEX);
  const search = (q: string) => g.rows(SEARCH, { q }) as [PointId, number][];
  const ids = (q: string) => search(q).map((r) => r[0]);
  /** The procedure's answer, checked against the brute-force one (same nodes, same order, the same scores to the last bit). */
  const checked = (q: string) => {
    const got = search(q);
    expect(got, q).to.deep.equal(reference(g.c, q));
    return got.map((r) => r[0]);
  };
  return { ...g, search, ids, checked };
}

describe('query/cypher/fulltext: the full-text index kept as postings', () => {
  it('follows node creates, property sets and removals, label changes, deletes and detach deletes, each as committed', () => {
    const t = texts();
    expect(t.ids('matrix')).to.deep.equal([]);
    const [[a, b]] = t.rows("CREATE (a:Doc {title: 'The Matrix', body: 'red pill'}), (b:Note {title: 'Matrix notes', body: ['blue pill', 'red']}) RETURN id(a), id(b)") as [[number, number]];
    expect(t.checked('matrix')).to.have.members([a, b]);
    expect(t.checked('"red pill"')).to.deep.equal([a]);
    t.run("MATCH (n) WHERE id(n) = $a SET n.title = 'Reloaded'", { a });
    expect(t.checked('matrix')).to.deep.equal([b]);
    expect(t.checked('reloaded')).to.deep.equal([a]);
    t.run('MATCH (n) WHERE id(n) = $b REMOVE n:Note', { b });
    expect(t.checked('matrix')).to.deep.equal([]);
    expect(t.checked('pill')).to.deep.equal([a]);
    t.run('MATCH (n) WHERE id(n) = $b SET n:Doc', { b });
    expect(t.checked('matrix')).to.deep.equal([b]);
    t.run('MATCH (n) WHERE id(n) = $b REMOVE n.title, n.body', { b });
    expect(t.checked('*:*')).to.deep.equal([a]);
    t.run("MATCH (n) WHERE id(n) = $b SET n.body = 'matrix again'", { b });
    t.run("MATCH (n) WHERE id(n) = $a CREATE (n)-[:CITES]->(:Doc {title: 'cited matrix'})", { a });
    expect(t.checked('matrix')).to.have.length(2);
    t.run('MATCH (n) WHERE id(n) = $b DELETE n', { b });
    t.run('MATCH (n) WHERE id(n) = $a DETACH DELETE n', { a });
    expect(t.checked('matrix')).to.have.length(1);
    expect(t.checked('pill reloaded')).to.deep.equal([]);
    expect(t.checked('*:*')).to.have.length(1);
  });

  it('applies a statement of many writes as one change, and a transaction sees its own writes before they are committed', () => {
    const t = texts();
    t.run("CREATE (:Doc {title: 'alpha beta'}), (:Doc {title: 'alpha gamma'}), (:Note {body: 'gamma'})");
    t.run("MATCH (n:Doc) WHERE n.title CONTAINS 'beta' SET n.title = 'delta' WITH count(*) AS c MATCH (m:Note) DETACH DELETE m CREATE (:Note {title: 'alpha alpha'})");
    expect(t.checked('alpha')).to.have.length(2);
    expect(t.checked('gamma')).to.have.length(1);
    expect(t.checked('delta')).to.have.length(1);
    // Written in the query itself: read from the nodes as the query sees them.
    const seen = t.rows("CREATE (:Doc {title: 'zeta alpha'}) WITH 1 AS one CALL db.index.fulltext.queryNodes('texts', 'zeta OR alpha') YIELD node RETURN node.title ORDER BY node.title");
    expect(seen.map((r) => r[0])).to.deep.equal(['alpha alpha', 'alpha gamma', 'zeta alpha']);
    expect(t.checked('zeta')).to.have.length(1);
    // Nodes of other labels written first: the index is read as committed.
    const others = t.rows("CREATE (:Other {title: 'alpha'}) WITH 1 AS one CALL db.index.fulltext.queryNodes('texts', 'alpha') YIELD node, score RETURN id(node), score");
    expect(others).to.deep.equal(reference(t.c, 'alpha'));
    expect(t.checked('alpha')).to.have.length(3);
  });

  it('is left as it was by a statement that fails, and by one the constraints refuse', () => {
    const t = texts();
    t.run("CREATE (:Doc {title: 'kept', key: 1})");
    t.run('CREATE CONSTRAINT docKey FOR (d:Doc) REQUIRE d.key IS UNIQUE');
    const before = t.search('kept OR lost OR gone');
    cypherFailure(() => t.run("CREATE (:Doc {title: 'lost'}) WITH 1 AS one RETURN 1 / 0"));
    cypherFailure(() => t.run("MATCH (d:Doc) SET d.title = 'gone' CREATE (:Doc {title: 'lost', key: 1})"));
    expect(t.search('kept OR lost OR gone')).to.deep.equal(before);
    expect(t.checked('lost')).to.deep.equal([]);
  });

  it('answers every query form as the brute-force scan does, over random writes (fast-check)', function () {
    this.timeout(120_000);
    const words = ['alpha', 'alps', 'alpine', 'beta', 'bet', 'gamma', 'gamer', 'delta', 'x'];
    const text = fc.array(fc.constantFrom(...words), { maxLength: 8 }).map((w) => w.join(' '));
    const value = fc.oneof(text, fc.array(text, { maxLength: 3 }), fc.integer());
    const labels = fc.subarray(['Doc', 'Note', 'Other']);
    const write = fc.oneof(
      fc.record({ kind: fc.constant('create' as const), labels, title: fc.option(value), body: fc.option(value) }),
      fc.record({ kind: fc.constant('set' as const), at: fc.nat(), key: fc.constantFrom('title', 'body', 'other'), value }),
      fc.record({ kind: fc.constant('remove' as const), at: fc.nat(), key: fc.constantFrom('title', 'body') }),
      fc.record({ kind: fc.constant('label' as const), at: fc.nat(), label: fc.constantFrom('Doc', 'Note', 'Other'), add: fc.boolean() }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
    );
    const word = fc.constantFrom(...words);
    const field = fc.constantFrom('', 'title:', 'body:', 'other:');
    const clause = fc.oneof(
      fc.tuple(field, word).map(([f, w]) => f + w),
      fc.tuple(field, word, word, fc.nat(2)).map(([f, a, b, s]) => `${f}"${a} ${b}"${s ? `~${s}` : ''}`),
      fc.tuple(field, word).map(([f, w]) => `${f}${w.slice(0, 2)}*`),
      fc.tuple(field, word).map(([f, w]) => `${f}${w[0]}?${w.slice(2)}`),
      fc.tuple(field, word, fc.constantFrom('~', '~1', '~0')).map(([f, w, e]) => f + w + e),
      fc.tuple(field, word, word, fc.boolean()).map(([f, a, b, inclusive]) => (inclusive ? `${f}[${a} TO ${b}]` : `${f}{${a} TO *}`)),
      fc.constant('*:*'),
    );
    const query = fc.array(fc.tuple(fc.constantFrom('', '+', '-', 'NOT '), clause, fc.constantFrom('', '^2', '^0.5')), { minLength: 1, maxLength: 3 }).map((cs) => cs.map(([m, c, b]) => `${m}${c}${b}`).join(' '));
    const ids = (t: ReturnType<typeof texts>) => t.rows('MATCH (n) RETURN id(n) ORDER BY id(n)').map((r) => r[0] as number);
    fc.assert(
      fc.property(fc.array(write, { maxLength: 25 }), fc.array(query, { minLength: 1, maxLength: 6 }), (writes, queries) => {
        const t = texts();
        // Queried first, so the index's view is built empty and follows every write after.
        t.checked('alpha');
        for (const w of writes) {
          const live = ids(t);
          const id = live.length === 0 ? -1 : live[('at' in w ? w.at : 0) % live.length]!;
          if (w.kind === 'create') t.run(`CREATE (n${w.labels.map((l) => `:${l}`).join('')}) SET n.title = $title, n.body = $body`, { title: w.title, body: w.body });
          else if (id < 0) continue;
          else if (w.kind === 'set') t.run(`MATCH (n) WHERE id(n) = $id SET n.${w.key} = $value`, { id, value: w.value });
          else if (w.kind === 'remove') t.run(`MATCH (n) WHERE id(n) = $id REMOVE n.${w.key}`, { id });
          else if (w.kind === 'label') t.run(`MATCH (n) WHERE id(n) = $id ${w.add ? 'SET' : 'REMOVE'} n:${w.label}`, { id });
          else t.run('MATCH (n) WHERE id(n) = $id DETACH DELETE n', { id });
        }
        for (const q of queries) t.checked(q);
      }),
      { numRuns: 60 },
    );
  });
});

describe('server: full-text queries read the index as of the last write (REST, Bolt, Cypher replicas, restarts)', function () {
  this.timeout(120_000);
  const server = useTestServer({ SERVICE_CYPHER_WORKERS: '1' }, 'each');

  const rest = async (query: string, parameters: Record<string, unknown> = {}) => {
    const r = await call(server.url, 'POST', '/collections/g/graph/query', { query, parameters });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body.result.rows as unknown[][];
  };
  const search = (q: string) => rest('CALL db.index.fulltext.queryNodes("texts", $q) YIELD node, score RETURN node.title AS title, score', { q });

  it('finds a node written by one request in the next, on the request thread and on a replica', async () => {
    expect((await call(server.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
    await rest("CREATE (:Doc {title: 'first words'})");
    await rest(INDEX);
    expect((await search('words')).map((r) => r[0])).to.deep.equal(['first words']);
    await server.service.cypher.ready();
    for (let i = 0; i < 5; i++) {
      await rest('CREATE (:Note {title: $t})', { t: `note ${i} words` });
      expect(await search(`${i}`), `note ${i}`).to.have.length(1);
      await rest("MATCH (n:Doc) SET n.title = $t", { t: `first words ${i}` });
      expect((await search(`first AND ${i}`)).map((r) => r[0])).to.deep.equal([`first words ${i}`]);
    }
    // Points written on the REST points route are nodes too (labels in the payload).
    const put = await call(server.url, 'PUT', '/collections/g/points?wait=true', { points: [{ id: 1000, vector: [0, 0], payload: { title: 'pointed words' }, labels: ['Doc'] }] });
    expect(put.status).to.equal(200);
    expect((await search('pointed')).map((r) => r[0])).to.deep.equal(['pointed words']);
    expect((await call(server.url, 'POST', '/collections/g/points/delete?wait=true', { points: [1000] })).status).to.equal(200);
    expect(await search('pointed')).to.deep.equal([]);
  });

  it('takes in the nodes a merge import adds, and a replaced collection is indexed anew', async () => {
    for (const name of ['g', 'h']) expect((await call(server.url, 'PUT', `/collections/${name}`, { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
    await rest(INDEX);
    await rest("CREATE (:Doc {title: 'home words'})");
    expect(await search('words')).to.have.length(1);
    const points = [1, 2, 3].map((i) => ({ id: 100 + i, vector: [i, 0], payload: { title: `imported words ${i}` }, labels: ['Note'] }));
    expect((await call(server.url, 'PUT', '/collections/h/points?wait=true', { points })).status).to.equal(200);
    const exported = new Uint8Array(await (await fetch(`${server.url}/collections/h/export`)).arrayBuffer());
    const merged = await fetch(`${server.url}/collections/g/import?mode=merge`, { method: 'POST', body: exported, headers: { 'content-type': 'application/octet-stream' } });
    expect(merged.status).to.equal(200);
    expect((await search('words')).map((r) => r[0])).to.have.members(['home words', 'imported words 1', 'imported words 2', 'imported words 3']);
    expect((await search('imported AND 2')).map((r) => r[0])).to.deep.equal(['imported words 2']);
    const own = new Uint8Array(await (await fetch(`${server.url}/collections/g/export`)).arrayBuffer());
    await rest("MATCH (n:Note) DETACH DELETE n");
    expect(await search('imported')).to.deep.equal([]);
    const replaced = await fetch(`${server.url}/collections/g/import?mode=replace`, { method: 'POST', body: own, headers: { 'content-type': 'application/octet-stream' } });
    expect(replaced.status).to.equal(200);
    expect(await search('imported')).to.have.length(3);
  });

  it('follows a Bolt transaction as one change, and answers the same after a snapshot and a restart', async () => {
    expect((await call(server.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(200);
    await rest(INDEX);
    const driver = neo4j.driver(`bolt://127.0.0.1:${server.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'), { disableLosslessIntegers: true });
    try {
      const session = driver.session({ database: 'g' });
      try {
        const tx = await session.beginTransaction();
        await tx.run("UNWIND range(1, 20) AS i CREATE (:Doc {title: 'doc ' + i, body: CASE WHEN i % 2 = 0 THEN 'even words' ELSE 'odd words' END})");
        await tx.run("MATCH (d:Doc) WHERE d.title = 'doc 3' SET d.body = 'even now'");
        await tx.run("MATCH (d:Doc) WHERE d.title = 'doc 4' DELETE d");
        const inside = await tx.run("CALL db.index.fulltext.queryNodes('texts', 'even') YIELD node RETURN count(node) AS c");
        expect(inside.records[0]!.get('c')).to.equal(10);
        await tx.commit();
        const failed = await session.beginTransaction();
        await failed.run("CREATE (:Doc {title: 'rolled back even'})");
        await failed.rollback();
      } finally {
        await session.close();
      }
    } finally {
      await driver.close();
    }
    const answers = async () => ({ even: await search('even'), odd: await search('odd'), all: (await search('*:*')).length });
    const committed = await answers();
    expect(committed.even).to.have.length(10);
    expect(committed.odd).to.have.length(9);
    expect(committed.all).to.equal(19);
    await server.service.engine.snapshot();
    await rest("CREATE (:Doc {title: 'after the snapshot', body: 'odd'})");
    const later = await answers();
    expect(later.odd).to.have.length(10);
    await server.restart();
    expect(await answers()).to.deep.equal(later);
    await rest("MATCH (d:Doc {title: 'after the snapshot'}) DETACH DELETE d");
    expect(await answers()).to.deep.equal(committed);
  });
});
