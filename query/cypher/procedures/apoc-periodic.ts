import { apocFailure } from '../apoc-functions.js';
import type { Query } from '../ast.js';
import type { BatchCommits } from '../batch-commits.js';
import { checkUniqueness } from '../constraints.js';
import { CypherError } from '../errors.js';
import type { EvalContext, Row } from '../evaluate.js';
import { Executor } from '../executor.js';
import { GraphTx, noUpdates, type UpdateCounts } from '../graph-tx.js';
import { isNumber, numberOf } from '../numbers.js';
import { changesSchema, isWriteQuery } from '../query-kind.js';
import { columnsOf, compileQuery } from '../run-query.js';
import type { Work } from '../sink.js';
import { isMap, typeName, type MapValue, type Value } from '../values.js';
import type { Procedure, ProcedureRow } from './types.js';

/**
 * apoc.periodic.iterate and apoc.periodic.commit: a statement run batch by batch, each batch a
 * transaction of its own: its writes are logged as one entry (through the same path as an
 * auto-commit query's) before the next batch starts, and stay when a later batch fails. A batch
 * that fails is counted and its error reported in the result, as APOC does; the query's deadline
 * and memory budget still stop the whole call (the batches committed by then stay). Batches run
 * one after another: `parallel: true` is accepted and runs them in order.
 */

type Fail = (message: string) => Error;

const ITERATE = 'apoc.periodic.iterate';
const COMMIT = 'apoc.periodic.commit';

/** A name as Cypher text, quoted when it needs it. */
const quote = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name.replace(/`/g, '``')}\``);

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What stops the whole call rather than one batch: the query's deadline or memory budget. */
const stopsTheQuery = (e: unknown): e is CypherError => e instanceof CypherError && e.kind === 'TransientError';

/** The query's deadline or budget, with what the batches had committed by then. */
function stopped(e: CypherError, display: string, batches: number, rows: number): CypherError {
  return new CypherError(e.kind, e.detail, `${e.message} (${display} had committed ${batches} batch${batches === 1 ? '' : 'es'} of ${rows} row${rows === 1 ? '' : 's'} by then: those stay written)`);
}

/** The batch commits of the query, refused where a batch cannot be its own write (see BatchCommits). */
function batchCommitsOf(ctx: EvalContext, display: string, fail: Fail): BatchCommits {
  if (ctx.tx.dirty || ctx.tx.schema.dirty) {
    throw fail(`${display} commits each batch on its own, so it cannot follow writes of the same query or transaction that are not committed yet: commit those first, or call it in a query of its own`);
  }
  if (!ctx.batches) throw fail(`${display} commits each batch as a write of its own, which it cannot do here (inside apoc.when, apoc.do.when, apoc.case, another apoc.periodic, or a query run in one go): call it in a query of its own`);
  return ctx.batches;
}

/** A statement the procedure runs, compiled; a failure to compile is the procedure's. */
function compileStatement(text: string, what: string, fail: Fail): Query {
  let query: Query;
  try {
    query = compileQuery(text);
  } catch (e) {
    if (e instanceof CypherError) throw fail(`${what}: ${e.message}`);
    throw e;
  }
  if (query.unions.length > 0 || query.explain) throw fail(`${what} cannot use UNION, EXPLAIN or PROFILE here`);
  if (query.clauses.some((c) => c.kind === 'procedure' && c.name.startsWith('$')) || changesSchema(query.clauses)) throw fail(`${what} cannot change the schema or run an administration command`);
  return query;
}

/** Runs a compiled statement in the overlay with these parameters (no outer variables, as in APOC); answers its rows. */
function* runStatement(ctx: EvalContext, tx: GraphTx, query: Query, params: MapValue): Work<Row[]> {
  return yield* new Executor({ tx, guard: ctx.guard, distance: ctx.distance, ...(ctx.catalog ? { catalog: ctx.catalog } : {}), params: { ...params } }).run(query.clauses);
}

const count = (errors: Record<string, number>, e: unknown) => {
  const message = e instanceof Error ? e.message : String(e);
  errors[message] = (errors[message] ?? 0) + 1;
};

const addCounts = (into: UpdateCounts, from: UpdateCounts) => {
  for (const key of Object.keys(into) as (keyof UpdateCounts)[]) into[key] += from[key];
};

// ---- apoc.periodic.iterate ----

const BATCH_MODES = ['BATCH', 'BATCH_SINGLE', 'SINGLE'] as const;
type BatchMode = (typeof BATCH_MODES)[number];

const ITERATE_KEYS = new Set(['batchSize', 'parallel', 'retries', 'batchMode', 'iterateList', 'params', 'concurrency', 'failedParams', 'planner']);

interface IterateConfig {
  batchSize: number;
  retries: number;
  mode: BatchMode;
  params: MapValue;
  failedParams: number;
}

function integer(config: MapValue, key: string, fallback: number, fail: Fail): number {
  const v = config[key];
  if (v === undefined || v === null) return fallback;
  if (isNumber(v) && Number.isInteger(numberOf(v))) return numberOf(v);
  throw fail(`${key} must be an integer, got ${typeName(v)}`);
}

