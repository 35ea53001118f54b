import type { Duplex } from 'node:stream';
import type { Value } from '../query/cypher/values.js';
import { setEntry } from '../query/cypher/values.js';
import { awaitBookmarks } from './bookmarks.js';
import { Dechunker, chunkMessage } from './chunking.js';
import { Transaction, type Databases, type QueryResult } from './databases.js';
import { BoltError, databaseNotFound, failureOf, unauthorized } from './errors.js';
import { BOLT_MAGIC, HANDSHAKE_BYTES, chooseVersion, versionReply, type BoltVersion } from './handshake.js';
import { decodeRequest, ProtocolError, type Extra, type Request } from './messages/requests.js';
import { failure, ignored, record, success } from './messages/responses.js';
import { Packer } from './packstream/encoder.js';
import { unpackValue } from './packstream/decoder.js';
import { Structure, type PackValue } from './packstream/structure.js';
import { readParameter, ValueWriter } from './values.js';

export interface ConnectionDeps {
  dbs: Databases;
  /** Whether a secret is an API key or bearer token; null when authentication is off. */
  checkSecret: ((secret: string) => boolean) | null;
  /** Spends one of the client's tokens per query; null when SERVICE_RATE_LIMIT is off. */
  takeToken: ((client: string) => { allowed: boolean }) | null;
  maxMessageBytes: number;
  /** A client must finish the handshake within this many milliseconds. */
  handshakeTimeoutMs: number;
  connectionId: string;
  /** Told of errors that are not the client's doing (a DatabaseError FAILURE). */
  onInternalError: (err: unknown) => void;
  /** host:port this listener is reached at, for ROUTE when the client did not say what it dialed. */
  address: string;
  /** Told of each message handled: its kind, how long it took and how it ended (metrics). */
  observe?: (kind: string, seconds: number, outcome: 'success' | 'failure' | 'ignored') => void;
}

/** What a connection reads and writes: a TCP or TLS socket, or the byte stream inside a WebSocket. */
export interface BoltStream extends Duplex {
  readonly remoteAddress?: string | undefined;
  setTimeout(ms: number, onTimeout?: () => void): this;
}

/** Where the connection is in Bolt's state machine (a transaction and open results are kept beside it). */
type Phase = 'handshake' | 'hello' | 'logon' | 'ready' | 'failed';

interface OpenResult extends QueryResult {
  db: string;
}

/** Records are written out in batches of about this many bytes. */
const BATCH_BYTES = 64 * 1024;

/**
 * One client connection: the handshake, then messages one at a time in arrival order (a client
 * pipelines RUN and PULL; each answer goes out before the next message is looked at). After a
 * FAILURE every message but RESET and GOODBYE is IGNORED. A dropped connection discards its
 * open transaction.
 */
export class BoltConnection {
  private phase: Phase = 'handshake';
  private opening = Buffer.alloc(0);
  private readonly dechunker: Dechunker;
  private version: BoltVersion = { major: 5, minor: 0 };
  private writer = new ValueWriter(true, true);
  private routedAddress: string | null = null;
  private authenticated = false;
  /** The principal given at logon (SHOW CURRENT USER); `neo4j` when none was. */
  private user = 'neo4j';
  private tx: Transaction | null = null;
  private txReadOnly = false;
  private readonly txResults = new Map<number, OpenResult>();
  private lastQid = -1;
  private nextQid = 0;
  private auto: OpenResult | null = null;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly packer = new Packer();

  constructor(
    private readonly socket: BoltStream,
    private readonly deps: ConnectionDeps,
  ) {
    this.dechunker = new Dechunker(deps.maxMessageBytes);
    socket.on('data', (data: Buffer) => this.receive(data));
    socket.on('close', () => this.drop());
    socket.on('error', () => this.socket.destroy());
    socket.setTimeout(deps.handshakeTimeoutMs, () => this.socket.destroy());
  }

