import { requestsInFlight } from './middleware/in-flight.js';

/** Resolves after the event loop has had a turn (pending I/O and timers run first): where a long query lets other requests in. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A slice of a query, or of a large upsert's checks and encoding, on the request thread: a
 * request that comes in meanwhile waits for the rest of it, so it is short (on a Cypher
 * replica's own thread slices are QUERY_SLICE_MS).
 */
export const REQUEST_THREAD_SLICE_MS = 1;

/** The rest a query takes between two slices while other requests are in flight. */
const REST_MS = 2;

/**
 * What work in slices on the request thread (a query, a large upsert) awaits between two slices,
 * `own` being the requests it is counted in (1 over HTTP, 0 over Bolt): while other requests are
 * in flight, a rest of REST_MS, in which they run every step to their answers (a turn alone would
 * let only their next step in, and a request takes several: a slice before each); else a turn.
 * So the work still gets a third of the thread under load, and all of it otherwise.
 */
export function betweenQuerySlices(own: number): () => Promise<void> {
  return () => (requestsInFlight() > own ? new Promise((resolve) => setTimeout(resolve, REST_MS)) : nextTurn());
}
