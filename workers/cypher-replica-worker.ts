import { parentPort, workerData, type TransferListItem } from 'node:worker_threads';
import type { Collection } from '../storage/collection.js';
import { CollectionMap } from '../storage/engine/collection-map.js';
import { DataDirFloatFiles } from '../storage/floats/data-dir-float-files.js';
import { applyEvent } from '../storage/engine/apply-event.js';
import { DbError } from '../storage/errors.js';
import { headAfter, hex } from '../storage/log/chain.js';
import { decodeEntry } from '../storage/log/record.js';
import { collectGarbageSoon } from '../storage/floats/collect-garbage.js';
import { decodeSnapshot } from '../storage/snapshot/snapshot-codec.js';
import { traverseJson } from '../query/api/graph-json.js';
import { jsonText } from '../query/api/json-text.js';
import { CypherError } from '../query/cypher/errors.js';
import { queryTimeout } from '../query/cypher/guard.js';
import { toTypedJson } from '../query/cypher/present.js';
import { resolveValue, valueOf, type Resolved } from '../query/cypher/resolved-values.js';
import { compileQuery, executeQueryInSlices, streamQuery, type ResultStream } from '../query/cypher/run-query.js';
import { setEntry } from '../query/cypher/values.js';
import type { ExportMessage, OpenMessage, PullMessage, QueryMessage, ReplicaAnswer, ReplicaData, ReplicaRequest, TraverseMessage } from './replica-messages.js';
import { ReplicaExport } from './replica-export.js';
import { receiveState, StateStoppedError } from './state-stream.js';

/**
 * A Cypher read replica (cypher-replica.md): its own copy of the views, loaded from a snapshot
 * the main thread encoded, then kept current by applying the main thread's log entries with the
 * same apply code, in operation_id order. Read-only queries run here through the unchanged
 * pipeline, in slices, so entries and other queries are taken between two slices; walks (the
 * traverse route) run in one go. Bolt's reads are cursors kept here between two pulls, holding
 * a batch of rows (streamQuery), until they end or the main thread closes them. Exports are
 * encoded here too, a window ahead of the main thread (replica-export.ts). An entry that
 * fails to apply throws out of the message handler: the worker stops and the pool replaces it
 * with a fresh copy. Its thread starts at cypher-replica-thread.ts, which lowers its priority first.
 */
const port = parentPort!;
const send = (answer: ReplicaAnswer, transfer: TransferListItem[] = []): void => port.postMessage(answer, transfer);
const { dataDir } = (workerData ?? {}) as Partial<ReplicaData>;
/**
 * Floats the collections keep on disk (on_disk) go to files of this replica's own in the data
 * dir, as the request thread's do, not to RAM. Node closes the descriptors a thread opened when
 * it stops (replaced, crashed), so the files' space comes back then too.
 */
const floatFiles = dataDir ? new DataDirFloatFiles(dataDir) : null;
// No quantized codes either: queries that search an HNSW index run on the request thread.
const collections = new CollectionMap(floatFiles, false);
/** The newest operation_id applied here; -1 until the state has come. */
let applied = -1;
/** The log's chain hash at `applied` (an export's header names it): hex from the state, then the newest applied entry's; null for a log that keeps none. */
let head: string | Uint8Array | null = null;
/** Entries that came before the state (it is encoded while the main thread goes on applying). */
let early: [number, Uint8Array][] = [];
/** Set once an entry could not be applied here: the pool replaces this replica; nothing more is applied or begun. */
let stale = false;
/** Open cursors (Bolt's reads), by request id. */
const cursors = new Map<number, ResultStream>();
/** Exports being sent, by request id. */
const exports = new Map<number, ReplicaExport>();
/** Requests waiting for operation `after` to be applied here; a query's deadline counts the wait. */
let waiting: { id: number; after: number; run: () => void; expires?: NodeJS.Timeout }[] = [];

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function refusal(id: number, err: unknown): ReplicaAnswer {
  if (err instanceof CypherError) return { type: 'refused', id, code: err.code, message: err.message, cypher: { kind: err.kind, detail: err.detail, ...(err.position ? { position: err.position } : {}) } };
  if (err instanceof DbError) return { type: 'refused', id, code: err.code, message: err.message };
  return { type: 'failed', id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
}

function collection(name: string): Collection {
  const c = collections.get(name);
  if (!c) throw new DbError(404, `collection "${name}" not found`);
  return c;
}

function traverse(m: TraverseMessage): void {
  try {
    send({ type: 'traversed', id: m.id, json: jsonText(traverseJson(collection(m.collection), m.request)) });
  } catch (err) {
    send(refusal(m.id, err));
  }
}

async function run(m: QueryMessage, waitedMs: number): Promise<void> {
  try {
    const c = collection(m.collection);
    const result = await executeQueryInSlices(c, compileQuery(m.text), m.parameters, limitsAfter(m, waitedMs), { present: toTypedJson }, nextTurn);
    send({ type: 'result', id: m.id, columns: result.columns, rowsJson: jsonText(result.rows), rowCount: result.rows.length, nodesScanned: result.nodesScanned });
  } catch (err) {
    send(refusal(m.id, err));
  }
}

const limitsAfter = (m: QueryMessage | OpenMessage, waitedMs: number) => (m.limits.timeoutMs === undefined ? m.limits : { ...m.limits, timeoutMs: Math.max(1, m.limits.timeoutMs - waitedMs) });

/** A query with UNION cannot stream: its rows are built whole, then handed out as pulled. */
async function builtStream(m: OpenMessage, waitedMs: number): Promise<ResultStream> {
  const result = await executeQueryInSlices(collection(m.collection), compileQuery(m.text), parametersOf(m), limitsAfter(m, waitedMs), { present: resolveValue }, nextTurn);
  const rows = result.rows as Resolved[][];
  return {
    columns: result.columns,
    take: (n) => Promise.resolve(rows.splice(0, n < 0 ? rows.length : n)),
    get exhausted() {
      return rows.length === 0;
    },
    close: () => void (rows.length = 0),
  };
}

function parametersOf(m: OpenMessage): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of m.parameters) setEntry(out, k, valueOf(v));
  return out;
}

