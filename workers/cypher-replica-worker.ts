import { parentPort } from 'node:worker_threads';
import type { Collection } from '../storage/collection.js';
import { applyEvent } from '../storage/engine/apply-event.js';
import { DbError } from '../storage/errors.js';
import { decodeEntry } from '../storage/log/record.js';
import { decodeSnapshot } from '../storage/snapshot/snapshot-codec.js';
import { joinChunks } from '../storage/codec/join-chunks.js';
import { traverseJson } from '../query/api/graph-json.js';
import { jsonText } from '../query/api/json-text.js';
import { CypherError } from '../query/cypher/errors.js';
import { queryTimeout } from '../query/cypher/guard.js';
import { toTypedJson } from '../query/cypher/present.js';
import { compileQuery, executeQueryInSlices } from '../query/cypher/run-query.js';
import type { QueryMessage, ReplicaAnswer, ReplicaRequest, TraverseMessage } from './replica-messages.js';
import { niceThisThread } from './thread-priority.js';

/**
 * A Cypher read replica (cypher-replica.md): its own copy of the views, loaded from a snapshot
 * the main thread encoded, then kept current by applying the main thread's log entries with the
 * same apply code, in operation_id order. Read-only queries run here through the unchanged
 * pipeline, in slices, so entries and other queries are taken between two slices; walks (the
 * traverse route) run in one go. An entry that fails to apply throws out of the message
 * handler: the worker stops and the pool replaces it with a fresh copy.
 */
const port = parentPort!;
/**
 * A long query here yields the cores to the request thread and the search workers when they
 * want them (nice 10: about a tenth of a contended core), so searches keep their latency on a
 * machine with few cores; an idle core is still all the query's.
 */
const REPLICA_NICE = 10;
niceThisThread(REPLICA_NICE);
const collections = new Map<string, Collection>();
/** The newest operation_id applied here; -1 until the state has come. */
let applied = -1;
/** Entries that came before the state (it is encoded while the main thread goes on applying). */
let early: [number, Uint8Array][] = [];
/** Set once an entry could not be applied here: the pool replaces this replica; nothing more is applied or begun. */
let stale = false;
/** Requests waiting for operation `after` to be applied here; a query's deadline counts the wait. */
let waiting: { id: number; after: number; run: () => void; expires?: NodeJS.Timeout }[] = [];

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const send = (answer: ReplicaAnswer): void => port.postMessage(answer);

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
    const limits = m.limits.timeoutMs === undefined ? m.limits : { ...m.limits, timeoutMs: Math.max(1, m.limits.timeoutMs - waitedMs) };
    const result = await executeQueryInSlices(c, compileQuery(m.text), m.parameters, limits, { present: toTypedJson }, nextTurn);
    send({ type: 'result', id: m.id, columns: result.columns, rowsJson: jsonText(result.rows), rowCount: result.rows.length, nodesScanned: result.nodesScanned });
  } catch (err) {
    send(refusal(m.id, err));
  }
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
  }
  const ready = waiting.filter((w) => w.after <= applied);
  waiting = waiting.filter((w) => w.after > applied);
  for (const w of ready) {
    clearTimeout(w.expires);
    w.run();
  }
}

/** Holds a request until its operation is applied here; a query still waiting at its deadline answers the timeout. */
function wait(m: QueryMessage | TraverseMessage, start: (waitedMs: number) => void): void {
  const since = performance.now();
  const entry: (typeof waiting)[number] = { id: m.id, after: m.after, run: () => start(performance.now() - since) };
  const timeoutMs = m.type === 'query' ? m.limits.timeoutMs : undefined;
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
    for (const [name, c] of decodeSnapshot(joinChunks(m.chunks)).collections) collections.set(name, c);
    applied = m.opId;
    const before = early;
    early = [];
    applyEntries(before);
  } else if (m.type === 'entries') {
    applyEntries(m.entries);
  } else {
    const start = m.type === 'query' ? (waitedMs: number) => void run(m, waitedMs) : () => traverse(m);
    if (stale) send({ type: 'retry', id: m.id });
    else if (m.after <= applied) start(0);
    else wait(m, start);
  }
});
