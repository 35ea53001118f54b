import type { EvalContext } from '../evaluate.js';
import { CypherError } from '../errors.js';
import { isNumber, numberOf, type CypherNumber } from '../numbers.js';
import { typeName, type Value } from '../values.js';
import type { Work } from '../sink.js';
import type { Writer } from '../writes.js';

/** One output row of a procedure, by column name. */
export type ProcedureRow = Record<string, Value>;

/** What every procedure callable with CALL has, whichever way it runs. */
interface ProcedureInfo {
  /** Lower case, as the parser gives names. */
  name: string;
  /** As Neo4j spells it, for messages and listings. */
  display: string;
  mode: 'read' | 'write' | 'schema';
  minArgs: number;
  maxArgs: number;
  /** Output columns in order; none for a void procedure. */
  outputs: string[];
}

/**
 * A procedure callable with CALL. `mode` says what a call may do: read, write data, or change
 * the schema (a query does one or the other: Neo4j's rule, and one log entry per query here).
 * Most `run` to their rows at once; one that runs other queries and waits on the log between
 * them (apoc.periodic) is `work`, which pauses the query as its stages do.
 */
export type Procedure = ProcedureInfo &
  (
    | { run(args: Value[], ctx: EvalContext, writer: Writer): Iterable<ProcedureRow>; work?: never }
    | { work(args: Value[], ctx: EvalContext, writer: Writer): Work<ProcedureRow[]>; run?: never }
  );

export const procedureError = (detail: string, message: string) => new CypherError('Procedure', detail, `ProcedureError (${detail}): ${message}`);

/** A procedure argument's type check: the message names the procedure and the argument. */
export function expectArg<T extends Value>(proc: string, index: number, v: Value, ok: (v: Value) => v is T, what: string): T {
  if (ok(v)) return v;
  throw procedureError('ProcedureCallFailed', `${proc}: argument ${index + 1} must be ${what}, got ${v === null ? 'null' : `a ${typeName(v)}`}`);
}

export const isString = (v: Value): v is string => typeof v === 'string';

export const isStringList = (v: Value): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** An integer argument; a whole float (drivers send JavaScript numbers as floats) counts, as Neo4j coerces it. */
export function integerArg(proc: string, index: number, v: Value): number {
  if (isNumber(v) && Number.isInteger(numberOf(v))) return numberOf(v);
  throw procedureError('ProcedureCallFailed', `${proc}: argument ${index + 1} must be an integer, got ${v === null ? 'null' : `a ${typeName(v)}`}`);
}

/** A list of numbers, as JS numbers. */
export function vectorArg(proc: string, index: number, v: Value): number[] {
  const list = expectArg(proc, index, v, (x): x is CypherNumber[] => Array.isArray(x) && x.every(isNumber), 'a list of numbers');
  return list.map(numberOf);
}
