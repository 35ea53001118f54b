import { expect } from 'chai';
import { connect } from 'node:net';
import { readConfig } from '../../server/config.js';
import { startTestServer, useTestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';
import { DISCARD, FAILURE, HELLO, IGNORED, LOGOFF, LOGON, msg, PULL, RawBoltClient, RECORD, RESET, RUN, SUCCESS } from './raw-client.js';

describe('bolt: the protocol at the byte level', () => {
  const server = useTestServer();
  let client: RawBoltClient;
  afterEach(() => client?.close());

  const open5 = async () => {
    const opened = await RawBoltClient.open(server.service.boltPort!, [[5, 4, 4]]);
    client = opened.client;
    expect(opened.version).to.deep.equal([5, 4]);
    client.send(msg(HELLO, { user_agent: 'raw/1' }), msg(LOGON, { scheme: 'none' }));
    const [hello, logon] = await client.take(2);
    expect(hello!.signature).to.equal(SUCCESS);
    expect((hello!.fields[0] as { server: string }).server).to.match(/^Neo4j\/5/);
    expect(logon!.signature).to.equal(SUCCESS);
  };

  it('streams a result in the batches PULL asks for, saying has_more until the last', async () => {
    await open5();
    client.send(msg(RUN, 'UNWIND range(1, 250) AS i RETURN i', {}, {}), msg(PULL, { n: 100 }));
    const [run, ...first] = await client.take(102);
    expect(run!.fields[0]).to.have.property('t_first').that.is.a('number');
    expect(run!.fields[0]).to.deep.include({ fields: ['i'] });
    expect(first.slice(0, 100).map((r) => r.signature)).to.deep.equal(Array(100).fill(RECORD));
    expect(first[99]!.fields[0]).to.deep.equal([100]);
    expect(first[100]!.fields[0]).to.deep.equal({ has_more: true });
    client.send(msg(DISCARD, { n: 100 }));
    expect((await client.next()).fields[0]).to.deep.equal({ has_more: true });
    client.send(msg(PULL, { n: -1 }));
    const rest = await client.take(51);
    expect(rest[0]!.fields[0]).to.deep.equal([201]);
    const summary = rest[50]!;
    expect(summary.signature).to.equal(SUCCESS);
    expect(summary.fields[0]).to.include({ type: 'r', db: 'neo4j' });
    expect(summary.fields[0]).to.have.property('bookmark').that.is.a('string');
  });

  it('answers IGNORED after a FAILURE until RESET', async () => {
    await open5();
    client.send(msg(RUN, 'RETRN 1', {}, {}), msg(PULL, { n: -1 }), msg(RUN, 'RETURN 1 AS x', {}, {}));
    const [failed, pull, run] = await client.take(3);
    expect(failed!.signature).to.equal(FAILURE);
    expect(failed!.fields[0]).to.include({ code: 'Neo.ClientError.Statement.SyntaxError' });
    expect(pull!.signature).to.equal(IGNORED);
    expect(run!.signature).to.equal(IGNORED);
    client.send(msg(RESET), msg(RUN, 'RETURN 1 AS x', {}, {}), msg(PULL, { n: -1 }));
    const [reset, ok, row] = await client.take(3);
    expect([reset!.signature, ok!.signature, row!.signature]).to.deep.equal([SUCCESS, SUCCESS, RECORD]);
    expect(row!.fields[0]).to.deep.equal([1]);
  });

  it('speaks Bolt 5.8 as neo4j-driver 6 offers it: the database named in RUN\'s SUCCESS, GQL fields in a FAILURE', async () => {
    const opened = await RawBoltClient.open(server.service.boltPort!, [[5, 8, 8]]);
    client = opened.client;
    expect(opened.version).to.deep.equal([5, 8]);
    client.send(
      msg(HELLO, { user_agent: 'raw/1', notifications_minimum_severity: 'WARNING', notifications_disabled_classifications: ['HINT'] }),
      msg(LOGON, { scheme: 'none' }),
      msg(RUN, 'RETURN 1 AS x', {}, {}),
      msg(PULL, { n: -1 }),
      msg(RUN, 'RETRN 1', {}, {}),
    );
    const [hello, logon, run, row, summary, failed] = await client.take(6);
    expect([hello!.signature, logon!.signature, run!.signature, row!.signature, summary!.signature]).to.deep.equal([SUCCESS, SUCCESS, SUCCESS, RECORD, SUCCESS]);
    expect(run!.fields[0]).to.deep.include({ fields: ['x'], db: 'neo4j' });
    expect(failed!.signature).to.equal(FAILURE);
    expect(failed!.fields[0]).to.include({ neo4j_code: 'Neo.ClientError.Statement.SyntaxError' });
    expect(failed!.fields[0]).to.have.property('gql_status').that.is.a('string');
  });

  it('speaks Bolt 5.0: credentials in HELLO (no LOGON yet), nodes with element ids, date-times as UTC instants', async () => {
    const opened = await RawBoltClient.open(server.service.boltPort!, [[5, 0, 0]]);
    client = opened.client;
    expect(opened.version).to.deep.equal([5, 0]);
    client.send(msg(HELLO, { user_agent: 'raw/1', scheme: 'none' }), msg(RUN, 'CREATE (n:Five) RETURN n, datetime("2020-01-01T10:00:00+02:00") AS t', {}, {}), msg(PULL, { n: -1 }));
    const [hello, , rec] = await client.take(3);
    expect(hello!.signature).to.equal(SUCCESS);
    const [node, time] = rec!.fields[0] as [{ signature: number; fields: unknown[] }, { signature: number; fields: unknown[] }];
    expect(node.fields).to.have.length(4);
    expect(node.fields[3]).to.equal(String(node.fields[0]));
    expect(time.signature).to.equal(0x49);
    expect(time.fields).to.deep.equal([Date.UTC(2020, 0, 1, 8) / 1000, 0, 7200]);
  });

  it('waits for the operation a bookmark names, and refuses a bookmark that is not an operation id', async () => {
    await open5();
    const applied = server.service.engine.lastAppliedOperationId;
    client.send(msg(RUN, 'RETURN 1', {}, { bookmarks: [String(applied)] }), msg(DISCARD, { n: -1 }));
    expect((await client.take(2)).map((a) => a.signature)).to.deep.equal([SUCCESS, SUCCESS]);
    client.send(msg(RUN, 'RETURN 1', {}, { bookmarks: [String(applied + 1000)], tx_timeout: 50 }));
    expect((await client.next()).fields[0]).to.include({ code: 'Neo.TransientError.Transaction.BookmarkTimeout' });
    client.send(msg(RESET), msg(RUN, 'RETURN 1', {}, { bookmarks: ['FB:kcwQ'] }));
    const [, invalid] = await client.take(2);
    expect(invalid!.fields[0]).to.include({ code: 'Neo.ClientError.Transaction.InvalidBookmark' });
  });

  it('logs off and on again on the same connection, and closes it on credentials that are not valid', async () => {
    const s = await startTestServer({ SERVICE_API_KEYS: 'secret' });
    const { client } = await RawBoltClient.open(s.service.boltPort!, [[5, 4, 4]]);
    try {
      const logon = (credentials: string) => msg(LOGON, { scheme: 'basic', principal: 'x', credentials });
      client.send(msg(HELLO, {}), logon('secret'), msg(LOGOFF), logon('secret'), msg(RUN, 'RETURN 7 AS x', {}, {}), msg(PULL, { n: -1 }));
      const answers = await client.take(7);
      expect(answers.map((a) => a.signature)).to.deep.equal([SUCCESS, SUCCESS, SUCCESS, SUCCESS, SUCCESS, RECORD, SUCCESS]);
      expect(answers[5]!.fields[0]).to.deep.equal([7]);
      client.send(msg(LOGOFF), logon('wrong'));
      const [off, denied] = await client.take(2);
      expect(off!.signature).to.equal(SUCCESS);
      expect(denied!.fields[0]).to.include({ code: 'Neo.ClientError.Security.Unauthorized' });
      expect(await client.closed()).to.equal(true);
    } finally {
      client.close();
      await s.stop();
      s.remove();
    }
  });

  it('speaks Bolt 4.4: credentials in HELLO, nodes without element ids, local date-times unless the utc patch is asked for', async () => {
    const opened = await RawBoltClient.open(server.service.boltPort!, [[4, 4, 0]]);
    client = opened.client;
    expect(opened.version).to.deep.equal([4, 4]);
    client.send(msg(HELLO, { user_agent: 'raw/1', scheme: 'none' }), msg(RUN, 'CREATE (n:Old {k: 1}) RETURN n, datetime("2020-01-01T10:00:00+02:00") AS t', {}, {}), msg(PULL, { n: -1 }));
    const [hello, run, rec, done] = await client.take(4);
    expect(hello!.signature).to.equal(SUCCESS);
    expect(hello!.fields[0]).to.not.have.property('patch_bolt');
    expect(run!.signature).to.equal(SUCCESS);
    const [node, time] = rec!.fields[0] as [{ signature: number; fields: unknown[] }, { signature: number; fields: unknown[] }];
    expect(node.signature).to.equal(0x4e);
    expect(node.fields.slice(1)).to.deep.equal([['Old'], { k: 1 }]);
    expect(node.fields[0]).to.be.a('number');
    // legacy DateTime 'F': seconds of the local time, nanoseconds, offset
    expect(time.signature).to.equal(0x46);
    expect(time.fields).to.deep.equal([Date.UTC(2020, 0, 1, 10) / 1000, 0, 7200]);
    expect(done!.fields[0]).to.deep.include({ type: 'rw', stats: { 'nodes-created': 1, 'labels-added': 1, 'properties-set': 1 } });
  });
});

describe('bolt: rate limit', () => {
  it('spends one token of the client address per query: past the burst of 200 a query fails with a transient error until tokens come back', async () => {
    let seconds = 0;
    const s = await startTestServer({ SERVICE_RATE_LIMIT: '1' }, undefined, { now: () => seconds });
    const { client } = await RawBoltClient.open(s.service.boltPort!, [[5, 4, 4]]);
    try {
      client.send(msg(HELLO, {}), msg(LOGON, { scheme: 'none' }));
      await client.take(2);
      for (let i = 0; i < 200; i++) client.send(msg(RUN, 'RETURN 1', {}, {}), msg(DISCARD, { n: -1 }));
      const answers = await client.take(400);
      expect(answers.every((a) => a.signature === SUCCESS)).to.equal(true);
      client.send(msg(RUN, 'RETURN 1', {}, {}));
      const refused = await client.next();
      expect(refused.signature).to.equal(FAILURE);
      expect(refused.fields[0]).to.include({ code: 'Neo.TransientError.Request.ResourceExhaustion' });
      seconds += 1;
      client.send(msg(RESET), msg(RUN, 'RETURN 1', {}, {}));
      expect((await client.take(2)).map((a) => a.signature)).to.deep.equal([SUCCESS, SUCCESS]);
    } finally {
      client.close();
      await s.stop();
      s.remove();
    }
  });
});

describe('bolt: configuration', () => {
  it('reads SERVICE_BOLT_PORT (7687 by default, off, or a port) and SERVICE_BOLT_DEFAULT_DB, refusing a bad port by name', async () => {
    expect(readConfig({}).boltPort).to.equal(7687);
    expect(readConfig({ SERVICE_BOLT_PORT: 'off' }).boltPort).to.equal(null);
    expect(readConfig({ SERVICE_BOLT_PORT: '7700' }).boltPort).to.equal(7700);
    expect(() => readConfig({ SERVICE_BOLT_PORT: 'bolt' })).to.throw(/SERVICE_BOLT_PORT/);
    const off = await startTestServer({ SERVICE_BOLT_PORT: 'off' });
    expect(off.service.boltUrl).to.equal(null);
    const taken = await startTestServer().then(async (first) => {
      const dir = tempDir();
      const err = await startTestServer({ SERVICE_BOLT_PORT: String(first.service.boltPort) }, dir.path).then(
        async (second) => {
          await second.stop();
          second.remove();
          return null;
        },
        (e: Error) => e,
      );
      dir.remove();
      await first.stop();
      first.remove();
      return err;
    });
    expect(taken?.message).to.match(/SERVICE_BOLT_PORT \d+ is already in use/);
    await off.stop();
    off.remove();

    const s = await startTestServer({ SERVICE_BOLT_DEFAULT_DB: 'graph' });
    const { client } = await RawBoltClient.open(s.service.boltPort!, [[5, 4, 4]]);
    try {
      client.send(msg(HELLO, {}), msg(LOGON, { scheme: 'none' }), msg(RUN, 'CREATE (:X)', {}, {}), msg(PULL, { n: -1 }));
      const answers = await client.take(4);
      expect(answers[3]!.fields[0]).to.include({ db: 'graph' });
      expect(s.service.engine.collections.has('graph')).to.equal(true);
    } finally {
      client.close();
      await s.stop();
      s.remove();
    }
  });

  it('closes a connection that opens with neither the Bolt preamble nor an HTTP request (a WebSocket), answering nothing', async () => {
    const s = await startTestServer();
    try {
      const socket = connect(s.service.boltPort!, '127.0.0.1');
      let received = 0;
      socket.on('data', (d: Buffer) => (received += d.length));
      socket.write('HELLO?\r\n');
      await new Promise((resolve) => socket.once('close', resolve));
      expect(received).to.equal(0);
    } finally {
      await s.stop();
      s.remove();
    }
  });
});
