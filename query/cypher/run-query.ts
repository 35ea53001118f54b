import type { Collection } from '../../storage/collection.js';
import type { GraphChange } from '../../storage/events/types.js';
import type { Query } from './ast.js';
import { bindQuery } from './binder.js';
import { checkDepth, tooDeep } from './depth.js';
import { Executor } from './executor.js';
import { GraphTx } from './graph-tx.js';
import { QueryGuard, type GuardOptions } from './guard.js';
import { parseQuery } from './parser.js';
import { toJson } from './present.js';
import { fromJson, setEntry, type Value } from './values.js';

export interface CypherResult {
  columns: string[];
  rows: unknown[][];
  /** The primitive changes a write query made (empty for a read). */
  changes: GraphChange[];
  nodesScanned: number;
}

const UPDATING = new Set(['create', 'merge', 'set', 'remove', 'delete']);

/** Parses and checks a query (no data is read): throws a CypherError (400) naming the problem. */
export function compileQuery(text: string): Query {
  return stackSafe(() => {
    const query = parseQuery(text);
    checkDepth(query);
    bindQuery(query.clauses);
    return query;
  });
}

export const isWriteQuery = (q: Query): boolean => q.clauses.some((c) => UPDATING.has(c.kind));

/**
 * Runs a compiled query against a collection, within a deadline and a memory budget (see
 * QueryGuard; the defaults are 30 s and 256 MB). Writes go to an overlay and come back as
 * `changes` for one log event; the collection itself is not touched here, so a query that
 * fails applies nothing.
 */
export function executeQuery(c: Collection, query: Query, parameters: Record<string, unknown>, options: GuardOptions = {}): CypherResult {
  return stackSafe(() => {
    const tx = new GraphTx(c);
    const guard = new QueryGuard(options);
    const params: Record<string, Value> = {};
    for (const [k, v] of Object.entries(parameters)) setEntry(params, k, fromJson(v));
    const rows = new Executor({ tx, params, guard, distance: c.config.distance }).run(query.clauses);
    const last = query.clauses[query.clauses.length - 1]!;
    const columns = last.kind === 'return' ? last.projection.items.map((i) => i.name) : [];
    return {
      columns,
      rows: rows.map((r) => columns.map((name) => toJson(Object.hasOwn(r, name) ? r[name]! : null, tx))),
      changes: tx.dirty ? tx.changes() : [],
      nodesScanned: tx.scanned,
    };
  });
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
