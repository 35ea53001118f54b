import { apocFailure } from '../apoc-functions.js';
import type { EvalContext } from '../evaluate.js';
import { Executor } from '../executor.js';
import { isWriteQuery } from '../query-kind.js';
import { compileQuery } from '../run-query.js';
import { drain } from '../sink.js';
import { isMap, type Value } from '../values.js';
import type { Procedure, ProcedureRow } from './types.js';

/**
 * apoc.when / apoc.do.when / apoc.case / apoc.do.case: a Cypher text chosen by a condition, run
 * with the given parameters (and no outer variables, as in APOC) in this query's transaction, so
 * its writes are logged, counted and constraint-checked with the rest. Each row it returns is
 * one `value` map. The read forms refuse a text that writes, as APOC's do.
 */

/** How deep a text may run another (a text passing itself on as a parameter would recurse without end). */
const MAX_NESTING = 32;
let nesting = 0;

function runText(display: string, text: Value | undefined, params: Value | undefined, writes: boolean, ctx: EvalContext): ProcedureRow[] {
  const fail = (m: string) => apocFailure('procedure', display, m);
  if (text === undefined || text === null || text === '') return [];
  if (typeof text !== 'string') throw fail('the query must be a string');
  if (params !== undefined && params !== null && !isMap(params)) throw fail('the parameters must be a map');
  const query = compileQuery(text);
  if (query.unions.length > 0 || query.explain) throw fail('the query cannot use UNION, EXPLAIN or PROFILE here');
  if (!writes && isWriteQuery(query)) throw fail(`Write operations are not allowed in ${display}: use ${display.replace('apoc.', 'apoc.do.')}`);
  if (nesting >= MAX_NESTING) throw fail(`the queries nest more than ${MAX_NESTING} levels deep`);
  nesting++;
  try {
    const rows = drain(new Executor({ tx: ctx.tx, guard: ctx.guard, distance: ctx.distance, catalog: ctx.catalog, params: { ...(params ?? {}) } }).run(query.clauses));
    return rows.map((row) => ({ value: { ...row } }));
  } finally {
    nesting--;
  }
}

function when(display: string, writes: boolean): Procedure {
  return {
    name: display.toLowerCase(),
    display,
    mode: writes ? 'write' : 'read',
    minArgs: 2,
    maxArgs: 4,
    outputs: ['value'],
    run: ([condition, ifQuery, elseQuery, params], ctx) => runText(display, condition === true ? ifQuery : elseQuery, params, writes, ctx),
  };
}

/** apoc.case(conditionals, elseQuery, params): conditionals are [condition, query, condition, query …]; the first that holds runs. */
function caseOf(display: string, writes: boolean): Procedure {
  return {
    name: display.toLowerCase(),
    display,
    mode: writes ? 'write' : 'read',
    minArgs: 1,
    maxArgs: 3,
    outputs: ['value'],
    run: ([conditionals, elseQuery, params], ctx) => {
      const list = conditionals ?? [];
      if (!Array.isArray(list) || list.length % 2 !== 0) throw apocFailure('procedure', display, 'the conditionals must be a list of pairs: condition, query, condition, query …');
      for (let i = 0; i < list.length; i += 2) if (list[i] === true) return runText(display, list[i + 1], params, writes, ctx);
      return runText(display, elseQuery, params, writes, ctx);
    },
  };
}

export const APOC_WHEN_PROCEDURES: Procedure[] = [when('apoc.when', false), when('apoc.do.when', true), caseOf('apoc.case', false), caseOf('apoc.do.case', true)];
