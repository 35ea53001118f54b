import type { Logger } from 'pino';
import { isDamagedFile } from '../storage/log/lmdb-file-check.js';
import { LmdbLog } from '../storage/log/lmdb-log.js';
import type { SnapshotFiles } from '../storage/snapshot/snapshot-files.js';
import type { ServiceConfig } from './config.js';

/** What to do when start-up finds acknowledged operations gone. */
export function lossAdvice(dataDir: string): string {
  return (
    `To recover, either restore: move ${dataDir} aside, start on an empty data dir and import your exports (.vgdb) of each collection; ` +
    'or accept the loss: start once with SERVICE_ACCEPT_LOSS=1, which logs exactly what was lost and goes on from what is left'
  );
}

/** What only the log held: the operations after the newest snapshot, up to the high-water mark. */
function onlyInLog(snapshots: SnapshotFiles): string {
  let mark = 0;
  try {
    mark = snapshots.readMark()?.opId ?? 0;
  } catch {
    return 'the high-water mark is damaged too, so what it held is unknown';
  }
  const snapshot = snapshots.list()[0] ?? 0;
  return mark > snapshot ? `at least operations ${snapshot + 1} to ${mark} were durable in it and are in no snapshot` : `the newest snapshot (${snapshot}) holds every operation known durable`;
}

/** Opens the data dir's log; a file too damaged to open is refused with what it held and how to recover (or moved aside with SERVICE_ACCEPT_LOSS). */
export function openLog(config: ServiceConfig, snapshots: SnapshotFiles, logger: Logger): LmdbLog {
  const onDamagedFile = (reason: string, movedTo: string): void =>
    logger.error({ reason, movedTo }, `accepting loss: the log file is damaged (${onlyInLog(snapshots)}); it was moved aside and an empty log started, the state comes from the snapshots`);
  try {
    return LmdbLog.open(config.dataDir, config.acceptLoss ? { onDamagedFile } : {});
  } catch (err) {
    if (isDamagedFile(err)) throw new Error(`the log cannot be opened: ${(err as Error).message}; ${onlyInLog(snapshots)}. ${lossAdvice(config.dataDir)}`);
    throw err;
  }
}
