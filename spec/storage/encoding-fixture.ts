import { Collection } from '../../storage/collection.js';
import type { CollectionConfig, PointRecord, SparseVector } from '../../storage/events/types.js';
import { setPropertyTypes } from '../../storage/property-types.js';
import { randomVectors } from '../helpers/vectors.js';

const hnsw = { m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) };
/** 64 dimensions: 2,600 points take more than 256 KiB, so the vectors sit in a WebAssembly memory as a server's do. */
export const FIXTURE_DIM = 64;
const config: CollectionConfig = {
  size: FIXTURE_DIM,
  distance: 'Cosine',
  ...hnsw,
  named: { title: { size: 3, distance: 'Dot', ...hnsw, onDisk: false } },
  sparse: { words: { modifier: 'none', index: {} } },
};

const sparse = (id: number): SparseVector => ({ indices: Uint32Array.of(id % 7, 7 + (id % 11)), values: Float32Array.of(1, id / 10) });

/**
 * A collection that holds every kind of state a snapshot or an export encodes, always the same:
 * integer and UUID ids, typed and plain payloads, labels, named and sparse vectors, points without
 * a vector, removed waypoints, vectors still pending, freed slots, edges with properties.
 */
export function fixtureCollection(name = 'rich'): Collection {
  const c = new Collection(name, config, 7);
  const vectors = randomVectors(2600, FIXTURE_DIM, 31);
  const titles = randomVectors(2600, 3, 32);
  c.upsert(
    vectors.map((vector, id): PointRecord => {
      const payload = id % 10 === 0 ? setPropertyTypes({ at: '2024-01-02', n: id }, { at: 'date' }) : { g: id % 5, s: `p${id}`, tags: ['a', `t${id % 3}`] };
      const p: PointRecord = { id, vector, payload, labels: id % 4 ? [] : ['Four'] };
      if (id % 3) p.named = { title: titles[id]! };
      if (id % 2) p.sparse = { words: sparse(id) };
      return p;
    }),
  );
  c.upsert([
    { id: 'a3bb189e-8bf9-3888-9912-ace4e6543002', vector: vectors[5]!, payload: { uuid: true }, labels: ['U'] },
    { id: 90_000, vector: null, payload: { node: true }, labels: ['Node'] },
  ]);
  while (c.indexSome(10_000));
  for (let id = 0; id < 60; id++) c.remove(id * 7);
  c.upsert(randomVectors(100, FIXTURE_DIM, 33).map((vector, i) => ({ id: 5000 + i, vector, payload: { late: i }, labels: [] })));
  c.indexSome(40);
  // That turn began the repair of the title graph (its waypoints are over 1% of it, and none of
  // its points waits); taken to its end, as the repair ran at once when this fixture was made.
  while (c.named.get('title')!.repairing) c.indexSome(0);
  c.graph.add(1, 2, 'A', 0.5);
  c.graph.add(2, 90_000, 'B', 1);
  c.graph.add(4, 1, 'A', 2, { since: 2020, note: 'x' });
  c.graph.add(3, 'a3bb189e-8bf9-3888-9912-ace4e6543002', 'U', 1.5);
  c.declareIndex('g', { type: 'keyword', params: {} });
  return c;
}
