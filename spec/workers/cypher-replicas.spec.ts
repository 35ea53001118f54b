import { expect } from 'chai';
import { jsonText } from '../../query/api/json-text.js';
import { logQueryResult } from '../../query/cypher/log-result.js';
import { toTypedJson } from '../../query/cypher/present.js';
import { compileQuery, executeQuery } from '../../query/cypher/run-query.js';
import { Engine } from '../../storage/engine/engine.js';
import { decodeSnapshot, encodeSnapshot, FRAME_BYTES } from '../../storage/snapshot/snapshot-codec.js';
import { MemoryLog } from '../../storage/log/memory-log.js';
import { CypherReplicas, CypherReplicaError } from '../../workers/cypher-replicas.js';
import { capturedParts } from '../helpers/captured-parts.js';

const config = { size: 2, distance: 'Euclid' as const, m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16) };
const LIMITS = { timeoutMs: 30_000, memoryBytes: 256 * 2 ** 20 };

/** Runs a query on a replica (which must take it) and answers its rows as JSON text. */
async function onReplica(replicas: CypherReplicas, text: string, parameters: Record<string, unknown> = {}): Promise<string> {
  const answer = replicas.run('g', compileQuery(text), text, parameters, LIMITS);
  expect(answer, `a replica takes ${text}`).to.not.equal(null);
  return (await answer!).rowsJson;
}

/**
 * Sends while a read holds the request thread, so that the query goes to a replica still loading
 * its state (a free request thread would take it) and waits there for the state.
 */
function sentWhileLoading<T>(replicas: CypherReplicas, send: () => T): T {
  let sent!: T;
  // inPlaceRun counts the read and calls `send` at once, in this turn.
  void replicas.inPlaceRun(async () => {
    sent = send();
  });
  return sent;
}

const inPlace = (engine: Engine, text: string, parameters: Record<string, unknown> = {}): string =>
  jsonText(executeQuery(engine.collections.get('g')!, compileQuery(text), parameters, LIMITS, { present: toTypedJson }).rows);

async function write(engine: Engine, text: string): Promise<void> {
  await logQueryResult(engine, 'g', executeQuery(engine.collections.get('g')!, compileQuery(text), {}));
}

