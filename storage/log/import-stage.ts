import { close, fsync, openSync, write } from 'node:fs';
import { createHash, type Hash } from 'node:crypto';
import { dirname } from 'node:path';
import { syncDirectory } from '../snapshot/durable-file.js';
import type { StageFiles } from './stage-files.js';

/** Block bytes handed to the file and not yet written, at most: what a stream holds in memory. */
const IN_FLIGHT_BYTES = 8 * 2 ** 20;

const writeAt = (fd: number, bytes: Uint8Array, position: number): Promise<void> =>
  new Promise((resolve, reject) => {
    write(fd, bytes, 0, bytes.length, position, (err, written) => {
      if (err) reject(err);
      else if (written !== bytes.length) reject(new Error(`a staged block was written short (${written} of ${bytes.length} bytes)`));
      else resolve();
    });
  });
const syncFd = (fd: number): Promise<void> => new Promise((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
const closeFd = (fd: number): Promise<void> => new Promise((resolve, reject) => close(fd, (err) => (err ? reject(err) : resolve())));

/**
 * A streamed import, staged: the file's POINTS and EDGES blocks, checked, are written to a file
 * of their own beside the log (stage-files.ts) as they arrive, a few MiB in flight at most, so
 * memory stays flat whatever the file's size and `data.mdb` does not grow by it. finish() makes
 * the file durable (fsync of the file, of `imports/` and of the data dir) before the import's
 * log entry, which names the stage, is written: that entry's transaction also records the stage
 * as belonging to it (LmdbLog.append). So after a crash a stage file either belongs to a
 * committed entry, whole, or to none: an orphan, deleted when the log next opens. A discarded
 * stage (a failure before its entry) is deleted at once; a committed one once its entry is
 * dropped after a snapshot.
 */
export class ImportStage {
  private seq = 0;
  private inFlight = 0;
  private bytes = 0;
  private readonly hash: Hash = createHash('sha256');
  private failure: Error | null = null;
  private readonly writes = new Set<Promise<void>>();
  private fd: number | null;
  /** Set once an entry names the stage: from then on its file is the entry's. */
  private taken = false;

  constructor(
    readonly id: number,
    private readonly files: StageFiles,
    private readonly onDiscard: (id: number) => void,
  ) {
    files.ensure();
    // 'wx': a stage number is never handed out twice (LmdbLog counts above every stage and file seen).
    this.fd = openSync(files.fileOf(id), 'wx');
  }

  /** Bytes staged so far. */
  get size(): number {
    return this.bytes;
  }

  /** Writes one framed block (copied: the caller's bytes may be reused). */
  add(framed: Uint8Array): void {
    if (this.failure) throw this.failure;
    if (this.fd === null) throw new Error(`import stage ${this.id} is closed`);
    const value = framed.slice();
    this.hash.update(value);
    const position = this.bytes;
    this.bytes += value.length;
    this.inFlight += value.length;
    this.seq++;
    const written = writeAt(this.fd, value, position).catch((err: Error) => {
      this.failure ??= err;
    });
    const settled = written.finally(() => {
      this.inFlight -= value.length;
      this.writes.delete(settled);
    });
    this.writes.add(settled);
  }

  /** Resolves once few enough bytes are in flight to take more. */
  async room(): Promise<void> {
    while (this.inFlight > IN_FLIGHT_BYTES && this.writes.size > 0) await Promise.race(this.writes);
    if (this.failure) throw this.failure;
  }

  /** Waits for every block to be written and the file to be durable; answers the count, the bytes and their digest. */
  async finish(): Promise<{ blocks: number; bytes: number; digest: Uint8Array }> {
    await Promise.all(this.writes);
    if (this.failure) throw this.failure;
    const fd = this.fd;
    if (fd === null) throw new Error(`import stage ${this.id} is closed`);
    this.fd = null;
    try {
      await syncFd(fd);
    } finally {
      await closeFd(fd);
    }
    // The file's name in imports/, and imports/ itself in the data dir, durable before the entry that names it.
    await syncDirectory(this.files.dir);
    await syncDirectory(dirname(this.files.dir));
    return { blocks: this.seq, bytes: this.bytes, digest: new Uint8Array(this.hash.digest()) };
  }

  /** Called by the log as it writes the entry that names the stage. */
  take(): void {
    this.taken = true;
  }

  /** Deletes what was staged, unless an entry was written for it (then it goes with that entry). */
  async discard(): Promise<void> {
    if (this.taken) return;
    this.onDiscard(this.id);
    await Promise.all(this.writes);
    const fd = this.fd;
    this.fd = null;
    if (fd !== null) await closeFd(fd);
    this.files.remove(this.id);
  }
}