function iterateConfig(v: Value | undefined, fail: Fail): IterateConfig {
  if (v !== undefined && v !== null && !isMap(v)) throw fail(`the configuration must be a map, got ${typeName(v)}`);
  const config = v ?? {};
  for (const key of Object.keys(config)) if (!ITERATE_KEYS.has(key)) throw fail(`unknown configuration key '${key}' (${ITERATE} takes ${[...ITERATE_KEYS].join(', ')})`);
  const batchSize = integer(config, 'batchSize', 10000, fail);
  if (batchSize < 1) throw fail('batchSize parameter must be > 0');
  if (integer(config, 'concurrency', 1, fail) < 1) throw fail('concurrency parameter must be > 0');
  for (const key of ['parallel', 'iterateList']) if (config[key] !== undefined && config[key] !== null && typeof config[key] !== 'boolean') throw fail(`${key} must be a boolean`);
  const params = config.params ?? {};
  if (!isMap(params)) throw fail(`params must be a map, got ${typeName(params)}`);
  let mode: BatchMode = config.iterateList === false ? 'SINGLE' : 'BATCH';
  if (config.batchMode !== undefined && config.batchMode !== null) {
    const named = String(config.batchMode).toUpperCase();
    if (!(BATCH_MODES as readonly string[]).includes(named)) throw fail(`Invalid batch mode: \`${String(config.batchMode)}\`. Valid values are: [${BATCH_MODES.join(', ')}]`);
    mode = named as BatchMode;
  }
  return { batchSize, retries: Math.max(0, integer(config, 'retries', 0, fail)), mode, params, failedParams: integer(config, 'failedParams', -1, fail) };
}

/**
 * The statement a batch runs, as APOC prepares it: one that reads the outer columns as
 * parameters (`$name AS`) runs once per row; in BATCH mode the others get `UNWIND $_batch AS
 * _batch WITH _batch.col AS col …` in front (unless they unwind $_batch themselves) and run once
 * per batch; BATCH_SINGLE runs once per batch as written; SINGLE once per row, as `WITH $col AS col …`.
 */
function innerStatement(action: string, mode: BatchMode, columns: string[]): { text: string; perBatch: boolean } {
  const names = columns.map((c) => escapeRegex(quote(c))).join('|');
  if (new RegExp(`[{$](${names})\\}?\\s+AS\\s+`, 'is').test(action)) return { text: action, perBatch: false };
  const withMapping = (item: (c: string) => string) => (columns.length === 0 ? '' : ` WITH ${columns.map(item).join(', ')}`);
  switch (mode) {
    case 'SINGLE':
      return { text: `${withMapping((c) => `$${quote(c)} AS ${quote(c)}`)} ${action}`, perBatch: false };
    case 'BATCH':
      if (/UNWIND\s+[{$]_batch\}?\s+AS\s+/is.test(action)) return { text: action, perBatch: true };
      return { text: `UNWIND $_batch AS _batch${withMapping((c) => `_batch.${quote(c)} AS ${quote(c)}`)} ${action}`, perBatch: true };
    case 'BATCH_SINGLE':
      return { text: action, perBatch: true };
  }
}

function* iterate([outerText, actionText, configValue]: Value[], ctx: EvalContext): Work<ProcedureRow[]> {
  const fail = (m: string) => apocFailure('procedure', ITERATE, m);
  if (typeof outerText !== 'string' || typeof actionText !== 'string') throw fail('the two statements must be strings');
  const config = iterateConfig(configValue, fail);
  const commits = batchCommitsOf(ctx, ITERATE, fail);
  const outer = compileStatement(outerText, 'the first statement', fail);
  if (isWriteQuery(outer)) throw fail('the first statement must only read here (its rows feed the batches, which write on their own)');
  const started = performance.now();
  const rows = yield* runStatement(ctx, ctx.tx, outer, config.params);
  const columns = columnsOf(outer.clauses);
  const inner = innerStatement(actionText, config.mode, columns);
  let action: Query | Error;
  try {
    action = compileStatement(inner.text, 'the second statement', fail);
  } catch (e) {
    // As in APOC, a statement that does not compile fails each batch.
    if (!(e instanceof Error)) throw e;
    action = e;
  }
  const r = { batches: 0, committed: 0, failedOps: 0, failedBatches: 0, retries: 0, committedBatches: 0 };
  const operationErrors: Record<string, number> = {};
  const batchErrors: Record<string, number> = {};
  const failedParams: Record<string, Value> = {};
  const statistics = noUpdates();
  let done = 0;
  // As in APOC, no rows still make one (empty) batch.
  for (let from = 0; from === 0 || from < rows.length; from += config.batchSize) {
    const batch = rows.slice(from, from + config.batchSize).map((row) => Object.fromEntries(columns.map((c) => [c, row[c] ?? null])) as MapValue);
    for (let attempt = 0; ; attempt++) {
      const held = ctx.guard.used;
      const tx = new GraphTx(ctx.tx.collection, ctx.tx.provisional);
      let running = true;
      try {
        if (action instanceof Error) throw action;
        if (inner.perBatch) yield* runStatement(ctx, tx, action, { ...config.params, _count: done, _batch: batch });
        else for (const [i, row] of batch.entries()) yield* runStatement(ctx, tx, action, { ...config.params, ...row, _count: done + i, _batch: batch });
        checkUniqueness(tx);
        running = false;
        ctx.tx.catchUp(yield* commits.commit(tx, ITERATE));
        r.committed += batch.length;
        r.committedBatches++;
        addCounts(statistics, tx.counts);
        break;
      } catch (e) {
        if (stopsTheQuery(e)) throw stopped(e, ITERATE, r.committedBatches, r.committed);
        if (running) {
          r.failedOps += batch.length;
          count(operationErrors, e);
          if (config.failedParams >= 0) failedParams[String(r.batches)] = batch.slice(0, config.failedParams + 1);
        }
        if (attempt < config.retries) {
          r.retries++;
          continue;
        }
        r.failedBatches++;
        count(batchErrors, e);
        break;
      } finally {
        ctx.guard.release(ctx.guard.used - held);
      }
    }
    r.batches++;
    done += batch.length;
  }
  return [
    {
      batches: r.batches,
      total: rows.length,
      timeTaken: Math.floor((performance.now() - started) / 1000),
      committedOperations: r.committed,
      failedOperations: r.failedOps,
      failedBatches: r.failedBatches,
      retries: r.retries,
      errorMessages: operationErrors,
      batch: { total: r.batches, failed: r.failedBatches, committed: r.batches - r.failedBatches, errors: batchErrors },
      operations: { total: rows.length, failed: r.failedOps, committed: r.committed, errors: operationErrors },
      wasTerminated: false,
      failedParams,
      updateStatistics: { ...statistics },
    },
  ];
}

