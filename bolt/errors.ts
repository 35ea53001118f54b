import { CypherError } from '../query/cypher/errors.js';
import { DbError } from '../storage/errors.js';
import { ProtocolError } from './messages/requests.js';

/** A failure already in Neo4j's terms (authentication, an unknown database, a protocol misuse). */
export class BoltError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

export const unauthorized = (message: string) => new BoltError('Neo.ClientError.Security.Unauthorized', message);
export const databaseNotFound = (name: string) => new BoltError('Neo.ClientError.Database.DatabaseNotFound', `database "${name}" does not exist (a database is a collection)`);
/** Another write landed while the transaction was open: the driver's retrying functions run it again. */
export const outdated = () => new BoltError('Neo.TransientError.Transaction.Outdated', 'another write was committed while this transaction was open; run the transaction again');

const STATEMENT_KINDS = new Set(['SyntaxError', 'SemanticError', 'TypeError', 'ArgumentError', 'ArithmeticError', 'EntityNotFound', 'ParameterMissing']);

/** Error kinds named as Neo4j names them: Neo.ClientError.<kind>.<detail>. */
const CLASSIFIED_KINDS = new Set(['Procedure', 'Schema', 'Transaction']);

function cypherCode(err: CypherError): string {
  if (STATEMENT_KINDS.has(err.kind)) return `Neo.ClientError.Statement.${err.kind}`;
  if (CLASSIFIED_KINDS.has(err.kind)) return `Neo.ClientError.${err.kind}.${err.detail}`;
  if (err.kind === 'ConstraintVerificationFailed') return 'Neo.ClientError.Schema.ConstraintValidationFailed';
  if (err.detail === 'QueryTimeout') return 'Neo.ClientError.Transaction.TransactionTimedOut';
  if (err.detail === 'MemoryLimitExceeded') return 'Neo.TransientError.General.MemoryPoolOutOfMemoryError';
  return 'Neo.ClientError.Statement.ExecutionFailed';
}

function dbCode(err: DbError): string {
  switch (err.code) {
    case 400:
      return 'Neo.ClientError.Request.Invalid';
    case 401:
      return 'Neo.ClientError.Security.Unauthorized';
    case 403:
      return 'Neo.ClientError.Security.Forbidden';
    case 404:
      return 'Neo.ClientError.Statement.EntityNotFound';
    case 409:
      return 'Neo.TransientError.Transaction.Outdated';
    case 421:
      return 'Neo.ClientError.Cluster.NotALeader';
    case 413:
    case 429:
      return 'Neo.TransientError.Request.ResourceExhaustion';
    case 503:
      return 'Neo.TransientError.General.DatabaseUnavailable';
  }
  return 'Neo.DatabaseError.General.UnknownError';
}

/** The Neo4j status code and message a FAILURE carries for an error; the message is ours unchanged. */
export function failureOf(err: unknown): { code: string; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof BoltError) return { code: err.code, message };
  if (err instanceof CypherError) return { code: cypherCode(err), message };
  if (err instanceof DbError) return { code: dbCode(err), message };
  if (err instanceof ProtocolError) return { code: 'Neo.ClientError.Request.Invalid', message };
  return { code: 'Neo.DatabaseError.General.UnknownError', message };
}
