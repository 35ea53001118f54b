import type { DatabaseCatalog } from './procedures/catalog.js';
import { BatchCommits, type BatchLog } from './batch-commits.js';
import type { Collection } from '../../storage/collection.js';
import type { Distance, GraphChange } from '../../storage/events/types.js';
import { queryParts, type Clause, type Query } from './ast.js';
import { compileError, CypherError, runtimeError } from './errors.js';
import { bindQuery } from './binder.js';
import { checkDepth, tooDeep } from './depth.js';
import { Executor, returnsRows } from './executor.js';
import { checkUniqueness } from './constraints.js';
import { GraphTx, type UpdateCounts } from './graph-tx.js';
import { QueryGuard, type GuardOptions } from './guard.js';
import { drain, type Sink, type Work } from './sink.js';
import { rowBytes } from './sizes.js';
import type { EvalContext, Row } from './evaluate.js';
import { parseQuery } from './parser.js';
import { PROCEDURES } from './procedures/registry.js';
import { changesSchema, isWriteQuery, writesData } from './query-kind.js';
import { toJson } from './present.js';
import { planOf, type PlanOperator } from './explain-plan.js';
import { ClauseCounts } from './profile.js';
import { fromJson, keyOf, setEntry, type Value } from './values.js';

export interface CypherResult {
  columns: string[];
  rows: unknown[][];
  /** The primitive changes a write query made (empty for a read). */
  changes: GraphChange[];
  /** Index and constraint changes (a `collection_settings` entry), or null. */
  schema: Record<string, Record<string, unknown>> | null;
  /** For a database that does not exist yet: the vectors a vector index asked it to have. */
  collectionConfig: { size: number; distance: Distance } | null;
  nodesScanned: number;
  /** What the query wrote, counted operation by operation (a transaction's overlay: all its queries so far). */
  counts: UpdateCounts;
  /** EXPLAIN: the plan (and no rows; nothing ran). */
  plan?: PlanOperator;
  /** PROFILE: the plan with what each clause did. */
  profile?: PlanOperator;
}

/** Parses and checks a query (no data is read): throws a CypherError (400) naming the problem. */
export function compileQuery(text: string): Query {
  return stackSafe(() => {
    const query = parseQuery(text);
    checkDepth(query);
    for (const part of queryParts(query)) bindQuery(part);
    checkUnion(query);
    const parts = queryParts(query);
    if (parts.some(changesSchema) && parts.some(writesData)) {
      throw new CypherError('Transaction', 'ForbiddenDueToTransactionType', 'TransactionError (ForbiddenDueToTransactionType): a query cannot both change the schema (indexes, constraints) and write data; run them as two queries');
    }
    return query;
  });
}

export { isWriteQuery } from './query-kind.js';

/** The columns a query part answers: its RETURN's, or a standalone CALL's. */
export const columnsOf = (part: Clause[]): string[] => {
  const last = part[part.length - 1]!;
  if (last.kind === 'procedure' && last.standalone) return (last.yields ?? PROCEDURES.get(last.name)!.outputs.map((name) => ({ alias: name }))).map((y) => y.alias);
  return last.kind === 'return' ? last.projection.items.map((i) => i.name) : [];
};

/** UNION parts return the same columns, and one query does not mix UNION with UNION ALL. */
function checkUnion(q: Query): void {
  if (q.unions.length === 0) return;
  const columns = columnsOf(q.clauses).join(',');
  for (const u of q.unions) {
    if (u.all !== q.unions[0]!.all) throw compileError('InvalidClauseComposition', 'a query cannot mix UNION and UNION ALL', u.pos);
    const last = u.clauses[u.clauses.length - 1]!;
    if (last.kind !== 'return' || q.clauses[q.clauses.length - 1]!.kind !== 'return') throw compileError('InvalidClauseComposition', 'each part of a UNION must end with RETURN', u.pos);
    if (columnsOf(u.clauses).join(',') !== columns) throw compileError('DifferentColumnsInUnion', `every part of a UNION must return the same columns (${columns || 'none'})`, u.pos);
  }
}

