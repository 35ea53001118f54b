import { Collection } from '../storage/collection.js';
import type { Distance } from '../storage/events/types.js';
import type { Engine } from '../storage/engine/engine.js';
import { parseCollectionBody } from '../query/api/collection-body.js';
import { collectionOf } from '../query/changes/change-json.js';
import { GraphTx } from '../query/cypher/graph-tx.js';
import { queryParts, type Query } from '../query/cypher/ast.js';
import { logBatch, logQueryResult } from '../query/cypher/log-result.js';
import type { BatchLog } from '../query/cypher/batch-commits.js';
import { changesSchema, writesData } from '../query/cypher/query-kind.js';
import { SYSTEM_DATABASE, type DatabaseCatalog } from '../query/cypher/procedures/catalog.js';
import type { GuardOptions } from '../query/cypher/guard.js';
import { compileQuery, executeQueryInSlices, isWriteQuery, streamQuery, type CypherResult, type ResultStream } from '../query/cypher/run-query.js';
import type { Resolved } from '../query/cypher/resolved-values.js';
import type { PlanOperator } from '../query/cypher/explain-plan.js';
import { betweenQuerySlices, REQUEST_THREAD_SLICE_MS } from '../server/next-turn.js';
import { serialWrite } from '../query/cypher/write-queue.js';
import type { Value } from '../query/cypher/values.js';
import type { CypherReplicas } from '../workers/cypher-replicas.js';
import { BoltError, databaseNotFound, outdated } from './errors.js';
import type { PackValue } from './packstream/structure.js';
import { statsOf, statsSince, type Stats } from './stats.js';
import type { ValueWriter } from './values.js';

/** A result's rows in PackStream terms, taken a batch at a time (PULL n). */
export interface RowSource {
  /** Up to `n` more rows (all that are left for n < 0); fewer only once the result ends. */
  take(n: number): Promise<PackValue[][]>;
  readonly exhausted: boolean;
  /** The rest is not wanted (DISCARD, RESET, a closed connection). */
  close(): void;
}

/** Rows a read produces before RUN is answered: an error in them fails the RUN, as in Neo4j. */
const FIRST_BATCH = 1;

/** Rows already built (a write's result, or a query that cannot stream). */
function built(rows: PackValue[][]): RowSource {
  let next = 0;
  return {
    take: (n) => {
      const end = n < 0 ? rows.length : Math.min(rows.length, next + n);
      const out = rows.slice(next, end);
      // Sent rows are let go.
      rows.fill([], next, end);
      next = end;
      return Promise.resolve(out);
    },
    get exhausted() {
      return next >= rows.length;
    },
    close: () => void (next = rows.length),
  };
}

/** A query's answer: its rows, streamed for a read (see streamQuery), built for a write. */
export interface QueryResult {
  fields: string[];
  rows: RowSource;
  type: 'r' | 'w' | 'rw' | 's';
  stats: Stats;
  /** EXPLAIN's plan, PROFILE's profile (the summary's `plan` and `profile`). */
  plan?: PlanOperator;
  profile?: PlanOperator;
  /** An auto-commit query's bookmark: the operation id its write got, or the last one applied for a read. */
  bookmark: string | null;
}

export interface QueryInput {
  text: string;
  parameters: Record<string, Value>;
  /** tx_timeout from the client, in milliseconds (the engine's own limit when absent). */
  timeoutMs?: number;
  /** The client asked for read access (mode "r"): a write query is refused. */
  readOnly: boolean;
  writer: ValueWriter;
  /** The principal the connection logged on with. */
  user: string;
}

/** What the system database runs: the administration commands, dbms.* procedures and db.ping(), with RETURN. */
const SYSTEM_COMMANDS = new Set(['$show.databases', '$show.default.database', '$show.procedures', '$show.functions', '$show.current.user', 'db.ping']);

