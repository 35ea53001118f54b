import { join } from 'node:path';
import { open } from 'lmdb';
import { StageFiles } from '../../storage/log/stage-files.js';

/**
 * The stage files of streamed imports (storage/log/stage-files.ts) that no log entry names, in
 * the data dir of a server that has just started, with no import under way: start-up deletes the
 * orphans a kill mid-import leaves, so each one found is a problem. The log is read beside the
 * running server (LMDB lets another process read).
 */
export async function orphanStageFiles(dataDir: string): Promise<string[]> {
  const present = new StageFiles(join(dataDir, 'imports')).present();
  if (present.length === 0) return [];
  const env = open({ path: dataDir, noSubdir: false, readOnly: true });
  try {
    const stages = env.openDB<[number, number], number>({ name: 'stages', encoding: 'msgpack' });
    return present.filter((stage) => stages.get(stage) === undefined).map((stage) => `stage file imports/${stage}.stage is named by no log entry after the restart`);
  } finally {
    await env.close();
  }
}