  private receive(data: Buffer): void {
    if (this.closed) return;
    if (this.phase === 'handshake') {
      this.opening = Buffer.concat([this.opening, data]);
      if (this.opening.length < HANDSHAKE_BYTES) return;
      if (this.opening.readUInt32BE(0) !== BOLT_MAGIC) return void this.socket.destroy();
      const chosen = chooseVersion(this.opening);
      this.socket.write(versionReply(chosen));
      if (!chosen) return void this.socket.end();
      this.version = chosen;
      this.phase = 'hello';
      this.socket.setTimeout(0);
      data = this.opening.subarray(HANDSHAKE_BYTES);
      if (data.length === 0) return;
    }
    let messages: Buffer[];
    try {
      messages = this.dechunker.feed(data);
    } catch {
      return void this.socket.destroy();
    }
    for (const m of messages) this.queue = this.queue.then(() => this.handle(m));
  }

  private drop(): void {
    this.closed = true;
    this.tx = null;
    this.dropResults();
  }

  /** Lets every open result go (a streaming read stops where it is). */
  private dropResults(): void {
    for (const r of this.txResults.values()) r.rows.close();
    this.txResults.clear();
    this.auto?.rows.close();
    this.auto = null;
  }

  private async handle(message: Buffer): Promise<void> {
    if (this.closed) return;
    let req: Request;
    try {
      const v = unpackValue(message);
      if (!(v instanceof Structure)) throw new ProtocolError('a message must be a structure');
      req = decodeRequest(v);
    } catch (err) {
      return this.fail(err);
    }
    const started = performance.now();
    const done = (outcome: 'success' | 'failure' | 'ignored') => this.deps.observe?.(req.kind, (performance.now() - started) / 1000, outcome);
    if (this.phase === 'failed' && req.kind !== 'RESET' && req.kind !== 'GOODBYE') {
      done('ignored');
      return this.send(ignored());
    }
    try {
      await this.dispatch(req);
      done('success');
    } catch (err) {
      done('failure');
      this.fail(err);
    }
  }

  /** Sends FAILURE; before authentication (or on bad credentials) the connection is closed too. */
  private fail(err: unknown): void {
    const f = failureOf(err);
    const { code } = f;
    if (f.internal) this.deps.onInternalError(err);
    this.send(failure(f));
    this.auto?.rows.close();
    this.auto = null;
    if (!this.authenticated || code === 'Neo.ClientError.Security.Unauthorized') {
      this.socket.end();
      this.closed = true;
    } else this.phase = 'failed';
  }

  private get logonSeparate(): boolean {
    return this.version.major > 5 || (this.version.major === 5 && this.version.minor >= 1);
  }

  private async dispatch(req: Request): Promise<void> {
    switch (req.kind) {
      case 'HELLO':
        return this.hello(req.extra);
      case 'LOGON':
        this.expect('logon', 'LOGON');
        this.authenticate(req.auth);
        this.phase = 'ready';
        return this.send(success());
      case 'LOGOFF':
        this.expectIdle('LOGOFF');
        this.authenticated = false;
        this.phase = 'logon';
        return this.send(success());
      case 'GOODBYE':
        this.socket.end();
        this.drop();
        return;
      case 'RESET':
        if (this.phase === 'hello') throw new ProtocolError('RESET before HELLO');
        this.tx = null;
        this.dropResults();
        this.phase = this.authenticated ? 'ready' : 'logon';
        return this.send(success());
      case 'RUN':
        return this.run(req.query, req.parameters, req.extra);
      case 'PULL':
      case 'DISCARD':
        return this.pull(req.n, req.qid, req.kind === 'DISCARD');
      case 'BEGIN': {
        this.expectIdle('BEGIN');
        const db = dbName(req.extra);
        checkImpersonation(req.extra);
        await awaitBookmarks(this.deps.dbs.engine, req.extra, timeoutOf(req.extra));
        this.deps.dbs.open(db);
        this.tx = new Transaction(this.deps.dbs, db, timeoutOf(req.extra));
        this.txReadOnly = req.extra.mode === 'r';
        this.lastQid = -1;
        this.nextQid = 0;
        return this.send(success(this.homeDatabase(db)));
      }
      case 'COMMIT': {
        const tx = this.inTx('COMMIT');
        this.tx = null;
        this.dropResults();
        return this.send(success({ bookmark: await tx.commit() }));
      }
      case 'ROLLBACK':
        this.inTx('ROLLBACK');
        this.tx = null;
        this.dropResults();
        return this.send(success());
      case 'ROUTE':
        return this.route(req.routing, req.db);
      case 'TELEMETRY':
        this.expect('ready', 'TELEMETRY');
        return this.send(success());
    }
  }

