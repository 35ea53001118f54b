import type { Collection } from '../../storage/collection.js';
import type { GraphChange } from '../../storage/events/types.js';
import type { Query } from './ast.js';
import { bindQuery } from './binder.js';
import { Executor } from './executor.js';
import { GraphTx } from './graph-tx.js';
import { parseQuery } from './parser.js';
import { toJson } from './present.js';
import { fromJson, type Value } from './values.js';

export interface CypherResult {
  columns: string[];
  rows: unknown[][];
  /** The primitive changes a write query made (empty for a read). */
  changes: GraphChange[];
  nodesScanned: number;
}

const UPDATING = new Set(['create', 'set', 'remove', 'delete']);

/** Parses and checks a query (no data is read): throws a CypherError (400) naming the problem. */
export function compileQuery(text: string): Query {
  const query = parseQuery(text);
  bindQuery(query.clauses);
  return query;
}

export const isWriteQuery = (q: Query): boolean => q.clauses.some((c) => UPDATING.has(c.kind));

/**
 * Runs a compiled query against a collection. Writes go to an overlay and come back as
 * `changes` for one log event; the collection itself is not touched here.
 */
export function executeQuery(c: Collection, query: Query, parameters: Record<string, unknown>, options: { timeoutMs?: number; maxRows?: number } = {}): CypherResult {
  const tx = new GraphTx(c, options.timeoutMs);
  const params: Record<string, Value> = {};
  for (const [k, v] of Object.entries(parameters)) params[k] = fromJson(v);
  const rows = new Executor({ tx, params, distance: c.config.distance }, options.maxRows).run(query.clauses);
  const last = query.clauses[query.clauses.length - 1]!;
  const columns = last.kind === 'return' ? last.projection.items.map((i) => i.name) : [];
  return {
    columns,
    rows: rows.map((r) => columns.map((name) => toJson(r[name] ?? null, tx))),
    changes: tx.dirty ? tx.changes() : [],
    nodesScanned: tx.scanned,
  };
}
