import type { TraverseRequest } from '../query/api/graph-body.js';
import type { CypherResultText } from '../query/api/graph-json.js';
import type { GuardOptions } from '../query/cypher/guard.js';

/**
 * The state a Cypher replica starts from: a snapshot of the views (snapshot-codec.ts) at
 * operation `opId`, in the pieces it was encoded in; the replica joins them on its own thread
 * (tens of MB the request thread would otherwise copy in one go).
 */
export interface StateMessage {
  type: 'state';
  opId: number;
  chunks: Uint8Array[];
}

/** Log entries the main thread has applied, in operation_id order, each as its stored record. */
export interface EntriesMessage {
  type: 'entries';
  entries: [opId: number, record: Uint8Array][];
}

/** A read-only query, run once the replica has applied operation `after` (read your own writes). */
export interface QueryMessage {
  type: 'query';
  id: number;
  /** The collection's own name (aliases are resolved on the main thread). */
  collection: string;
  text: string;
  parameters: Record<string, unknown>;
  after: number;
  limits: Pick<GuardOptions, 'timeoutMs' | 'memoryBytes'>;
}

/** A breadth-first walk (the traverse route), run once the replica has applied operation `after`. */
export interface TraverseMessage {
  type: 'traverse';
  id: number;
  collection: string;
  request: TraverseRequest;
  after: number;
}

export type ReplicaRequest = StateMessage | EntriesMessage | QueryMessage | TraverseMessage;

/** A query's result: its rows already written as JSON text (query/api/json-text.ts), so only a string crosses threads. */
export interface ResultAnswer extends CypherResultText {
  type: 'result';
  id: number;
}

/** A walk's answer, written as JSON text. */
export interface TraverseAnswer {
  type: 'traversed';
  id: number;
  json: string;
}

/** A query the pipeline refused (a DbError, or a CypherError with its classification), to be thrown again as such. */
export interface RefusalAnswer {
  type: 'refused';
  id: number;
  code: number;
  message: string;
  cypher?: { kind: string; detail: string; position?: { line: number; column: number } };
}

/** A query that failed for a reason other than the query (a bug): answered as a 500. */
export interface FailureAnswer {
  type: 'failed';
  id: number;
  error: string;
}

/**
 * The replica met an entry it cannot apply from its record alone (a streamed import staged
 * beside the log): a new copy must take its place. It finishes the requests it has begun.
 */
export interface ReloadAnswer {
  type: 'reload';
  opId: number;
}

/** A request the replica had not begun when it stopped applying entries (see ReloadAnswer): send it to another. */
export interface RetryAnswer {
  type: 'retry';
  id: number;
}

export type ReplicaAnswer = ResultAnswer | TraverseAnswer | RefusalAnswer | FailureAnswer | ReloadAnswer | RetryAnswer;