/** Opens a cursor and answers its first rows (or the error met making them). */
async function open(m: OpenMessage, waitedMs: number): Promise<void> {
  try {
    const query = compileQuery(m.text);
    const stream = streamQuery(collection(m.collection), query, parametersOf(m), limitsAfter(m, waitedMs), { present: resolveValue }, nextTurn) ?? (await builtStream(m, waitedMs));
    cursors.set(m.id, stream);
    await take(m.id, stream, m.first, stream.columns);
  } catch (err) {
    cursors.delete(m.id);
    send(refusal(m.id, err));
  }
}

async function take(id: number, stream: ResultStream, n: number, columns?: string[]): Promise<void> {
  const rows = (await stream.take(n)) as Resolved[][];
  // Closed meanwhile (DISCARD, a dropped connection): the main thread wants no answer; the rows are dropped.
  if (cursors.get(id) !== stream) return;
  if (stream.exhausted) cursors.delete(id);
  send({ type: 'rows', id, ...(columns ? { columns } : {}), rows, exhausted: stream.exhausted });
}

async function pull(m: PullMessage): Promise<void> {
  const stream = cursors.get(m.id);
  try {
    if (!stream) throw new Error(`no open cursor ${m.id} on this replica`);
    await take(m.id, stream, m.n);
  } catch (err) {
    cursors.delete(m.id);
    send(refusal(m.id, err));
  }
}

const headHex = (): string => (head === null ? '' : typeof head === 'string' ? head : hex(head));

/** Sends the export of a collection, taken at the operation applied here now. */
async function exportNow(m: ExportMessage): Promise<void> {
  const exp = new ReplicaExport(m, send);
  exports.set(m.id, exp);
  try {
    await exp.run(collection(m.collection), applied, headHex(), nextTurn);
  } catch (err) {
    send(refusal(m.id, err));
  } finally {
    exports.delete(m.id);
  }
}

function close(id: number): void {
  cursors.get(id)?.close();
  cursors.delete(id);
}

function applyEntries(entries: [number, Uint8Array][]): void {
  // Entries sent before the state: those up to its operation are in it, the rest are applied after it.
  if (applied < 0) {
    for (const entry of entries) early.push(entry);
    return;
  }
  for (const [opId, record] of entries) {
    if (stale) return;
    if (opId <= applied) continue;
    const event = decodeEntry(opId, record);
    if (event.type === 'import_collection' && event.staged) {
      stale = true;
      send({ type: 'reload', opId });
      for (const w of waiting) {
        clearTimeout(w.expires);
        send({ type: 'retry', id: w.id });
      }
      waiting = [];
      return;
    }
    applyEvent(collections, opId, event);
    applied = opId;
    // A copy: the hash's view would keep the whole record (a large import's) alive.
    if (head !== null) head = headAfter(record).slice();
  }
  const ready = waiting.filter((w) => w.after <= applied);
  waiting = waiting.filter((w) => w.after > applied);
  for (const w of ready) {
    clearTimeout(w.expires);
    w.run();
  }
}

/** Holds a request until its operation is applied here; a query still waiting at its deadline answers the timeout. */
function wait(m: QueryMessage | TraverseMessage | OpenMessage | ExportMessage, start: (waitedMs: number) => void): void {
  const since = performance.now();
  const entry: (typeof waiting)[number] = { id: m.id, after: m.after, run: () => start(performance.now() - since) };
  const timeoutMs = m.type === 'traverse' || m.type === 'export' ? undefined : m.limits.timeoutMs;
  if (timeoutMs !== undefined) {
    entry.expires = setTimeout(() => {
      waiting = waiting.filter((w) => w !== entry);
      send(refusal(m.id, queryTimeout(timeoutMs)));
    }, timeoutMs);
  }
  waiting.push(entry);
}

port.on('message', (m: ReplicaRequest) => {
  if (m.type === 'state') {
    let state: ReturnType<typeof decodeSnapshot>;
    try {
      state = decodeSnapshot(receiveState(m.stream), floatFiles);
    } catch (err) {
      // The request thread stopped sending it: it replaces this thread, or stops the replicas.
      if (err instanceof StateStoppedError) return;
      throw err;
    }
    for (const [name, c] of state.collections) collections.set(name, c);
    applied = m.opId;
    head = m.head;
    const before = early;
    early = [];
    applyEntries(before);
    send({ type: 'loaded' });
    // The state's pieces are garbage now; a thread that allocates little would keep them until its next major collection.
    collectGarbageSoon();
  } else if (m.type === 'entries') {
    applyEntries(m.entries);
  } else if (m.type === 'pull') {
    // A cursor begun here is served here, stale or not: its reads are of the state it began on.
    void pull(m);
  } else if (m.type === 'close') {
    close(m.id);
  } else if (m.type === 'export-taken') {
    exports.get(m.id)?.taken(m.bytes);
  } else if (m.type === 'export-close') {
    exports.get(m.id)?.close();
  } else {
    const start =
      m.type === 'query' ? (waitedMs: number) => void run(m, waitedMs) : m.type === 'open' ? (waitedMs: number) => void open(m, waitedMs) : m.type === 'export' ? () => void exportNow(m) : () => traverse(m);
    if (stale) send({ type: 'retry', id: m.id });
    else if (m.after <= applied) start(0);
    else wait(m, start);
  }
});
