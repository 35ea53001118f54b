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
  /** The log's chain hash at `opId` in hex (an export's header names it); null for a log that keeps none. */
  head: string | null;
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

/**
 * An export of a collection (export-writer.ts), run once the replica has applied operation
 * `after`, taken at the operation it has applied then; its blocks come back as ChunkAnswers, no
 * more than EXPORT_WINDOW_BYTES ahead of those the main thread has taken (ExportTakenMessage).
 */
export interface ExportMessage {
  type: 'export';
  id: number;
  collection: string;
  after: number;
  /** Write the log's head hash in the header (an export does; a collection snapshot does not). */
  logHead: boolean;
  /** Answer the SHA-256 of the bytes with the end (a collection snapshot's checksum). */
  digest: boolean;
}

/** The main thread has taken `bytes` more of an export's chunks: the replica may send as many again. */
export interface ExportTakenMessage {
  type: 'export-taken';
  id: number;
  bytes: number;
}

/** The rest of an export is not wanted (the client went away): the replica stops it and lets its pin go. No answer. */
export interface ExportCloseMessage {
  type: 'export-close';
  id: number;
}

/** How far a replica's export runs ahead of what the main thread has taken: memory stays flat. */
export const EXPORT_WINDOW_BYTES = 4 * 2 ** 20;

export type ReplicaRequest = StateMessage | EntriesMessage | QueryMessage | TraverseMessage | OpenMessage | PullMessage | CloseMessage | ExportMessage | ExportTakenMessage | ExportCloseMessage;

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

/** An export has begun: what its HTTP headers say; its chunks follow. */
export interface ExportingAnswer {
  type: 'exporting';
  id: number;
  pointCount: number;
  edgeCount: number;
  dimension: number;
  /** The operation the export was taken at, and the log's head hash there ('' when not asked for): its header's. */
  operationId: number;
  logHead: string;
}

/** The export's next bytes, in order (their buffer is transferred). */
export interface ChunkAnswer {
  type: 'chunk';
  id: number;
  bytes: Uint8Array;
}

/** The export's last chunk was sent; `sha256` when asked for (hex). */
export interface ExportEndAnswer {
  type: 'export-end';
  id: number;
  sha256: string | null;
}

export type ReplicaAnswer = ResultAnswer | RowsAnswer | TraverseAnswer | RefusalAnswer | FailureAnswer | ReloadAnswer | RetryAnswer | LoadedAnswer | ExportingAnswer | ChunkAnswer | ExportEndAnswer;

/** A replica thread's workerData: the data dir its files for floats on disk go in (none: they are kept in RAM). */
export interface ReplicaData {
  dataDir: string | null;
}
