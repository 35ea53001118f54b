import { QdrantClient } from '@qdrant/js-client-rest';
import { expect } from 'chai';
import { call } from '../helpers/http.js';
import { useCypherSuite } from '../helpers/cypher-suite.js';

interface BoltFailure {
  code: string;
  message: string;
}

const failed = (p: Promise<unknown>): Promise<BoltFailure> =>
  p.then(
    () => {
      throw new Error('expected the query to fail');
    },
    (e: BoltFailure) => e,
  );

describe('cypher: constraints are enforced, counters count operations, stored lists hold one type', () => {
  const { server, bolt, closeBolt, query } = useCypherSuite();
  const rows = async (q: string) => {
    const res = await query(q);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return (res.body.result as { rows: unknown[][] }).rows;
  };
  const makeCollection = () => call(server.url, 'PUT', '/collections/g', { vectors: { size: 2, distance: 'Cosine' } });

  describe('over REST', () => {
    beforeEach(makeCollection);

    it('refuses a CREATE or SET that repeats a unique value, and writes nothing of the query', async () => {
      await rows('CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS UNIQUE');
      await rows("CREATE (:Person {name: 'Tom Hanks'}), (:Person {name: 'Meg Ryan'})");
      const ops = server.service.engine.lastAppliedOperationId;

      const twice = await query("CREATE (:Person {name: 'U'}) CREATE (:Person {name: 'U'})");
      expect(twice.status).to.equal(400);
      expect(twice.body.message).to.match(/ConstraintValidationFailed/).and.match(/already exists with label `Person` and property `name` = 'U'/);

      const renamed = await query("MATCH (p:Person {name: 'Tom Hanks'}) SET p.name = 'Meg Ryan'");
      expect(renamed.body.message).to.match(/Node\(\d+\) already exists with label `Person` and property `name` = 'Meg Ryan'/);
      const labelled = await query("CREATE (:Actor {name: 'Meg Ryan'}) WITH 1 AS one MATCH (a:Actor) SET a:Person");
      expect(labelled.body.message).to.match(/ConstraintValidationFailed/);
      const merged = await query("MERGE (p:Person {name: 'Tom Hanks'}) SET p += {name: 'Meg Ryan'}");
      expect(merged.body.message).to.match(/ConstraintValidationFailed/);
      const byParameter = await query('UNWIND $names AS name CREATE (:Person {name: name})', { names: ['A', 'B', 'A'] });
      expect(byParameter.body.message).to.match(/property `name` = 'A'/);
      for (const q of ["CALL apoc.merge.node(['Person'], {name: 'Meg Ryan'}, {}, {name: 'Tom Hanks'}) YIELD node RETURN node", "CREATE (a:Actor {name: 'Meg Ryan'}) WITH a CALL apoc.create.addLabels(a, ['Person']) YIELD node RETURN node"]) {
        expect((await query(q)).body.message, q).to.match(/ConstraintValidationFailed/);
      }

      expect(server.service.engine.lastAppliedOperationId, 'a refused write logs nothing').to.equal(ops);
      expect(await rows('MATCH (p:Person) RETURN p.name ORDER BY p.name')).to.deep.equal([['Meg Ryan'], ['Tom Hanks']]);
      expect(await rows('MATCH (a:Actor) RETURN count(a)')).to.deep.equal([[0]]);

      // Values that differ, a node without the property, another label, and swapping a value away are all fine.
      await rows("CREATE (:Person {name: 'New'}), (:Person {age: 3}), (:Person {age: 4}), (:Robot {name: 'Tom Hanks'})");
      await rows("MATCH (p:Person {name: 'Tom Hanks'}) SET p.name = 'Tom' WITH 1 AS one CREATE (:Person {name: 'Tom Hanks'})");
      await rows("MERGE (p:Person {name: 'Meg Ryan'}) SET p.born = 1961");
      expect(await rows('MATCH (p:Person) WHERE p.name IS NOT NULL RETURN count(p)')).to.deep.equal([[4]]);
    });

    it('treats 1 and 1.0 as the same value, as Neo4j compares numbers', async () => {
      await rows('CREATE CONSTRAINT FOR (n:N) REQUIRE n.v IS UNIQUE');
      await rows('CREATE (:N {v: 1})');
      expect((await query('CREATE (:N {v: 1.0})')).body.message).to.match(/ConstraintValidationFailed/);
      expect((await query("CREATE (:N {v: '1'})")).status).to.equal(200);
    });

    it('enforces a node key (unique, every property present) and an existence constraint on CREATE, SET and REMOVE', async () => {
      await rows('CREATE CONSTRAINT key FOR (b:Book) REQUIRE (b.isbn, b.ed) IS NODE KEY');
      await rows('CREATE CONSTRAINT title FOR (b:Book) REQUIRE b.title IS NOT NULL');
      await rows("CREATE (:Book {isbn: 'x', ed: 1, title: 'T'})");
      const ops = server.service.engine.lastAppliedOperationId;
      expect((await query("CREATE (:Book {isbn: 'x', ed: 1, title: 'U'})")).body.message).to.match(/already exists with label `Book` and properties `isbn` = 'x', `ed` = 1/);
      expect((await query("CREATE (:Book {isbn: 'y', title: 'U'})")).body.message).to.match(/ConstraintValidationFailed.*with label `Book` must have the properties \(`isbn`, `ed`\)/);
      expect((await query("CREATE (:Book {isbn: 'y', ed: 1})")).body.message).to.match(/must have the property `title`/);
      expect((await query('MATCH (b:Book) REMOVE b.title')).body.message).to.match(/must have the property `title`/);
      expect((await query('MATCH (b:Book) SET b.ed = null')).body.message).to.match(/must have the properties/);
      expect((await query("CREATE (n:Draft {isbn: 'z'}) SET n:Book")).body.message).to.match(/ConstraintValidationFailed/);
      expect(server.service.engine.lastAppliedOperationId).to.equal(ops);
      await rows("CREATE (:Book {isbn: 'x', ed: 2, title: 'T2'})");
      expect(await rows('MATCH (b:Book) RETURN count(b)')).to.deep.equal([[2]]);
    });

    it('refuses a constraint the data already breaks, or one on the schema of a range index, and creates nothing', async () => {
      await rows("CREATE (:P {name: 'a'}), (:P {name: 'a'}), (:Q {x: 1}), (:Q {})");
      const dup = await query('CREATE CONSTRAINT p_name FOR (p:P) REQUIRE p.name IS UNIQUE');
      expect(dup.status).to.equal(400);
      expect(dup.body.message).to.match(/ConstraintCreationFailed/).and.match(/Unable to create Constraint\( name='p_name', type='UNIQUENESS', schema=\(:P \{name\}\) \):\nBoth Node\(\d+\) and Node\(\d+\) have the label `P` and property `name` = 'a'/);
      const missing = await query('CREATE CONSTRAINT q_x FOR (q:Q) REQUIRE q.x IS NOT NULL');
      expect(missing.body.message).to.match(/ConstraintCreationFailed/).and.match(/with label `Q` must have the property `x`/);
      expect((await query('CREATE CONSTRAINT q_key FOR (q:Q) REQUIRE q.x IS NODE KEY')).body.message).to.match(/ConstraintCreationFailed/);

      await rows('CREATE INDEX q_range FOR (q:Q) ON (q.x)');
      for (const statement of ['CREATE CONSTRAINT q_u FOR (q:Q) REQUIRE q.x IS UNIQUE', 'CREATE CONSTRAINT q_u IF NOT EXISTS FOR (q:Q) REQUIRE q.x IS UNIQUE']) {
        const indexed = await query(statement);
        expect(indexed.body.message).to.match(/IndexAlreadyExists/).and.match(/There already exists an index \(:Q \{x\}\)\. A constraint cannot be created until the index has been dropped\./);
      }
      expect(await rows('SHOW CONSTRAINTS YIELD name RETURN name')).to.deep.equal([]);
      await rows('DROP INDEX q_range');
      await rows('CREATE CONSTRAINT q_u FOR (q:Q) REQUIRE q.x IS UNIQUE');
      expect(await rows('SHOW CONSTRAINTS YIELD name RETURN name')).to.deep.equal([['q_u']]);
    });

    it('holds points written through the REST and Qdrant APIs to the constraints: a payload is the properties, labels the labels', async () => {
      await rows('CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS UNIQUE');
      await rows('CREATE CONSTRAINT person_born FOR (p:Person) REQUIRE p.born IS NOT NULL');
      const put = (points: unknown[]) => call(server.url, 'PUT', '/collections/g/points?wait=true', { points });
      expect((await put([{ id: 1, vector: [1, 0], payload: { name: 'Tom', born: 1956 }, labels: ['Person'] }])).status).to.equal(200);
      const ops = server.service.engine.lastAppliedOperationId;
      const twin = await put([{ id: 2, vector: [1, 0], payload: { name: 'Tom', born: 1 }, labels: ['Person'] }]);
      expect(twin.status).to.equal(400);
      expect(JSON.stringify(twin.body)).to.match(/constraint \\"person_name\\"/).and.match(/point 1 already has the label Person/);
      const inBatch = await put([{ id: 3, vector: [1, 0], payload: { name: 'Ann', born: 1 }, labels: ['Person'] }, { id: 4, vector: [0, 1], payload: { name: 'Ann', born: 2 }, labels: ['Person'] }]);
      expect(JSON.stringify(inBatch.body)).to.match(/person_name/);
      const unborn = await put([{ id: 5, vector: [1, 0], payload: { name: 'Bo' }, labels: ['Person'] }]);
      expect(JSON.stringify(unborn.body)).to.match(/person_born/);
      const edited = await call(server.url, 'POST', '/collections/g/points/payload/delete?wait=true', { keys: ['born'], points: [1] });
      expect(edited.status).to.equal(400);
      await put([{ id: 7, vector: [1, 0], payload: { name: 'Eve', born: 1 }, labels: ['Person'] }]);
      const client = new QdrantClient({ url: server.url, checkCompatibility: false });
      const ops7 = server.service.engine.lastAppliedOperationId;
      const viaClient = await client.setPayload('g', { wait: true, payload: { name: 'Tom' }, points: [7] }).then(
        () => null,
        (e: { status: number; message: string }) => e,
      );
      expect(viaClient?.status).to.equal(400);
      expect(server.service.engine.lastAppliedOperationId, 'nothing refused was logged').to.equal(ops7);
      expect(ops7).to.equal(ops + 1);
      // A point without the label is not a Person; the same point upserted again keeps its own value.
      expect((await put([{ id: 6, vector: [1, 0], payload: { name: 'Tom' } }])).status).to.equal(200);
      expect((await put([{ id: 1, vector: [0, 1], payload: { name: 'Tom', born: 1957 }, labels: ['Person'] }])).status).to.equal(200);
    });

    it('refuses a list property of mixed types or with null, and widens integers mixed with floats to floats', async () => {
      await rows('CREATE (:L)');
      for (const [q, params, message] of [
        ["MATCH (n:L) SET n.m = [1, 'a']", {}, /TypeError.*Collections containing mixed types can not be stored in properties/],
        ['CREATE (:L {m: [true, 2]})', {}, /mixed types/],
        ['MATCH (n:L) SET n.m = $m', { m: [1, 'a'] }, /mixed types/],
        ['MATCH (n:L) SET n += {m: [1, null]}', {}, /Collections containing null values can not be stored in properties/],
        ['MATCH (n:L) SET n.m = [[1], [2]]', {}, /Collections containing collections can not be stored in properties/],
        ['MATCH (n:L) SET n.m = [date(), 1]', {}, /mixed types/],
      ] as const) {
        const res = await query(q, params);
        expect(res.status, q).to.equal(400);
        expect(res.body.message, q).to.match(message);
      }
      await rows('MATCH (n:L) SET n.m = [1, 2.5], n.i = [1, 2], n.s = []');
      const typed = await call(server.url, 'POST', '/collections/g/graph/query', { query: 'MATCH (n:L) RETURN n.m AS m, n.i AS i, [x IN n.m | toString(x)] AS text' });
      expect(typed.body.result.rows[0][0]).to.deep.equal([1, 2.5]);
      expect(typed.body.result.rows[0][2], 'the 1 is a float').to.deep.equal(['1.0', '2.5']);
      expect(typed.body.result.rows[0][1]).to.deep.equal([1, 2]);
    });
  });

  describe('over Bolt', () => {
    it('fails the statement in an explicit transaction, which then commits nothing; executeWrite does not retry it', async () => {
      const d = bolt();
      await d.executeQuery('CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS UNIQUE');
      await d.executeQuery("CREATE (:Person {name: 'Tom Hanks'})");
      const session = d.session();
      const tx = session.beginTransaction();
      await tx.run("CREATE (:Person {name: 'Kept?'})");
      const err = await failed(tx.run("CREATE (:Person {name: 'Tom Hanks'})"));
      expect(err.code).to.equal('Neo.ClientError.Schema.ConstraintValidationFailed');
      expect(err.message).to.match(/already exists with label `Person` and property `name` = 'Tom Hanks'/);
      await tx.rollback().catch(() => undefined);
      await session.close();
      const { records } = await d.executeQuery('MATCH (p:Person) RETURN p.name AS name ORDER BY name');
      expect(records.map((r) => r.get('name'))).to.deep.equal(['Tom Hanks']);

      let attempts = 0;
      const writer = d.session();
      const retried = await failed(
        writer.executeWrite(async (t) => {
          attempts++;
          await t.run("MATCH (p:Person {name: 'Tom Hanks'}) CREATE (:Person {name: p.name})");
        }),
      );
      await writer.close();
      expect(retried.code).to.equal('Neo.ClientError.Schema.ConstraintValidationFailed');
      expect(attempts, 'a ClientError is not retried').to.equal(1);
    });

    it('checks existence at COMMIT of an explicit transaction, uniqueness at each statement', async () => {
      const d = bolt();
      await d.executeQuery('CREATE CONSTRAINT need_name FOR (p:Person) REQUIRE p.name IS NOT NULL');
      const session = d.session();
      const tx = session.beginTransaction();
      await tx.run('CREATE (:Person {id: 1})');
      await tx.run("MATCH (p:Person {id: 1}) SET p.name = 'later'");
      await tx.commit();
      const bad = session.beginTransaction();
      await bad.run('CREATE (:Person {id: 2})');
      const err = await failed(bad.commit());
      expect(err.code).to.equal('Neo.ClientError.Schema.ConstraintValidationFailed');
      expect(err.message).to.match(/must have the property `name`/);
      await session.close();
      const { records } = await d.executeQuery('MATCH (p:Person) RETURN count(p) AS n');
      expect(records[0]!.get('n').toNumber()).to.equal(1);
    });

    it('keeps the constraint, its index and its enforcement across a restart', async () => {
      await bolt().executeQuery('CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS UNIQUE');
      await bolt().executeQuery("CREATE (:Person {name: 'Tom Hanks'})");
      await closeBolt();
      await server.restart();
      const d = bolt();
      const shown = await d.executeQuery('SHOW CONSTRAINTS YIELD name, ownedIndex RETURN name, ownedIndex');
      expect(shown.records.map((r) => [r.get('name'), r.get('ownedIndex')])).to.deep.equal([['person_name', 'person_name']]);
      const indexes = await d.executeQuery("SHOW INDEXES YIELD name, owningConstraint WHERE name = 'person_name' RETURN owningConstraint");
      expect(indexes.records.map((r) => r.get('owningConstraint'))).to.deep.equal(['person_name']);
      const err = await failed(d.executeQuery("CREATE (:Person {name: 'Tom Hanks'})"));
      expect(err.code).to.equal('Neo.ClientError.Schema.ConstraintValidationFailed');
    });

    it('counts each operation as Neo4j does, in summary counters', async () => {
      const d = bolt();
      const counters = async (q: string) => (await d.executeQuery(q)).summary.counters;
      await d.executeQuery('CREATE (:CT {a: 1})');
      expect((await counters('MATCH (n:CT) SET n.a = n.a')).updates().propertiesSet).to.equal(1);
      expect((await counters('MATCH (n:CT) SET n.a = 5, n.a = 6')).updates().propertiesSet).to.equal(2);
      const merged = await counters("UNWIND [{id: 1, name: 'a'}, {id: 2, name: 'b'}, {id: 1, name: 'c'}] AS row MERGE (p:P {id: row.id}) SET p.name = row.name");
      expect(merged.updates()).to.include({ nodesCreated: 2, labelsAdded: 2, propertiesSet: 5 });
      const gone = await counters('CREATE (n:Gone) WITH n DELETE n');
      expect(gone.updates()).to.include({ nodesCreated: 1, labelsAdded: 1, nodesDeleted: 1 });
      expect(gone.containsUpdates()).to.equal(true);
      const nothing = await counters('MATCH (n:CT) SET n.missing = null, n:CT REMOVE n:Absent');
      expect(nothing.containsUpdates()).to.equal(false);
      const replaced = await counters('MATCH (n:CT) SET n = {b: 2}');
      expect(replaced.updates().propertiesSet, 'b set, a removed').to.equal(2);
      const detached = await counters('CREATE (a:D)-[:R {w: 1}]->(b:D) WITH a DETACH DELETE a');
      expect(detached.updates()).to.include({ nodesCreated: 2, relationshipsCreated: 1, relationshipsDeleted: 1, nodesDeleted: 1, propertiesSet: 1 });
      const session = d.session();
      const tx = session.beginTransaction();
      expect((await tx.run('CREATE (:T1 {x: 1})')).summary.counters.updates()).to.include({ nodesCreated: 1, propertiesSet: 1 });
      expect((await tx.run('MATCH (t:T1) SET t.x = 1')).summary.counters.updates()).to.include({ nodesCreated: 0, propertiesSet: 1 });
      await tx.commit();
      await session.close();
    });
  });
});
