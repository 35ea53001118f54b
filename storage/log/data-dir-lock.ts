import { closeSync, openSync, readFileSync, realpathSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fsExt from 'fs-ext';

/** Names the owner in the refusal message only; the lock itself is the kernel's. */
const OWNER_FILE = 'LOCK';

/** Data dirs this process holds: flock is per open file description, so a second open here would succeed. */
const heldHere = new Set<string>();

function ownerOf(dir: string): string {
  try {
    const pid = Number.parseInt(readFileSync(join(dir, OWNER_FILE), 'utf8'), 10);
    return Number.isInteger(pid) ? `process ${pid}` : 'another process';
  } catch {
    return 'another process (its LOCK file is gone, the lock is not)';
  }
}

/**
 * Keeps two servers off one data dir: an exclusive flock on the directory itself, held on an open
 * descriptor for the owner's life. The kernel releases it when the process dies (SIGKILL, crash),
 * and deleting files in the dir cannot remove it.
 */
export class DataDirLock {
  private constructor(private readonly dir: string, private readonly key: string, private readonly fd: number) {}

  static acquire(dir: string): DataDirLock {
    const key = realpathSync(dir);
    if (heldHere.has(key)) throw new Error(`data directory ${dir} is in use by process ${process.pid} (this process has it open already)`);
    const fd = openSync(dir, 'r');
    try {
      fsExt.flockSync(fd, 'exnb');
    } catch (err) {
      closeSync(fd);
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN' || (err as NodeJS.ErrnoException).code === 'EWOULDBLOCK') {
        throw new Error(`data directory ${dir} is in use by ${ownerOf(dir)}; stop that server first (or point SERVICE_DATA_DIR elsewhere)`);
      }
      throw err;
    }
    heldHere.add(key);
    writeFileSync(join(dir, OWNER_FILE), `${process.pid}\n`);
    return new DataDirLock(dir, key, fd);
  }

  release(): void {
    if (!heldHere.delete(this.key)) return;
    try {
      if (readFileSync(join(this.dir, OWNER_FILE), 'utf8').trim() === String(process.pid)) unlinkSync(join(this.dir, OWNER_FILE));
    } catch {
      // the owner file was removed already: the lock below is what counts
    }
    closeSync(this.fd);
  }
}