const isSystemCommand = (query: Query) =>
  queryParts(query).every((part) => part.every((c) => c.kind === 'return' || (c.kind === 'procedure' && (SYSTEM_COMMANDS.has(c.name) || c.name.startsWith('dbms.')))));

/** SHOW DATABASES, SHOW CURRENT USER and dbms.* need the server's catalog and the session, which a Cypher replica does not have. */
const readsCatalog = (query: Query) => queryParts(query).some((part) => part.some((c) => c.kind === 'procedure' && (c.name.startsWith('$show.d') || c.name === '$show.current.user' || c.name.startsWith('dbms.'))));

/** The summary's query type: read, write, read and write, or schema (an index or constraint changed). */
function queryType(query: Query, write: boolean, columns: string[]): QueryResult['type'] {
  if (!write) return 'r';
  if (queryParts(query).some(changesSchema)) return 's';
  return columns.length > 0 ? 'rw' : 'w';
}

function checkSystemCommand(query: Query): void {
  if (!isSystemCommand(query)) {
    throw new BoltError('Neo.ClientError.Statement.NotSystemDatabaseError', `the system database answers the administration commands only (SHOW DATABASES, SHOW DATABASE name, SHOW DEFAULT DATABASE, SHOW PROCEDURES, SHOW FUNCTIONS, SHOW CURRENT USER, CALL dbms.* and db.ping()); run this query on a user database (a collection)`);
  }
}

/** The plan or profile a query's result carries (EXPLAIN, PROFILE). */
const plans = (r: CypherResult): Pick<QueryResult, 'plan' | 'profile'> => ({ ...(r.plan ? { plan: r.plan } : {}), ...(r.profile ? { profile: r.profile } : {}) });

/** Whether the query writes (refused in read access mode). EXPLAIN runs nothing, so it never writes. */
function checkAccess(query: Query, input: QueryInput): boolean {
  const write = isWriteQuery(query) && query.explain !== 'explain';
  if (write && input.readOnly) throw new BoltError('Neo.ClientError.Statement.AccessMode', 'a write query cannot run in read access mode (executeRead, or a session with defaultAccessMode READ)');
  return write;
}

/** The vectors of a database made by a first write that set none (Cypher CREATE makes nodes without vectors). */
const PLAIN_VECTORS = { size: 1, distance: 'Cosine' } as const;

/** A database as a query sees it: the collection, or for a default database not made yet an empty stand-in. */
export interface Opened {
  collection: Collection;
  provisional: boolean;
  /** The system database: administration commands only (see isSystemCommand). */
  system?: boolean;
}

/**
 * Databases are collections. The default one is made by its first write: with the dimensions
 * and similarity of its first vector index (db.index.vector.createNodeIndex, CREATE VECTOR
 * INDEX), or else with a 1-dimensional vector space that nodes need not use. Until then reads
 * see an empty database.
 */
export class Databases implements DatabaseCatalog {
  private standIn: Collection | null = null;
  private readonly systemStandIn = new Collection(SYSTEM_DATABASE, parseCollectionBody({ vectors: PLAIN_VECTORS }), 0);

  constructor(
    readonly engine: Engine,
    readonly defaultName: string,
    private readonly memoryBytes: number,
    /** A query's time limit unless the client's tx_timeout says otherwise. */
    private readonly timeoutMs?: number,
    /** Where auto-commit reads run when not here (cypher-replica.md); null: every query runs here. */
    private readonly replicas: CypherReplicas | null = null,
    /** Whether connections must give an API key or bearer token (dbms.clientConfig() tells clients). */
    private readonly authEnabled = false,
  ) {}

  /** The collection a database name (null: the default) stands for. */
  open(name: string | null): Opened {
    const db = name ?? this.defaultName;
    const found = this.engine.collections.get(db);
    if (found) return { collection: found, provisional: false };
    // A collection called "system" is that collection; otherwise `system` is the administration database.
    if (db === SYSTEM_DATABASE) return { collection: this.systemStandIn, provisional: true, system: true };
    if (db !== this.defaultName) throw databaseNotFound(db);
    if (this.standIn?.name !== db) this.standIn = new Collection(db, parseCollectionBody({ vectors: PLAIN_VECTORS }), 0);
    return { collection: this.standIn, provisional: true };
  }

