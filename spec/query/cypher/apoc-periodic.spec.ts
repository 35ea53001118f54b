import { expect } from 'chai';
import { Collection } from '../../../storage/collection.js';
import { applyEvent } from '../../../storage/engine/apply-event.js';
import { CypherError } from '../../../query/cypher/errors.js';
import type { GraphTx } from '../../../query/cypher/graph-tx.js';
import { compileQuery, executeQuery, executeQueryInSlices } from '../../../query/cypher/run-query.js';
import { call } from '../../helpers/http.js';
import { useCypherSuite } from '../../helpers/cypher-suite.js';

/** apoc.periodic.iterate and apoc.periodic.commit through the server: each batch its own log entry, surviving a restart. */
describe('query/cypher: apoc.periodic (batches committed one by one)', () => {
  const { server, bolt, query } = useCypherSuite();
  /** The rows as objects by column name; fails the test on an error answer. */
  const records = async (q: string, parameters: Record<string, unknown> = {}) => {
    const res = await query(q, parameters);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const { columns, rows } = res.body.result as { columns: string[]; rows: unknown[][] };
    return rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]]))) as Record<string, any>[];
  };
  const opId = () => server.service.engine.lastAppliedOperationId;

  beforeEach(async () => {
    await call(server.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Cosine' } });
    await records('UNWIND range(1, 10) AS i CREATE (:Item {i: i, zero: CASE WHEN i = 5 THEN 0 ELSE 1 END})');
  });

  describe('apoc.periodic.iterate', () => {
    it("runs the second statement over the first's rows in batches, one log entry a batch, with APOC's columns", async () => {
      const before = opId();
      const [r] = await records(`CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n', 'SET n.done = true', {batchSize: 3})`);
      expect(opId() - before).to.equal(4);
      expect(Object.keys(r!)).to.deep.equal(['batches', 'total', 'timeTaken', 'committedOperations', 'failedOperations', 'failedBatches', 'retries', 'errorMessages', 'batch', 'operations', 'wasTerminated', 'failedParams', 'updateStatistics']);
      expect(r).to.deep.include({ batches: 4, total: 10, committedOperations: 10, failedOperations: 0, failedBatches: 0, retries: 0, errorMessages: {}, wasTerminated: false, failedParams: {} });
      expect(r!.batch).to.deep.equal({ total: 4, failed: 0, committed: 4, errors: {} });
      expect(r!.operations).to.deep.equal({ total: 10, failed: 0, committed: 10, errors: {} });
      expect(r!.updateStatistics).to.deep.equal({ nodesCreated: 0, nodesDeleted: 0, relationshipsCreated: 0, relationshipsDeleted: 0, propertiesSet: 10, labelsAdded: 0, labelsRemoved: 0 });
      expect(await records('MATCH (n:Item) WHERE n.done RETURN count(n) AS c')).to.deep.equal([{ c: 10 }]);
    });

    it('reports a failing batch in errorMessages and keeps the batches that committed, across a restart', async () => {
      const [r] = await records(`CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n ORDER BY n.i', 'SET n.x = 10 / n.zero', {batchSize: 2, failedParams: 0, retries: 1})`);
      expect(r).to.deep.include({ batches: 5, total: 10, committedOperations: 8, failedBatches: 1, retries: 1, failedOperations: 4 });
      const messages = Object.keys(r!.errorMessages);
      expect(messages).to.have.length(1);
      expect(messages[0]).to.match(/by zero/);
      // Two attempts of the batch of i = 5 and 6 failed; the batch failed once.
      expect(Object.values(r!.errorMessages)).to.deep.equal([2]);
      expect(r!.batch.errors).to.deep.equal({ [messages[0]!]: 1 });
      expect(r!.failedParams['2'].map((p: { n: { properties: { i: number } } }) => p.n.properties.i)).to.deep.equal([5]);
      await server.restart();
      const rows = await records('MATCH (n:Item) RETURN n.i AS i, n.x AS x ORDER BY i');
      expect(rows.map((x) => x.x)).to.deep.equal([10, 10, 10, 10, null, null, 10, 10, 10, 10]);
    });

    it('reads the outer columns as parameters ($col AS), one row at a time with iterateList: false, and params', async () => {
      await records(`CALL apoc.periodic.iterate('MATCH (n:Item) WHERE n.i <= $top RETURN n.i AS i', 'WITH $i AS i MATCH (m:Item {i: i}) SET m.tag = $tag + i', {batchSize: 2, params: {top: 3, tag: 't'}})`);
      await records(`CALL apoc.periodic.iterate('MATCH (n:Item) WHERE n.i > 8 RETURN n.i AS i', 'MATCH (m:Item {i: i}) SET m.tag = "single"', {iterateList: false})`);
      await records(`CALL apoc.periodic.iterate('MATCH (n:Item) WHERE n.i IN [4, 5] RETURN n', 'UNWIND $_batch AS row WITH row.n AS n SET n.tag = "unwound"', {batchMode: 'BATCH_SINGLE'})`);
      const rows = await records('MATCH (n:Item) WHERE n.tag IS NOT NULL RETURN n.i AS i, n.tag AS tag ORDER BY i');
      expect(rows).to.deep.equal([
        { i: 1, tag: 't1' },
        { i: 2, tag: 't2' },
        { i: 3, tag: 't3' },
        { i: 4, tag: 'unwound' },
        { i: 5, tag: 'unwound' },
        { i: 9, tag: 'single' },
        { i: 10, tag: 'single' },
      ]);
    });

    it('creates in batches, and later clauses of the query see what the batches wrote', async () => {
      const rows = await records(`CALL apoc.periodic.iterate('UNWIND range(1, 5) AS k RETURN k', 'CREATE (:Made {k: k})', {batchSize: 2}) YIELD batches
        CREATE (:Log {batches: batches}) WITH batches MATCH (m:Made) RETURN batches, count(m) AS made`);
      expect(rows).to.deep.equal([{ batches: 3, made: 5 }]);
      await server.restart();
      expect(await records('MATCH (m:Made) WITH count(m) AS made MATCH (l:Log) RETURN made, l.batches AS b')).to.deep.equal([{ made: 5, b: 3 }]);
    });

    it('refuses a call after writes of the same query, inside apoc.do.when, and unknown configuration, and logs nothing', async () => {
      const before = opId();
      const after = await query(`CREATE (:X) WITH 1 AS one CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n', 'SET n.y = 1', {}) YIELD batches RETURN batches`);
      expect(after.status).to.equal(400);
      expect(after.body.message).to.match(/Failed to invoke procedure `apoc.periodic.iterate`: Caused by: java.lang.RuntimeException: .*cannot follow writes/);
      const nested = await query(`CALL apoc.do.when(true, "CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n', 'SET n.y = 1', {}) YIELD batches RETURN batches", '', {}) YIELD value RETURN value`);
      expect(nested.status).to.equal(400);
      expect(nested.body.message).to.match(/cannot do here/);
      const unknown = await query(`CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n', 'SET n.y = 1', {batchSise: 10})`);
      expect(unknown.body.message).to.match(/unknown configuration key 'batchSise'/);
      expect(opId()).to.equal(before);
    });
  });

  describe('apoc.periodic.commit', () => {
    it('runs the statement until it reports no updates, each run its own log entry', async () => {
      const before = opId();
      const [r] = await records(`CALL apoc.periodic.commit('MATCH (n:Item) WHERE n.flag IS NULL WITH n LIMIT $limit SET n.flag = 1 RETURN count(*)', {limit: 3})`);
      expect(r).to.deep.equal({ updates: 10, executions: 4, runtime: 0, batches: 5, failedBatches: 0, batchErrors: {}, failedCommits: 0, commitErrors: {}, wasTerminated: false });
      expect(opId() - before).to.equal(4);
      expect(await records('MATCH (n:Item) WHERE n.flag = 1 RETURN count(n) AS c')).to.deep.equal([{ c: 10 }]);
    });

    it('refuses a statement without LIMIT, and reports a failing run in batchErrors', async () => {
      const res = await query(`CALL apoc.periodic.commit('MATCH (n:Item) SET n.flag = 1 RETURN count(*)')`);
      expect(res.body.message).to.include('the statement sent to apoc.periodic.commit must contain a `limit`');
      const [r] = await records(`CALL apoc.periodic.commit('MATCH (n:Item) WHERE n.i >= 5 WITH n ORDER BY n.i LIMIT 2 SET n.q = 1 / n.zero RETURN count(*)')`);
      expect(r).to.deep.include({ updates: 0, executions: 0, batches: 1, failedBatches: 1 });
      expect(Object.keys(r!.batchErrors)[0]).to.match(/by zero/);
    });
  });

  describe('over Bolt (neo4j-driver)', () => {
    it('runs in an auto-commit query and in a managed transaction that has not written, and SHOW PROCEDURES lists the procedures', async () => {
      const d = bolt();
      const database = { database: 'g' };
      const auto = await d.executeQuery(`CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n', 'SET n.b = 1', {batchSize: 4}) YIELD batches, committedOperations RETURN batches, committedOperations`, {}, database);
      expect(auto.records.map((x) => [x.get('batches').toNumber(), x.get('committedOperations').toNumber()])).to.deep.equal([[3, 10]]);
      const session = d.session(database);
      try {
        const inTx = await session.executeWrite(async (tx) => {
          const r = await tx.run(`CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n', 'SET n.c = 2', {batchSize: 5}) YIELD batches RETURN batches`);
          await tx.run('CREATE (:AfterBatches)');
          return r.records[0]!.get('batches').toNumber();
        });
        expect(inTx).to.equal(2);
        const refused = await session
          .executeWrite(async (tx) => {
            await tx.run('CREATE (:First)');
            await tx.run(`CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n', 'SET n.c = 3', {}) YIELD batches RETURN batches`);
          })
          .then(
            () => null,
            (e: Error) => e.message,
          );
        expect(refused).to.match(/cannot follow writes/);
      } finally {
        await session.close();
      }
      const counts = await d.executeQuery('MATCH (n:Item) RETURN sum(n.b) AS b, sum(n.c) AS c, COUNT { (:AfterBatches) } AS after, COUNT { (:First) } AS first', {}, database);
      expect(['b', 'c', 'after', 'first'].map((k) => counts.records[0]!.get(k).toNumber())).to.deep.equal([10, 20, 1, 0]);
      const listed = await d.executeQuery('SHOW PROCEDURES YIELD name, mode WHERE name STARTS WITH "apoc.periodic" OR name STARTS WITH "apoc.path" RETURN name, mode', {}, database);
      expect(listed.records.map((x) => `${x.get('name')}:${x.get('mode')}`)).to.include.members(['apoc.periodic.iterate:WRITE', 'apoc.periodic.commit:WRITE', 'apoc.path.expand:READ', 'apoc.path.subgraphAll:READ']);
    });
  });

  describe('on a default database not made yet (neo4j-driver)', () => {
    it('makes the database with the first batch that writes, each batch still its own entry', async () => {
      const d = bolt();
      expect(server.service.engine.collections.has('neo4j'), 'the default database is made by its first write').to.equal(false);
      const before = opId();
      const r = await d.executeQuery(`CALL apoc.periodic.iterate('UNWIND range(1, 5) AS i RETURN i', 'CREATE (:N {i: i})', {batchSize: 2}) YIELD batches RETURN batches`);
      expect(r.records[0]!.get('batches').toNumber()).to.equal(3);
      // One entry makes the database, then one a batch.
      expect(opId() - before).to.equal(4);
      const made = await d.executeQuery('MATCH (n:N) RETURN count(n) AS c');
      expect(made.records[0]!.get('c').toNumber()).to.equal(5);
    });
  });

  describe('the query deadline (in process, on a counting clock)', () => {
    it('stops the call at the deadline, the batches committed by then staying, and says how many', async () => {
      const collections = new Map<string, Collection>();
      applyEvent(collections, 1, { type: 'create_collection', name: 'm', config: { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) } });
      const c = collections.get('m')!;
      let op = 1;
      const batchLog = {
        commit: async (tx: GraphTx) => {
          applyEvent(collections, ++op, { type: 'graph_write', collection: 'm', changes: tx.changes() });
          return c;
        },
      };
      let now = 0;
      const text = `CALL apoc.periodic.iterate('UNWIND range(1, 40) AS k RETURN k', 'UNWIND range(1, 3000) AS j WITH k, count(j) AS n CREATE (:M {k: k})', {batchSize: 1})`;
      const error = await executeQueryInSlices(c, compileQuery(text), {}, { timeoutMs: 20, clock: () => now++ }, { batchLog }, async () => {}).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(CypherError);
      const message = (error as CypherError).message;
      expect(message).to.match(/QueryTimeout/);
      const committed = Number(/had committed (\d+) batch/.exec(message)![1]);
      expect(committed).to.be.greaterThan(0).and.lessThan(40);
      expect(executeQuery(c, compileQuery('MATCH (m:M) RETURN count(m)'), {}).rows).to.deep.equal([[committed]]);
      expect(op - 1).to.equal(committed);
    });
  });
});
