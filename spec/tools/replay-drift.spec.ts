import { expect } from 'chai';
import type { Collection } from '../../storage/collection.js';
import type { Engine } from '../../storage/engine/engine.js';
import { itFindsDrift, useHistory, verify } from './replay-history.js';

/** Operations 1..3 (a collection, two points), a snapshot at 3, then an alias, a payload index and a setting (4..6), a snapshot at 6. */
async function history(engine: Engine): Promise<void> {
  await engine.submit({ type: 'create_collection', name: 'h', config: { size: 2, distance: 'Euclid', m: 4, m0: 8, efConstruct: 8, ml: 0.7 } });
  for (const id of [1, 2]) await engine.submit({ type: 'upsert_points', collection: 'h', points: [{ id, vector: Float32Array.of(id, 1), payload: { k: `v${id}` }, labels: [] }] });
  await engine.snapshot();
  await engine.submit({ type: 'aliases', actions: [{ create: { alias: 'live', collection: 'h' } }] });
  await engine.submit({ type: 'payload_index', collection: 'h', field: 'k', index: { type: 'keyword', params: {} } });
  await engine.submit({ type: 'collection_settings', collection: 'h', settings: { optimizers_config: { indexing_threshold: 100 } } });
  expect(await engine.snapshot()).to.equal(6);
}

describe('tools/replay verify: aliases, payload indexes and settings', function () {
  this.timeout(60_000);
  const dir = useHistory(history);

  it('finds a snapshot that matches the replay', () => {
    const v = verify(dir.path);
    expect(v.code, v.out + v.err).to.equal(0);
    // Snapshot 3 was deleted once snapshot 6 read back; the log still reaches operation 1.
    expect(v.out).to.include('snapshot 6 matches a replay from operation 1');
  });

  const drifts: [string, (c: Collection) => void][] = [
    ['an alias', (c) => c.aliases.delete('live')],
    ['a payload index declaration', (c) => c.declareIndex('k', { type: 'integer', params: {} })],
    ['a collection setting', (c) => (c.settings = { optimizers_config: { indexing_threshold: 200 } })],
  ];
  for (const [what, drift] of drifts) itFindsDrift(dir, 6, 'h', what, drift);
});