  /** The databases SHOW DATABASES lists (with the default and system ones). */
  names(): string[] {
    return [...this.engine.collections.keys()];
  }

  /** Whether a database name opens (ROUTE checks it). */
  exists(name: string): boolean {
    return name === this.defaultName || name === SYSTEM_DATABASE || this.engine.collections.has(name);
  }

  /** Makes the default database (inside serialWrite) for a first write; answers the live collection. */
  async create(name: string, vectors: { size: number; distance: Distance } | null): Promise<Collection> {
    if (!this.engine.collections.has(name)) await this.engine.submit({ type: 'create_collection', name, config: parseCollectionBody({ vectors: vectors ?? PLAIN_VECTORS }) });
    return this.engine.collections.get(name)!;
  }

  /** Runs a compiled query on a collection through an overlay (a fresh one, or a transaction's), in slices (see executeQueryInSlices). */
  async execute(c: Collection, query: Query, input: QueryInput, tx: GraphTx, batchLog?: BatchLog): Promise<CypherResult> {
    await this.engine.settled(c.name);
    const run = { tx, present: (v: Value, t: GraphTx) => input.writer.write(v, t), catalog: this.catalogFor(input), ...(batchLog ? { batchLog } : {}) };
    return executeQueryInSlices(c, query, input.parameters, { ...this.limits(input), sliceMs: REQUEST_THREAD_SLICE_MS }, run, betweenQuerySlices(0));
  }

  /** A batch of apoc.periodic logged as one entry (inside serialWrite), the database made first when its first write is this. */
  async logBatch(tx: GraphTx): Promise<Collection> {
    if (tx.provisional && tx.dirty) await this.create(tx.collection.name, null);
    return logBatch(this.engine, tx.collection.name, tx);
  }

  /** A read query's rows as the client pulls them; its first rows are produced here, so an error in them is the RUN's. */
  async stream(c: Collection, query: Query, input: QueryInput, tx: GraphTx): Promise<{ fields: string[]; rows: RowSource } | null> {
    await this.engine.settled(c.name);
    const stream = streamQuery(c, query, input.parameters, { ...this.limits(input), sliceMs: REQUEST_THREAD_SLICE_MS }, { tx, present: (v, t) => input.writer.write(v, t), catalog: this.catalogFor(input) }, betweenQuerySlices(0));
    if (!stream) return null;
    const replicas = this.replicas;
    const take = replicas ? (n: number) => replicas.inPlaceRun(() => stream.take(n)) : (n: number) => stream.take(n);
    return this.pulled(stream, async (n) => (await take(n)) as PackValue[][]);
  }

  /**
   * A read sent to a Cypher replica when one takes it (CypherReplicas.open), else null: a cursor
   * there, its rows written here (the connection's ids and element ids). Never for a default
   * database not made yet: its stand-in is only on this thread.
   */
  async elsewhere(c: Collection, provisional: boolean, query: Query, input: QueryInput): Promise<{ fields: string[]; rows: RowSource } | null> {
    const opening = provisional || readsCatalog(query) ? null : this.replicas?.open(c.name, query, input.text, input.parameters, this.limits(input), FIRST_BATCH);
    if (!opening) return null;
    const cursor = await opening;
    return this.pulled(cursor, async (n) => ((await cursor.take(n)) as Resolved[][]).map((row) => row.map((v) => input.writer.pack(v))));
  }

