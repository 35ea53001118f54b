import { expect } from 'chai';
import { join } from 'node:path';
import type { Collection } from '../../storage/collection.js';
import { Engine } from '../../storage/engine/engine.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { encodeSnapshot } from '../../storage/snapshot/snapshot-codec.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runToolProcess } from './tool-process.js';

/** A suite's data dir, written once before its tests by `history` on a real engine (log and snapshots on disk), removed after. */
export function useHistory(history: (engine: Engine) => Promise<void>): { readonly path: string } {
  let dir: ReturnType<typeof tempDir> | null = null;
  before(async () => {
    dir = tempDir();
    const engine = new Engine(LmdbLog.open(dir.path), { snapshots: new SnapshotFiles(join(dir.path, 'snapshots')), logRetention: 1000 });
    await engine.start();
    await history(engine);
    await engine.log.close();
  });
  after(() => dir?.remove());
  return {
    get path() {
      return dir!.path;
    },
  };
}

export const verify = (dataDir: string) => runToolProcess('replay', ['verify', '--data-dir', dataDir]);

/**
 * A test: the newest snapshot (taken at `opId`), with collection `collection` changed by
 * `drift`, makes `replay verify` fail naming that collection; the snapshot is put back after.
 */
export function itFindsDrift(dir: { readonly path: string }, opId: number, collection: string, what: string, drift: (c: Collection) => void): void {
  it(`finds a snapshot that differs from the replay in ${what}`, async () => {
    const store = new SnapshotFiles(join(dir.path, 'snapshots'));
    const good = encodeSnapshot(store.loadNewest()!.collections, opId);
    const drifted = store.loadNewest()!;
    drift(drifted.collections.get(collection)!);
    await store.save(opId, encodeSnapshot(drifted.collections, opId));
    try {
      const v = verify(dir.path);
      expect(v.code, v.out).to.equal(1);
      expect(v.out).to.include(`FAIL snapshot ${opId}: collection ${collection} differs from the replay`);
    } finally {
      await store.save(opId, good);
    }
  });
}
