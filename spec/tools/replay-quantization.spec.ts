import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../../storage/engine/engine.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { ImportReader } from '../../storage/export/import-reader.js';
import { randomVectors } from '../helpers/vectors.js';
import { useHistory, verify } from './replay-history.js';
import { runToolProcess } from './tool-process.js';

const config: CollectionConfig = { size: 8, distance: 'Dot', m: 4, m0: 8, efConstruct: 8, ml: 0.7 };
const INT8 = { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } };
/** Binary, with the floats moved to disk (the replay tool keeps them in RAM: it has no data dir of its own). */
const BINARY = { quantization_config: { scalar: null, binary: { always_ram: true }, product: null }, vectors: { '': { on_disk: true } } };

/** A collection created quantized (1), points (2), a snapshot, then switched to binary with its floats on disk (3), a snapshot at 3. */
async function history(engine: Engine): Promise<void> {
  await engine.submit({ type: 'create_collection', name: 'q', config, settings: INT8 });
  await engine.submit({ type: 'upsert_points', collection: 'q', points: randomVectors(50, 8, 4).map((vector, id) => ({ id, vector, payload: {}, labels: [] })) });
  await engine.snapshot();
  await engine.submit({ type: 'collection_settings', collection: 'q', settings: BINARY });
  expect(await engine.snapshot()).to.equal(3);
}

describe('tools/replay: quantization and on_disk settings', function () {
  this.timeout(60_000);
  const dir = useHistory(history);

  it('verifies a log that creates a quantized collection and switches its method, and rebuilds each state into an export file', () => {
    const v = verify(dir.path);
    expect(v.code, v.out + v.err).to.equal(0);
    for (const [until, settings] of [[1, INT8], [3, BINARY]] as const) {
      const out = join(dir.path, `out-${until}`);
      const r = runToolProcess('replay', ['rebuild', '--data-dir', dir.path, '--until', String(until), '--out', out]);
      expect(r.code, r.err).to.equal(0);
      const reader = new ImportReader();
      reader.feed(readFileSync(join(out, 'q.vgdb')));
      expect(reader.finish().settings).to.deep.equal(settings);
    }
  });
});