/** How a caller other than the REST route runs a query. */
export interface QueryRun {
  /** An overlay earlier queries of the same transaction wrote to (Bolt's explicit transactions); a fresh one by default. */
  tx?: GraphTx;
  /** How a result value is written out; JSON (DECISIONS.md) by default. */
  present?: (v: Value, tx: GraphTx) => unknown;
  /** The server's databases, for SHOW DATABASES. */
  catalog?: DatabaseCatalog;
  /** Where apoc.periodic logs each batch (a write run in slices only; see BatchCommits). */
  batchLog?: BatchLog;
}

/**
 * Runs a compiled query against a collection, within a deadline and a memory budget (see
 * QueryGuard; the defaults are 30 s and 256 MB). Writes go to an overlay and come back as
 * `changes` for one log event; the collection itself is not touched here, so a query that
 * fails applies nothing. Runs in one go: see executeQueryInSlices for the server's way.
 */
export function executeQuery(c: Collection, query: Query, parameters: Record<string, unknown>, options: GuardOptions = {}, run: QueryRun = {}): CypherResult {
  return stackSafe(() => drain(queryWork(c, query, parameters, new QueryGuard(options), run)));
}

/**
 * How long a query runs before it lets other work in, unless its options say otherwise: the
 * slice of a Cypher replica's thread, where it delays only the replica's other queries (on the
 * request thread the server passes shorter slices; see server/next-turn.ts).
 */
export const QUERY_SLICE_MS = 4;

/**
 * As executeQuery, but in slices of `options.sliceMs` (QUERY_SLICE_MS by default): between
 * two, `pause` lets the event loop answer other requests, so a long query never holds the
 * server. Another write may apply while a query is paused: reads see each write whole (read
 * committed, as in Neo4j), and a write query whose changes no longer apply is refused when logged.
 */
export async function executeQueryInSlices(c: Collection, query: Query, parameters: Record<string, unknown>, options: GuardOptions, run: QueryRun, pause: () => Promise<void>): Promise<CypherResult> {
  const guard = new QueryGuard({ sliceMs: QUERY_SLICE_MS, ...options });
  const batches = run.batchLog ? new BatchCommits(run.batchLog) : undefined;
  const work = stackSafe(() => queryWork(c, query, parameters, guard, run, batches));
  for (;;) {
    const step = stackSafe(() => work.next());
    if (step.done) return step.value;
    // A batch waiting for its log entry is the pause.
    if (!(batches && (await batches.settle()))) await pause();
    guard.resume();
  }
}

/** A result read as it is produced (see streamQuery). */
export interface ResultStream {
  columns: string[];
  /** Up to `n` more rows, presented (every row left for n < 0); fewer only once the result ends. */
  take(n: number): Promise<unknown[][]>;
  /** True once the result has no row left to take. */
  readonly exhausted: boolean;
  /** Stops the query where it is (the rest of the result is not wanted). */
  close(): void;
}

/**
 * A read query whose rows are produced as they are taken: the query runs (in slices, as in
 * executeQueryInSlices) only until it has the rows asked for plus one, then waits, holding
 * nothing but its stages' state, so a result of any size streams in the memory of a batch.
 * Null for a query that writes or has UNION (run those with executeQueryInSlices).
 */
export function streamQuery(c: Collection, query: Query, parameters: Record<string, unknown>, options: GuardOptions, run: QueryRun, pause: () => Promise<void>): ResultStream | null {
  if (query.unions.length > 0 || isWriteQuery(query) || query.explain) return null;
  const guard = new QueryGuard({ sliceMs: QUERY_SLICE_MS, ...options });
  const tx = run.tx ?? new GraphTx(c);
  const present = run.present ?? toJson;
  const columns = columnsOf(query.clauses);
  const buffer: Row[] = [];
  const bytes: number[] = [];
  let wanted = 0;
  const keep = returnsRows(query.clauses);
  const end: Sink = {
    *push(row: Row): Work<boolean> {
      if (!keep) return true;
      const size = rowBytes(row);
      guard.charge(size, 'the rows waiting to be taken');
      buffer.push(row);
      bytes.push(size);
      // Enough rows: wait here until more are asked for.
      while (buffer.length >= wanted) yield;
      return true;
    },
    *close(): Work<void> {},
  };
  const work = stackSafe(() => new Executor(contextOf(c, query, parameters, guard, tx, run.catalog)).runInto(query.clauses, end));
  let finished = false;
  return {
    columns,
    get exhausted() {
      return finished && buffer.length === 0;
    },
    async take(n) {
      // One row more than asked, so that `exhausted` is known when the batch is handed over.
      wanted = n < 0 ? Infinity : n + 1;
      while (!finished && buffer.length < wanted) {
        if (stackSafe(() => work.next()).done) finished = true;
        else if (buffer.length < wanted) {
          await pause();
          guard.resume();
        }
      }
      const out = buffer.splice(0, n < 0 ? buffer.length : n);
      for (const size of bytes.splice(0, out.length)) guard.release(size);
      return out.map((r) => presentRow(r, columns, present, tx));
    },
    close() {
      finished = true;
      buffer.length = 0;
      work.return();
    },
  };
}

