import { expect } from 'chai';
import { join } from 'node:path';
import { Engine, type EngineOptions } from '../../storage/engine/engine.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { tempDir } from '../helpers/temp-dir.js';

const config: CollectionConfig = { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 32, ml: 1 / Math.log(8) };

function engineOn(dir: string, options: EngineOptions = {}): Engine {
  return new Engine(LmdbLog.open(dir), { snapshots: new SnapshotFiles(join(dir, 'snapshots')), ...options });
}

describe('storage/engine start-up replay in slices', () => {
  it('applies the log a slice at a time, reporting progress and letting the event loop run between slices', async () => {
    const dir = tempDir();
    try {
      const writer = engineOn(dir.path);
      await writer.start();
      await writer.submit({ type: 'create_collection', name: 'c', config });
      for (let id = 0; id < 25; id++) await writer.submit({ type: 'upsert_points', collection: 'c', points: [{ id, vector: Float32Array.of(id, 1), payload: {}, labels: [] }] });
      await writer.log.close(); // as a SIGKILL leaves it: no snapshot, 26 entries to replay

      const progress: Array<[number, number]> = [];
      const engine = engineOn(dir.path, { startSliceEntries: 10, onReplayProgress: (applied, total) => progress.push([applied, total]) });
      const seenBetweenSlices: number[] = [];
      const watch = (): void => {
        seenBetweenSlices.push(engine.lastAppliedOperationId);
        if (engine.lastAppliedOperationId < 26) setImmediate(watch);
      };
      setImmediate(watch);
      expect(await engine.start()).to.equal(26);
      expect(progress).to.deep.equal([
        [0, 26],
        [10, 26],
        [20, 26],
        [26, 26],
      ]);
      expect(seenBetweenSlices, 'other work ran while the log was half replayed').to.include.members([10, 20]);
      expect(engine.collections.get('c')!.store.liveCount).to.equal(25);
      await engine.close();
    } finally {
      dir.remove();
    }
  });
});
