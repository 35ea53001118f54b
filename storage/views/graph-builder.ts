import type { HnswIndex } from './hnsw.js';

/**
 * Links prepared nodes (HnswIndex.prepareInsert) into a graph on other threads: the server's
 * search workers (workers/search-pool.ts), several at once under the graph's per-node locks.
 * Resolves once every node is linked; rejects when a thread failed (the caller links what is
 * left itself); null when it cannot take this graph (its arrays are not shared, or the pool is
 * closing), which the caller answers by linking in place.
 */
export interface GraphBuilder {
  link(index: HnswIndex, slots: Int32Array): Promise<void> | null;
  /**
   * The graph's vectors or codes moved (floats to a file or back, codes made or dropped): the
   * threads holding readers of the old ones let go of them now, not at their next walk, which a
   * lone client, whose walks stay on its request thread, may never send.
   */
  vectorsMoved(index: HnswIndex): void;
}

let current: GraphBuilder | null = null;

/** Installs the process's builder (the server does, at start); null links every graph on the writing thread. */
export function useGraphBuilder(builder: GraphBuilder | null): void {
  current = builder;
}

export function graphBuilder(): GraphBuilder | null {
  return current;
}
