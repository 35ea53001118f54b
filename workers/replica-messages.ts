import type { TraverseRequest } from '../query/api/graph-body.js';
import type { CypherResultText } from '../query/api/graph-json.js';
import type { GuardOptions } from '../query/cypher/guard.js';
import type { Resolved, ResolvedMap } from '../query/cypher/resolved-values.js';
import type { StateStream } from './state-stream.js';

/**
 * The state a Cypher replica starts from: a snapshot of the views (snapshot-codec.ts) at
 * operation `opId`, whose pieces come on `stream` as the request thread encodes them; the
 * replica decodes them as they come, on its own thread (state-stream.ts).
 */
export interface StateMessage {
  type: 'state';
  opId: number;
  stream: StateStream;
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

/**
 * A read-only query whose rows are taken a batch at a time (Bolt's auto-commit reads): a cursor
 * kept on the replica under `id`, its first `first` rows produced before the answer (an error in
 * them is the query's), run once the replica has applied operation `after`.
 */
export interface OpenMessage {
  type: 'open';
  id: number;
  collection: string;
  text: string;
  /** The parameters as Resolved (the temporal, point and float classes do not cross threads). */
  parameters: ResolvedMap;
  after: number;
  limits: Pick<GuardOptions, 'timeoutMs' | 'memoryBytes'>;
  first: number;
}

/** Up to `n` more rows of an open cursor (all that are left for n < 0). */
export interface PullMessage {
  type: 'pull';
  id: number;
  n: number;
}

/** The rest of an open cursor is not wanted: the replica lets it go. No answer. */
export interface CloseMessage {
  type: 'close';
  id: number;
}

export type ReplicaRequest = StateMessage | EntriesMessage | QueryMessage | TraverseMessage | OpenMessage | PullMessage | CloseMessage;

/** A query's result: its rows already written as JSON text (query/api/json-text.ts), so only a string crosses threads. */
export interface ResultAnswer extends CypherResultText {
  type: 'result';
  id: number;
}

/** A cursor's rows (the answer to an open, with its columns, or to a pull); once `exhausted` the replica has let the cursor go. */
export interface RowsAnswer {
  type: 'rows';
  id: number;
  columns?: string[];
  rows: Resolved[][];
  exhausted: boolean;
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

/** The replica has its state and takes queries without waiting for it. */
export interface LoadedAnswer {
  type: 'loaded';
}

export type ReplicaAnswer = ResultAnswer | RowsAnswer | TraverseAnswer | RefusalAnswer | FailureAnswer | ReloadAnswer | RetryAnswer | LoadedAnswer;

/** A replica thread's workerData: the data dir its files for floats on disk go in (none: they are kept in RAM). */
export interface ReplicaData {
  dataDir: string | null;
}