  /** A stream's rows as PULLs take them, its first batch taken now (RUN). */
  private async pulled(stream: ResultStream, take: (n: number) => Promise<PackValue[][]>): Promise<{ fields: string[]; rows: RowSource }> {
    let pending: PackValue[][] | null = await take(FIRST_BATCH);
    const rows: RowSource = {
      take: async (n) => {
        const head = pending ?? [];
        pending = null;
        if (n >= 0 && head.length >= n) {
          pending = head.slice(n);
          return head.slice(0, n);
        }
        return head.concat(await take(n < 0 ? -1 : n - head.length));
      },
      get exhausted() {
        return (pending === null || pending.length === 0) && stream.exhausted;
      },
      close: () => {
        pending = null;
        stream.close();
      },
    };
    return { fields: stream.columns, rows };
  }

  /** The databases, and who asks. */
  private catalogFor(input: QueryInput): DatabaseCatalog {
    return { defaultName: this.defaultName, names: () => this.names(), session: { user: input.user, authEnabled: this.authEnabled } };
  }

  private limits(input: QueryInput): GuardOptions {
    return { memoryBytes: this.memoryBytes, timeoutMs: input.timeoutMs ?? this.timeoutMs };
  }

  /** One query in its own transaction: a write becomes one log event before the answer. */
  async autoCommit(name: string | null, input: QueryInput): Promise<QueryResult> {
    const opened = this.open(name);
    const query = compileQuery(input.text);
    if (opened.system) checkSystemCommand(query);
    if (!checkAccess(query, input)) {
      const bookmark = String(this.engine.lastAppliedOperationId);
      // EXPLAIN and PROFILE run here, where the plan is made.
      const elsewhere = query.explain ? null : await this.elsewhere(opened.collection, opened.provisional, query, input);
      if (elsewhere) return { ...elsewhere, type: 'r', stats: {}, bookmark };
      const tx = new GraphTx(opened.collection, opened.provisional);
      const streamed = await this.stream(opened.collection, query, input, tx);
      if (streamed) return { ...streamed, type: 'r', stats: {}, bookmark };
      const execute = () => this.execute(opened.collection, query, input, tx);
      const r = await (this.replicas ? this.replicas.inPlaceRun(execute) : execute());
      // EXPLAIN's type is the one the query would have.
      return { fields: r.columns, rows: built(r.rows as PackValue[][]), type: queryType(query, isWriteQuery(query), r.columns), stats: {}, bookmark, ...plans(r) };
    }
    return serialWrite(this.engine, async () => {
      const { collection, provisional } = this.open(name);
      const r = await this.execute(collection, query, input, new GraphTx(collection, provisional), { commit: (tx) => this.logBatch(tx) });
      const target = provisional && (r.changes.length > 0 || r.schema) ? await this.create(collection.name, r.collectionConfig) : collection;
      const stats = statsOf(r.counts, r.schema);
      const opId = await logQueryResult(this.engine, target.name, r);
      const bookmark = String(opId ?? this.engine.lastAppliedOperationId);
      return { fields: r.columns, rows: built(r.rows as PackValue[][]), type: queryType(query, true, r.columns), stats, bookmark, ...plans(r) };
    });
  }
}

/**
 * Whether any entry applied after `opId` may have changed the collection: one naming it (or no
 * collection at all), or entries no longer in the log to look at.
 */
function changedSince(engine: Engine, c: Collection, opId: number): boolean {
  if (engine.collections.get(c.name) !== c) return true;
  if (engine.lastAppliedOperationId === opId) return false;
  if (engine.log.firstOperationId > opId + 1) return true;
  for (const entry of engine.log.read(opId + 1, engine.lastAppliedOperationId)) {
    const name = collectionOf(entry.event);
    if (name === null || name === c.name) return true;
  }
  return false;
}

/**
 * An explicit transaction: its queries share one overlay, so each sees the writes of those
 * before it, and COMMIT turns the overlay into one log event. The overlay was read against the
 * collection as it stood at the first query; if a write to that collection was applied since,
 * COMMIT fails with a transient error (the driver's executeWrite runs the transaction again)
 * rather than apply on changed ground. Writes to other collections do not conflict.
 */
