import { useGraphWalker } from '../../query/search/graph-walker.js';
import { SearchPool } from '../../workers/search-pool.js';

/**
 * A pool of `size` search workers for the enclosing suite, made the graph walker before its
 * tests and closed after them; call the answer for the pool.
 */
export function useSearchPool(size = 2): () => SearchPool {
  let pool: SearchPool;
  before(() => {
    pool = new SearchPool(size);
    useGraphWalker(pool);
  });
  after(async () => {
    useGraphWalker(null);
    await pool.close();
  });
  return () => pool;
}
