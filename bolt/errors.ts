import { CypherError } from '../query/cypher/errors.js';
import { DbError } from '../storage/errors.js';
import { gqlStatusOf } from './gql-status.js';
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
  // Neo4j reports a failed drop as a database error, even of an index that does not exist.
  if (err.detail === 'IndexDropFailed' || err.detail === 'ConstraintDropFailed') return `Neo.DatabaseError.${err.kind}.${err.detail}`;
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

export interface Failure {
  code: string;
  message: string;
  gqlStatus: string;
  description: string;
  classification: string;
  /** A fault of the server's own (logged), not of the request. */
  internal: boolean;
}

function codeOf(err: unknown): string {
  if (err instanceof BoltError) return err.code;
  if (err instanceof CypherError) return cypherCode(err);
  if (err instanceof DbError) return dbCode(err);
  if (err instanceof ProtocolError) return 'Neo.ClientError.Request.Invalid';
  return 'Neo.DatabaseError.General.UnknownError';
}

/** What a FAILURE carries for an error: the Neo4j status code, the message (ours unchanged), and the GQL status for it. */
export function failureOf(err: unknown): Failure {
  const message = err instanceof Error ? err.message : String(err);
  const code = codeOf(err);
  // Which rule an "equivalent ... already exists" names tells its GQL status apart.
  const detail = err instanceof CypherError ? (err.detail === 'EquivalentSchemaRuleAlreadyExists' ? (/equivalent index/.test(message) ? 'index' : 'constraint') : err.detail) : '';
  const internal = code.startsWith('Neo.DatabaseError.') && !(err instanceof CypherError && err.kind === 'Schema');
  return { code, message, ...gqlStatusOf(code, detail), internal };
}