// ---- apoc.periodic.commit ----

/** The sum of the statement's one column, the updates an execution made (APOC's contract for commit). */
function updatesOf(rows: Row[], query: Query, fail: Fail): number {
  const columns = columnsOf(query.clauses);
  if (columns.length !== 1) throw fail(`the statement must return one column, the number of updates it made, not ${columns.length}`);
  return rows.reduce((sum, row) => {
    const v = row[columns[0]!] ?? null;
    if (!isNumber(v) || !Number.isInteger(numberOf(v))) throw fail(`the statement must return an integer count of updates, got ${typeName(v)}`);
    return sum + numberOf(v);
  }, 0);
}

function* commit([statement, paramsValue]: Value[], ctx: EvalContext): Work<ProcedureRow[]> {
  const fail = (m: string) => apocFailure('procedure', COMMIT, m);
  if (typeof statement !== 'string') throw fail('the statement must be a string');
  if (paramsValue !== undefined && paramsValue !== null && !isMap(paramsValue)) throw fail(`the parameters must be a map, got ${typeName(paramsValue)}`);
  const params = paramsValue ?? {};
  if (!/\slimit\s/i.test(statement)) throw fail('the statement sent to apoc.periodic.commit must contain a `limit`');
  const commits = batchCommitsOf(ctx, COMMIT, fail);
  const query = compileStatement(statement, 'the statement', fail);
  const started = performance.now();
  let total = 0;
  let executions = 0;
  let batches = 0;
  let failedBatches = 0;
  const batchErrors: Record<string, number> = {};
  let updates = 0;
  do {
    batches++;
    const held = ctx.guard.used;
    const tx = new GraphTx(ctx.tx.collection, ctx.tx.provisional);
    try {
      const rows = yield* runStatement(ctx, tx, query, { ...params, _count: updates, _total: total });
      updates = updatesOf(rows, query, fail);
      checkUniqueness(tx);
      ctx.tx.catchUp(yield* commits.commit(tx, COMMIT));
    } catch (e) {
      if (stopsTheQuery(e)) throw stopped(e, COMMIT, executions, total);
      failedBatches++;
      count(batchErrors, e);
      updates = 0;
    } finally {
      ctx.guard.release(ctx.guard.used - held);
    }
    total += updates;
    if (updates > 0) executions++;
  } while (updates > 0);
  return [{ updates: total, executions, runtime: Math.floor((performance.now() - started) / 1000), batches, failedBatches, batchErrors, failedCommits: 0, commitErrors: {}, wasTerminated: false }];
}

export const APOC_PERIODIC_PROCEDURES: Procedure[] = [
  {
    name: 'apoc.periodic.iterate',
    display: ITERATE,
    mode: 'write',
    minArgs: 3,
    maxArgs: 3,
    outputs: ['batches', 'total', 'timeTaken', 'committedOperations', 'failedOperations', 'failedBatches', 'retries', 'errorMessages', 'batch', 'operations', 'wasTerminated', 'failedParams', 'updateStatistics'],
    work: iterate,
  },
  {
    name: 'apoc.periodic.commit',
    display: COMMIT,
    mode: 'write',
    minArgs: 1,
    maxArgs: 2,
    outputs: ['updates', 'executions', 'runtime', 'batches', 'failedBatches', 'batchErrors', 'failedCommits', 'commitErrors', 'wasTerminated'],
    work: commit,
  },
];