describe('workers: Cypher replicas hold a copy of the views, fed the applied log entries', function () {
  this.timeout(60_000);
  let engine: Engine;
  let replicas: CypherReplicas;

  beforeEach(async () => {
    engine = new Engine(new MemoryLog());
    await engine.submit({ type: 'create_collection', name: 'g', config });
    await write(engine, "UNWIND range(1, 50) AS i CREATE (:N {i: i, half: i / 2.0, d: date('2024-01-01') + duration({days: i})})");
    await write(engine, 'MATCH (a:N), (b:N) WHERE b.i = a.i + 1 CREATE (a)-[:NEXT {w: a.i * 0.5}]->(b)');
  });

  afterEach(async () => {
    await replicas.close();
    await engine.close();
  });

  it('answers what the query answers in place, from the state at start and the entries applied after', async () => {
    replicas = new CypherReplicas(engine, 2);
    await replicas.ready();
    const queries = ['MATCH (n:N) RETURN n ORDER BY n.i LIMIT 5', 'MATCH p = (a:N {i: 3})-[:NEXT*2]->(b) RETURN p, b.d', 'MATCH (n:N) RETURN sum(n.half) AS s, collect(n.d)[0] AS first'];
    for (const q of queries) expect(await onReplica(replicas, q), q).to.equal(inPlace(engine, q));
    await write(engine, 'MATCH (n:N) WHERE n.i > 40 DETACH DELETE n');
    await write(engine, "CREATE (:M {name: 'late'})");
    for (const q of [...queries, 'MATCH (m:M) RETURN m.name', 'MATCH (n) RETURN count(n)']) expect(await onReplica(replicas, q), q).to.equal(inPlace(engine, q));
    expect(replicas.answered).to.equal(8);
  });

  it('keeps the entries applied while its state is encoded in slices, and applies them after it', async () => {
    await write(engine, "UNWIND range(1, 20000) AS i CREATE (:Big {i: i, s: 'some text ' + toString(i)})");
    replicas = new CypherReplicas(engine, 1);
    const first = sentWhileLoading(replicas, () => onReplica(replicas, 'MATCH (n:M) RETURN count(n)'));
    // One turn: the state is captured, and its encoding has reached its first pause.
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 5; i++) await write(engine, "CREATE (:M {name: 'during'})");
    // It may see the writes too: they were applied before it ran.
    expect(['[[0]]', '[[1]]', '[[2]]', '[[3]]', '[[4]]', '[[5]]']).to.include(await first);
    // Had the entries that came before the state been dropped, this would wait for them until its deadline.
    expect(await onReplica(replicas, 'MATCH (n:M) RETURN count(n)')).to.equal('[[5]]');
  });

  it('waits for the operation applied when the query came: a write applied in the same turn is seen though its entry is sent after the query', async () => {
    replicas = new CypherReplicas(engine, 1);
    await replicas.ready();
    expect(await onReplica(replicas, 'MATCH (n:M) RETURN count(n)')).to.equal('[[0]]');
    for (let i = 1; i <= 5; i++) {
      // Applied at once (an in-memory log), in this turn: its entry goes out to the replica only at the turn's end.
      engine.submitSync({ type: 'graph_write', collection: 'g', changes: executeQuery(engine.collections.get('g')!, compileQuery("CREATE (:M {name: 'x'})"), {}).changes });
      expect(await onReplica(replicas, 'MATCH (n:M) RETURN count(n)')).to.equal(`[[${i}]]`);
    }
  });

  it('runs queries on every replica at once, and leaves the rest to the request thread while it runs none', async () => {
    replicas = new CypherReplicas(engine, 2);
    await replicas.ready();
    const long = 'UNWIND range(1, 3000000) AS x RETURN count(x)';
    const first = onReplica(replicas, long);
    const second = onReplica(replicas, long);
    expect(replicas.inFlight).to.equal(2);
    expect(replicas.threads()).to.have.length(2);
    expect(replicas.run('g', compileQuery('RETURN 1'), 'RETURN 1', {}, LIMITS), 'every replica busy, the request thread free').to.equal(null);
    const third = replicas.inPlaceRun(async () => {
      expect(replicas.run('g', compileQuery('RETURN 1'), 'RETURN 1', {}, LIMITS), 'the request thread busy too: to a replica').to.not.equal(null);
    });
    await third;
    expect(await Promise.all([first, second])).to.deep.equal(['[[3000000]]', '[[3000000]]']);
  });

  it('leaves a read to the request thread while the replica loads its state, when the request thread runs none', async () => {
    await write(engine, "UNWIND range(1, 20000) AS i CREATE (:Big {i: i, s: 'some text ' + toString(i)})");
    replicas = new CypherReplicas(engine, 1);
    expect(replicas.run('g', compileQuery('RETURN 1'), 'RETURN 1', {}, LIMITS), 'loading, the request thread free').to.equal(null);
    expect(replicas.threads(), 'the first read started the replica').to.have.length(1);
    await replicas.ready();
    expect(await onReplica(replicas, 'MATCH (n:Big) RETURN count(n)')).to.equal('[[20000]]');
  });

  it('holds no HNSW links, and answers as in place through deletes and new vectors of points the request thread linked', async () => {
    const v = { ...config, size: 4, m: 8, m0: 16 };
    await engine.submit({ type: 'create_collection', name: 'v', config: v });
    const vector = (i: number, k = 0) => Float32Array.of(Math.sin(i + k), Math.cos(i), i % 3, 1);
    await engine.submit({ type: 'upsert_points', collection: 'v', points: Array.from({ length: 300 }, (_, i) => ({ id: i, vector: vector(i), payload: { k: i }, labels: ['P'] })) });
    const linked = engine.collections.get('v')!;
    while (linked.indexSome(10_000));
    expect(linked.index.nodeCount).to.equal(300);
    // The replica's state is what a snapshot without links holds: every point, no node of any graph.
    const [name, copy] = [...decodeSnapshot(capturedParts(engine.collections, engine.lastAppliedOperationId, FRAME_BYTES, false)).collections].find(([n]) => n === 'v')!;
    expect([name, copy.index.nodeCount, [...copy.store.sortedIds()].length]).to.deep.equal(['v', 0, 300]);
    replicas = new CypherReplicas(engine, 1);
    await replicas.ready();
    const withLinks = encodeSnapshot(engine.collections, engine.lastAppliedOperationId).reduce((n, c) => n + c.length, 0);
    const links0 = 300 * (v.m0 + 1) * 4;
    expect(replicas.stateBytes, 'the replica was sent no links').to.be.at.most(withLinks - links0);
    await engine.submit({ type: 'delete_points', collection: 'v', ids: Array.from({ length: 50 }, (_, i) => i) });
    await engine.submit({ type: 'upsert_points', collection: 'v', points: Array.from({ length: 50 }, (_, i) => ({ id: 50 + i, vector: vector(50 + i, 1), payload: { k: -i }, labels: ['P'] })) });
    const queries = ['MATCH (n:P) RETURN count(n)', 'MATCH (n:P) WHERE n.k < 3 RETURN n.k, n.vector ORDER BY n.k', 'MATCH (n:P) WHERE n.k IN [120, 299] RETURN n.k, vector.similarity.cosine(n.vector, [1.0, 0.0, 0.0, 1.0]) AS s ORDER BY n.k'];
    for (const q of queries) {
      const answer = replicas.run('v', compileQuery(q), q, {}, LIMITS);
      expect(answer, q).to.not.equal(null);
      expect((await answer!).rowsJson, q).to.equal(jsonText(executeQuery(engine.collections.get('v')!, compileQuery(q), {}, LIMITS, { present: toTypedJson }).rows));
    }
  });

  it('leaves vector searches, and everything when it has no replica, to the request thread', async () => {
    replicas = new CypherReplicas(engine, 1);
    for (const q of ['MATCH (n) WHERE n.embedding <-> [0.0, 0.0] < 1 RETURN n', "CALL db.index.vector.queryNodes('i', 3, [0.0, 0.0]) YIELD node RETURN node"]) {
      expect(replicas.run('g', compileQuery(q), q, {}, LIMITS), q).to.equal(null);
    }
    await replicas.close();
    replicas = new CypherReplicas(engine, 0);
    expect(replicas.run('g', compileQuery('RETURN 1'), 'RETURN 1', {}, LIMITS)).to.equal(null);
    expect(replicas.threads()).to.deep.equal([]);
    expect(() => new CypherReplicas(engine, 17)).to.throw(RangeError, /0 to 16/);
  });

  it('runs every query on the request thread once the views cannot be sent to a replica, failing those sent', async () => {
    replicas = new CypherReplicas(engine, 1);
    engine.collections.get('g')!.capture = () => {
      throw new Error('cannot encode');
    };
    let failure: unknown = null;
    await sentWhileLoading(replicas, () => onReplica(replicas, 'RETURN 1')).catch((err: unknown) => (failure = err));
    expect(failure).to.be.instanceOf(CypherReplicaError);
    expect((failure as Error).message).to.equal('the views could not be sent to a Cypher replica: cannot encode');
    expect(replicas.failure?.message).to.equal('cannot encode');
    expect(replicas.run('g', compileQuery('RETURN 1'), 'RETURN 1', {}, LIMITS)).to.equal(null);
    expect(replicas.replaced).to.equal(0);
  });

  it('fails the queries of a replica that stops with a CypherReplicaError, and answers the next from a new copy', async () => {
    replicas = new CypherReplicas(engine, 1);
    await replicas.ready();
    const runaway = onReplica(replicas, 'UNWIND range(1, 1000000000) AS x RETURN count(x)');
    const [thread] = replicas.threads();
    await thread!.terminate();
    let failure: unknown = null;
    await runaway.catch((err: unknown) => (failure = err));
    expect(failure).to.be.instanceOf(CypherReplicaError);
    expect((failure as Error).message).to.match(/the Cypher replica stopped/);
    expect(replicas.replaced).to.equal(1);
    await write(engine, "CREATE (:M {name: 'after'})");
    await replicas.ready();
    expect(await onReplica(replicas, 'MATCH (m:M) RETURN m.name')).to.equal('[["after"]]');
    expect(replicas.threads()[0]).to.not.equal(thread);
  });
});
