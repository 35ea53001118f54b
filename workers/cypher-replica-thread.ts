import { niceThisThread } from './thread-priority.js';

/**
 * A Cypher replica thread's entry. A long query there yields the cores to the request thread and
 * the search workers when they want them (nice 10: about a tenth of a contended core), so
 * searches keep their latency on a machine with few cores; an idle core is still all the
 * query's. The nice is set before the replica's modules load: loading them takes a contended core
 * for about a tenth of a second, which searches would otherwise wait behind.
 */
const REPLICA_NICE = 10;
niceThisThread(REPLICA_NICE);
await import('./cypher-replica-worker.js');
