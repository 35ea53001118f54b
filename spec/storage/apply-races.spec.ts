import { expect } from 'chai';
import { Engine } from '../../storage/engine/engine.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { tempDir } from '../helpers/temp-dir.js';

const config = (size: number): CollectionConfig => ({ size, distance: 'Euclid', m: 8, m0: 16, efConstruct: 32, ml: 1 / Math.log(8) });

describe('storage/engine writes that lose a race to a change of the collection', () => {
  it('an upsert checked against the old dimension applies as a 409 no-op after an import replaced the collection with another one, live and at replay', async () => {
    const dir = tempDir();
    try {
      const engine = new Engine(LmdbLog.open(dir.path));
      await engine.start();
      await engine.submit({ type: 'create_collection', name: 'c', config: config(2) });
      // Checked at once, applied in log order once durable: the upsert is checked against size 2.
      const replace = engine.submit({ type: 'import_collection', name: 'c', mode: 'replace', config: config(3), points: [], edges: [] });
      const upsert = engine.submit({ type: 'upsert_points', collection: 'c', points: [{ id: 1, vector: Float32Array.of(1, 2), payload: {}, labels: [] }] });
      await replace;
      const { result } = await upsert;
      expect(result.error?.code).to.equal(409);
      expect(result.error?.message).to.match(/collection "c" changed while this write waited \(its vectors now have 3 dimensions\); nothing was applied/);
      expect(engine.failed, 'writes go on').to.equal(null);
      expect(engine.collections.get('c')!.store.liveCount).to.equal(0);
      await engine.close();

      const again = new Engine(LmdbLog.open(dir.path));
      await again.start();
      expect(again.collections.get('c')!.config.size).to.equal(3);
      expect(again.collections.get('c')!.store.liveCount, 'replay makes the same no-op').to.equal(0);
      await again.close();
    } finally {
      dir.remove();
    }
  });
});