/** A result row as its columns' values, written out by `present` (a column the row lacks is null). */
const presentRow = (r: Row, columns: string[], present: NonNullable<QueryRun['present']>, tx: GraphTx): unknown[] =>
  columns.map((name) => present(Object.hasOwn(r, name) ? r[name]! : null, tx));

/** What a query's stages evaluate with: its overlay, its parameters (own entries only) and its limits. */
/** As Neo4j, a query refers to no parameter it is not given, even one no row would have read. */
function checkParameters(query: Query, parameters: Record<string, unknown>): void {
  const missing = (query.parameters ?? []).filter((name) => !Object.hasOwn(parameters, name));
  if (missing.length > 0) throw runtimeError('ParameterMissing', 'MissingParameter', `Expected parameter(s): ${missing.join(', ')}`);
}

function contextOf(c: Collection, query: Query, parameters: Record<string, unknown>, guard: QueryGuard, tx: GraphTx, catalog?: DatabaseCatalog, batches?: BatchCommits): EvalContext {
  checkParameters(query, parameters);
  const params: Record<string, Value> = {};
  for (const [k, v] of Object.entries(parameters)) setEntry(params, k, fromJson(v));
  return { tx, params, guard, distance: c.config.distance, ...(catalog ? { catalog } : {}), ...(batches ? { batches } : {}) };
}

function* queryWork(c: Collection, query: Query, parameters: Record<string, unknown>, guard: QueryGuard, run: QueryRun, batches?: BatchCommits): Work<CypherResult> {
  const tx = run.tx ?? new GraphTx(c);
  const present = run.present ?? toJson;
  const columns = columnsOf(query.clauses);
  const planInput = { labelCount: (l: string) => tx.labelCount(l), columns, resultRows: null };
  if (query.explain === 'explain') return { columns, rows: [], changes: [], schema: null, collectionConfig: null, nodesScanned: 0, counts: { ...tx.counts }, plan: planOf(query, { ...planInput, counts: null }) };
  const ctx = contextOf(c, query, parameters, guard, tx, run.catalog, batches);
  const counts = query.explain === 'profile' ? new ClauseCounts() : null;
  let rows = yield* new Executor(ctx, counts).run(query.clauses);
  for (const u of query.unions) rows = rows.concat(yield* new Executor(ctx, counts).run(u.clauses));
  if (query.unions.length > 0 && !query.unions[0]!.all) {
    // UNION keeps one of each distinct row.
    const seen = new Set<string>();
    rows = rows.filter((r) => {
      const key = keyOf(columns.map((name) => (Object.hasOwn(r, name) ? r[name]! : null)));
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  checkUniqueness(tx);
  return {
    columns,
    rows: rows.map((r) => presentRow(r, columns, present, tx)),
    changes: tx.dirty ? tx.changes() : [],
    schema: tx.schema.dirty ? tx.schema.changes() : null,
    collectionConfig: tx.schema.collectionConfig,
    nodesScanned: tx.scanned,
    counts: { ...tx.counts },
    ...(counts ? { profile: planOf(query, { ...planInput, counts, resultRows: rows.length }) } : {}),
  };
}

/**
 * The last line of defence against recursion the limits did not foresee (a value nested very
 * deep, a very long pattern): the stack overflow becomes a 400, and the overlay it leaves is dropped.
 */
function stackSafe<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof RangeError && /call stack/i.test(err.message)) throw tooDeep();
    throw err;
  }
}