  private hello(extra: Extra): void {
    this.expect('hello', 'HELLO');
    const v5 = this.version.major >= 5;
    const utcPatch = !v5 && Array.isArray(extra.patch_bolt) && extra.patch_bolt.includes('utc');
    this.writer = new ValueWriter(v5, v5 || utcPatch);
    const routing = extra.routing;
    if (routing && typeof routing === 'object' && !Array.isArray(routing) && typeof (routing as Extra).address === 'string') this.routedAddress = (routing as Extra).address as string;
    if (this.logonSeparate) this.phase = 'logon';
    else {
      this.authenticate(extra);
      this.phase = 'ready';
    }
    const metadata: Extra = { server: v5 ? 'Neo4j/5.26.0' : 'Neo4j/4.4.0', connection_id: this.deps.connectionId, hints: { 'telemetry.enabled': this.version.minor >= 4 && v5 } };
    if (utcPatch) metadata.patch_bolt = ['utc'];
    this.send(success(metadata));
  }

  /** The basic scheme's password (or the bearer scheme's token) is an API key or bearer token; any scheme when authentication is off. */
  private authenticate(auth: Extra): void {
    const check = this.deps.checkSecret;
    const ok = check === null || ((auth.scheme === 'basic' || auth.scheme === 'bearer') && typeof auth.credentials === 'string' && check(auth.credentials));
    if (!ok) {
      throw unauthorized(auth.scheme === 'basic' || auth.scheme === 'bearer' ? 'the credentials are not valid' : 'credentials are required: use the basic scheme with an API key or bearer token as the password');
    }
    this.authenticated = true;
    if (typeof auth.principal === 'string' && auth.principal !== '') this.user = auth.principal;
  }

  private async run(text: string, params: Extra, extra: Extra): Promise<void> {
    this.expect('ready', 'RUN');
    if (this.deps.takeToken && !this.deps.takeToken(this.socket.remoteAddress ?? '').allowed) {
      throw new BoltError('Neo.TransientError.Request.ResourceExhaustion', 'too many queries: the limit is 100 per second with bursts of 200 per client address');
    }
    const started = performance.now();
    const parameters: Record<string, Value> = {};
    for (const [k, v] of Object.entries(params)) setEntry(parameters, k, readParameter(v));
    const readOnly = this.tx ? this.txReadOnly : extra.mode === 'r';
    const input = { text, parameters, timeoutMs: timeoutOf(extra), readOnly, writer: this.writer, user: this.user };
    if (this.tx) {
      const result = await this.tx.run(input);
      const qid = this.nextQid++;
      this.lastQid = qid;
      this.txResults.set(qid, { ...result, db: this.tx.name ?? this.deps.dbs.defaultName });
      return this.send(success({ fields: result.fields, t_first: Math.round(performance.now() - started), qid }));
    }
    if (this.auto) throw new ProtocolError('RUN while the previous result is still open: PULL or DISCARD it first');
    checkImpersonation(extra);
    await awaitBookmarks(this.deps.dbs.engine, extra, timeoutOf(extra));
    const db = dbName(extra);
    const result = await this.deps.dbs.autoCommit(db, input);
    // Dropped while the first rows were made: nothing will pull or close the result but this.
    if (this.closed) return result.rows.close();
    this.auto = { ...result, db: db ?? this.deps.dbs.defaultName };
    this.send(success({ fields: result.fields, t_first: Math.round(performance.now() - started), ...this.homeDatabase(db) }));
  }

  /** Bolt 5.8 names the database a BEGIN or auto-commit RUN resolved to, so the driver can cache the home database. */
  private homeDatabase(db: string | null): Extra {
    const v = this.version;
    return v.major === 5 && v.minor >= 8 ? { db: db ?? this.deps.dbs.defaultName } : {};
  }