export class Transaction {
  private tx: GraphTx | null = null;
  private collection: Collection | null = null;
  private appliedAtStart = 0;
  private stats: Stats = {};

  constructor(
    private readonly dbs: Databases,
    readonly name: string | null,
    readonly timeoutMs?: number,
  ) {}

  async run(input: QueryInput): Promise<QueryResult> {
    if (!this.tx) {
      const { collection, provisional } = this.dbs.open(this.name);
      this.collection = collection;
      this.appliedAtStart = this.dbs.engine.lastAppliedOperationId;
      this.tx = new GraphTx(collection, provisional);
    }
    const c = this.collection!;
    const query = compileQuery(input.text);
    if (c.name === SYSTEM_DATABASE && this.tx.provisional) checkSystemCommand(query);
    const write = checkAccess(query, input);
    const parts = queryParts(query);
    if ((this.tx.schema.dirty && parts.some(writesData)) || (this.tx.dirty && parts.some(changesSchema))) {
      throw new BoltError('Neo.ClientError.Transaction.ForbiddenDueToTransactionType', 'a transaction cannot both change the schema (indexes, constraints) and write data; commit one before the other');
    }
    const limited = { ...input, timeoutMs: input.timeoutMs ?? this.timeoutMs };
    // A read in a transaction that has written nothing reads what any other read would: a
    // replica may run it (executeRead, executeQuery). Once it has writes, its reads need its overlay.
    if (!write && !this.tx.dirty && !this.tx.schema.dirty && !query.explain) {
      const elsewhere = await this.dbs.elsewhere(c, this.tx.provisional, query, limited);
      if (elsewhere) return { ...elsewhere, type: 'r', stats: {}, bookmark: null };
    }
    if (!write) {
      const streamed = await this.dbs.stream(c, query, limited, this.tx);
      if (streamed) return { ...streamed, type: 'r', stats: {}, bookmark: null };
    }
    const r = await this.dbs.execute(c, query, limited, this.tx, { commit: (tx) => this.logBatch(tx) });
    const before = this.stats;
    if (write) this.stats = statsOf(this.tx.counts, this.tx.schema.dirty ? this.tx.schema.changes() : null);
    // EXPLAIN's type is the one the query would have.
    return { fields: r.columns, rows: built(r.rows as PackValue[][]), type: queryType(query, isWriteQuery(query), r.columns), stats: statsSince(before, this.stats), bookmark: null, ...plans(r) };
  }

  /**
   * A batch of apoc.periodic, logged on its own as Neo4j commits it apart from the transaction.
   * The transaction has no writes of its own then (the procedure refuses to follow them), so it
   * carries on from the collection as the batch left it.
   */
  private logBatch(tx: GraphTx): Promise<Collection> {
    const { engine } = this.dbs;
    return serialWrite(engine, async () => {
      const c = await this.dbs.logBatch(tx);
      this.collection = c;
      this.appliedAtStart = engine.lastAppliedOperationId;
      return c;
    });
  }

  /** Applies the transaction's writes as one durable event; answers the bookmark. */
  async commit(): Promise<string> {
    const { engine } = this.dbs;
    const tx = this.tx;
    if (!tx || (!tx.dirty && !tx.schema.dirty)) return String(engine.lastAppliedOperationId);
    return serialWrite(engine, async () => {
      let target = this.collection!;
      if (tx.provisional) {
        // Someone else made the database meanwhile: this transaction read a stand-in for it.
        if (engine.collections.has(target.name)) throw outdated();
        target = await this.dbs.create(target.name, tx.schema.collectionConfig);
      } else if (changedSince(engine, target, this.appliedAtStart)) throw outdated();
      const opId = await logQueryResult(engine, target.name, { changes: tx.dirty ? tx.changes() : [], schema: tx.schema.dirty ? tx.schema.changes() : null });
      return String(opId ?? engine.lastAppliedOperationId);
    });
  }
}
