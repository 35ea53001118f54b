import { useGraphWalker } from '../query/search/graph-walker.js';
import { useGraphBuilder } from '../storage/views/graph-builder.js';
import { availableParallelism } from 'node:os';
import { SearchPool, walkersFor } from './search-pool.js';

/**
 * One search pool per process, installed as the graph walker and builder, shared by every service running
 * in it (tests start several) and stopped with the last. Its size is the first service's.
 */
let pool: SearchPool | null = null;
let users = 0;

/** Takes the process's pool, starting it with `size` workers when none runs (walks on walkersFor of them); 0 searches in place. */
export function acquireSearchPool(size: number): SearchPool | null {
  if (size === 0) return null;
  users++;
  if (!pool) {
    pool = new SearchPool(size, walkersFor(size, availableParallelism()));
    useGraphWalker(pool);
    useGraphBuilder(pool);
  }
  return pool;
}

/** Gives back acquireSearchPool's pool; the last one out stops its workers. */
export async function releaseSearchPool(taken: SearchPool | null): Promise<void> {
  if (!taken || taken !== pool) return;
  if (--users > 0) return;
  pool = null;
  useGraphWalker(null);
  useGraphBuilder(null);
  await taken.close();
}

/** The pool running in this process, if any (tests reach its workers through it). */
export function processSearchPool(): SearchPool | null {
  return pool;
}