  /** PULL (or DISCARD) n records of a result; SUCCESS says has_more, or carries the summary once it is done. */
  private async pull(n: number, qid: number, discard: boolean): Promise<void> {
    this.expect('ready', discard ? 'DISCARD' : 'PULL');
    const id = qid === -1 ? this.lastQid : qid;
    const r = this.tx ? this.txResults.get(id) : this.auto;
    if (!r) throw new ProtocolError(`${discard ? 'DISCARD' : 'PULL'}: no open result${this.tx ? ` with qid ${qid}` : ''}`);
    const started = performance.now();
    if (discard && n < 0) r.rows.close();
    else {
      const rows = await r.rows.take(n);
      if (!discard) await this.stream(rows);
    }
    if (!r.rows.exhausted) return this.send(success({ has_more: true }));
    if (this.tx) this.txResults.delete(id);
    else this.auto = null;
    const summary: Extra = { type: r.type, t_last: Math.round(performance.now() - started), db: r.db };
    if (Object.keys(r.stats).length > 0) summary.stats = r.stats;
    if (r.bookmark !== null) summary.bookmark = r.bookmark;
    if (r.plan) summary.plan = r.plan as unknown as PackValue;
    if (r.profile) summary.profile = r.profile as unknown as PackValue;
    this.send(success(summary));
  }

  /** Writes records in batches, waiting whenever the socket's buffer is full. */
  private async stream(rows: PackValue[][]): Promise<void> {
    let batch: Buffer[] = [];
    let bytes = 0;
    for (let i = 0; i < rows.length && !this.closed; i++) {
      this.packer.pack(record(rows[i]!));
      const framed = chunkMessage(this.packer.take());
      batch.push(framed);
      bytes += framed.length;
      if (bytes >= BATCH_BYTES) {
        await this.write(Buffer.concat(batch));
        batch = [];
        bytes = 0;
      }
    }
    if (batch.length > 0) await this.write(Buffer.concat(batch));
  }

  private route(routing: Extra, db: string | null): void {
    this.expect('ready', 'ROUTE');
    const name = db ?? this.deps.dbs.defaultName;
    if (!this.deps.dbs.exists(name)) throw databaseNotFound(name);
    const address = typeof routing.address === 'string' ? routing.address : (this.routedAddress ?? this.deps.address);
    const servers = ['WRITE', 'READ', 'ROUTE'].map((role) => ({ addresses: [address], role }));
    this.send(success({ rt: { ttl: 300, db: name, servers } }));
  }

  private expect(phase: Phase, what: string): void {
    if (this.phase !== phase) throw new ProtocolError(`${what} is not allowed ${this.phase === 'ready' ? 'now' : `before ${this.phase === 'hello' ? 'HELLO' : 'LOGON'}`}`);
  }

  private expectIdle(what: string): void {
    this.expect('ready', what);
    if (this.tx) throw new ProtocolError(`${what} inside a transaction: COMMIT or ROLLBACK first`);
    if (this.auto) throw new ProtocolError(`${what} while a result is still open: PULL or DISCARD it first`);
  }

  private inTx(what: string): Transaction {
    this.expect('ready', what);
    if (!this.tx) throw new ProtocolError(`${what} without a transaction: BEGIN first`);
    return this.tx;
  }

  private send(s: Structure): void {
    if (this.closed) return;
    this.packer.pack(s);
    this.socket.write(chunkMessage(this.packer.take()));
  }

  private write(buf: Buffer): Promise<void> {
    if (this.socket.write(buf)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }
}

/** The `db` of BEGIN or RUN: null means the default database. */
function dbName(extra: Extra): string | null {
  const db = extra.db;
  return typeof db === 'string' && db !== '' ? db : null;
}

/** tx_timeout in milliseconds, when the client set one. */
function timeoutOf(extra: Extra): number | undefined {
  const t: PackValue | undefined = extra.tx_timeout;
  return typeof t === 'number' && t > 0 ? t : undefined;
}

function checkImpersonation(extra: Extra): void {
  if (typeof extra.imp_user === 'string' && extra.imp_user !== '') throw new BoltError('Neo.ClientError.Security.Forbidden', 'impersonation (imp_user) is not supported');
}
