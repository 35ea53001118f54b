import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const LOCK_FILE = 'LOCK';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Keeps two servers off one data dir. The lock is a file holding the owner's pid; a lock left
 * by a process that no longer runs (SIGKILL, power cut) is taken over.
 */
export class DataDirLock {
  private constructor(private readonly path: string) {}

  static acquire(dir: string): DataDirLock {
    const path = join(dir, LOCK_FILE);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return new DataDirLock(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const owner = Number.parseInt(readFileSync(path, 'utf8'), 10);
        if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
          throw new Error(`data directory ${dir} is in use by process ${owner}; stop that server first (or point SERVICE_DATA_DIR elsewhere)`);
        }
        unlinkSync(path);
      }
    }
    throw new Error(`could not take the lock file ${path}`);
  }

  release(): void {
    try {
      unlinkSync(this.path);
    } catch {
      // already gone: nothing to release
    }
  }
}
