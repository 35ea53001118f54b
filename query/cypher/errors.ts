import { DbError } from '../../storage/errors.js';

/** Where in the query text something is: 1-based line and column. */
export interface Position {
  line: number;
  column: number;
}

/**
 * A query the engine refuses: a 400 whose message says what kind of error (the openCypher
 * classification, e.g. SyntaxError/UndefinedVariable), where, and what to change.
 */
export class CypherError extends DbError {
  constructor(readonly kind: string, readonly detail: string, message: string, readonly position?: Position) {
    super(400, message);
  }
}

const at = (p?: Position) => (p ? ` at line ${p.line}, column ${p.column}` : '');

/** An error found before running: syntax, scoping, aggregation or literal rules. */
export const compileError = (detail: string, message: string, position?: Position): CypherError =>
  new CypherError('SyntaxError', detail, `SyntaxError (${detail})${at(position)}: ${message}`, position);

/** An error met while running: a wrong argument type, a negative limit, deleting a connected node. */
export const runtimeError = (kind: string, detail: string, message: string): CypherError =>
  new CypherError(kind, detail, `${kind} (${detail}): ${message}`);

/** Clauses and constructs outside the supported subset. */
export const unsupported = (what: string, position?: Position): CypherError =>
  new CypherError('SyntaxError', 'Unsupported', `SyntaxError (Unsupported)${at(position)}: ${what} is not supported by this engine`, position);
