import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Collection } from '../../storage/collection.js';
import type { Engine } from '../../storage/engine/engine.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { ImportReader } from '../../storage/export/import-reader.js';
import { itFindsDrift, useHistory, verify } from './replay-history.js';
import { runToolProcess } from './tool-process.js';

const hnsw = { m: 4, m0: 8, efConstruct: 8, ml: 0.7 };
const config: CollectionConfig = { size: 0, distance: 'Cosine', ...hnsw, named: { title: { size: 2, distance: 'Dot', ...hnsw, onDisk: false } }, sparse: { words: { modifier: 'idf', index: {} } } };
const words = (i: number) => ({ indices: Uint32Array.of(i, i + 1), values: Float32Array.of(1, 0.5) });

/** Operations 1..3 (a collection of named and sparse vectors only, two points), a snapshot at 3, an update of vectors by name (4), a snapshot at 4. */
async function history(engine: Engine): Promise<void> {
  await engine.submit({ type: 'create_collection', name: 'h', config });
  for (const id of [1, 2]) await engine.submit({ type: 'upsert_points', collection: 'h', points: [{ id, vector: null, named: { title: Float32Array.of(id, 1) }, sparse: { words: words(id) }, payload: {}, labels: [] }] });
  await engine.snapshot();
  await engine.submit({ type: 'update_points', collection: 'h', updates: [{ op: 'update_vectors', points: [{ id: 2, dense: { title: Float32Array.of(0, 3) }, sparse: {} }] }] });
  expect(await engine.snapshot()).to.equal(4);
}

describe('tools/replay: named and sparse vectors', function () {
  this.timeout(60_000);
  const dir = useHistory(history);

  it('verifies a log of named and sparse vectors, and rebuilds them into export files', () => {
    const v = verify(dir.path);
    expect(v.code, v.out + v.err).to.equal(0);
    // Snapshot 3 was deleted once snapshot 4 read back; the log still reaches operation 1.
    expect(v.out).to.include('snapshot 4 matches a replay from operation 1');
    const out = join(dir.path, 'out');
    const r = runToolProcess('replay', ['rebuild', '--data-dir', dir.path, '--until', '4', '--out', out]);
    expect(r.code, r.err).to.equal(0);
    const reader = new ImportReader();
    reader.feed(readFileSync(join(out, 'h.vgdb')));
    const file = reader.finish();
    expect(file.config).to.deep.equal(config);
    expect(file.points.map((p) => [p.id, Array.from(p.named!.title!), Array.from(p.sparse!.words!.indices)])).to.deep.equal([
      [1, [1, 1], [1, 2]],
      [2, [0, 3], [2, 3]],
    ]);
  });

  const drifts: [string, (c: Collection) => void][] = [
    ['a named vector', (c) => c.named.get('title')!.set(2, [0, 4])],
    ['a sparse vector', (c) => c.sparse.get('words')!.set(1, words(5))],
  ];
  for (const [what, drift] of drifts) itFindsDrift(dir, 4, 'h', what, drift);
});
