import { closeSync, fstatSync, fsync, mkdirSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ByteSource } from '../codec/byte-source.js';
import { CorruptDataError } from '../errors.js';
import { syncDirectory, writeFileDurably } from './durable-file.js';
import { checkReadsBack, FileOutput, type WrittenFile } from './file-output.js';
import { decodeMark, encodeMark, type HighWaterMark } from './high-water-mark.js';
import { decodeSnapshot, type Snapshot, type SnapshotHead, type SnapshotOutput } from './snapshot-codec.js';
import { SnapshotFrameCheck } from './snapshot-frames.js';
import type { FloatFiles } from '../views/float-file.js';
import type { SnapshotStore } from './snapshot-store.js';

const NAME = /^snapshot-(\d{16})\.snap$/;
const TEMP = /^snapshot-\d{16}\.snap\.tmp$/;
const MARK = 'high-water-mark';
/** Bytes one read takes (readSync reads at most 2 GiB). */
const READ_CHUNK_BYTES = 1 << 30;
/** Bytes read at a time when a snapshot is only checked. */
const CHECK_PIECE_BYTES = 1 << 20;

/**
 * A file read in order as it is decoded: each read is a new array (a frame of a snapshot, at
 * most FRAME_BYTES since version 6), so the file is never held whole.
 */
function fileSource(fd: number, path: string): ByteSource {
  const size = fstatSync(fd).size;
  let position = 0;
  return {
    read(n) {
      if (position + n > size) throw new CorruptDataError(`${path} ends early: needed ${n} bytes at byte ${position} of ${size}`);
      const bytes = new Uint8Array(n);
      for (let at = 0; at < n; ) {
        const got = readSync(fd, bytes, at, Math.min(READ_CHUNK_BYTES, n - at), position + at);
        if (got === 0) throw new CorruptDataError(`${path} ended at ${position + at} of ${size} bytes while being read`);
        at += got;
      }
      position += n;
      return bytes;
    },
    get done() {
      return position === size;
    },
  };
}

/** Decodes the snapshot in a file, reading it a frame at a time. */
function decodeFile(path: string, floatFiles: FloatFiles | null): Snapshot {
  const fd = openSync(path, 'r');
  try {
    return decodeSnapshot(fileSource(fd, path), floatFiles);
  } finally {
    closeSync(fd);
  }
}
/** Checks the snapshot in a file frame by frame, reading it a piece at a time; answers its header. */
function checkFile(path: string): SnapshotHead {
  const fd = openSync(path, 'r');
  try {
    const check = new SnapshotFrameCheck();
    const piece = new Uint8Array(CHECK_PIECE_BYTES);
    for (let at = 0, got = 0; (got = readSync(fd, piece, 0, piece.length, at)) > 0; at += got) check.feed(piece.subarray(0, got));
    return check.end();
  } finally {
    closeSync(fd);
  }
}

export const snapshotFileName = (opId: number): string => `snapshot-${String(opId).padStart(16, '0')}.snap`;

/**
 * Snapshots as files in a directory, with the high-water mark beside them. A snapshot is written
 * to a temporary file, fsynced, renamed into place and the directory fsynced, so a crash mid-write
 * leaves the previous one intact. Once the new one reads back byte for byte, the older ones are
 * deleted (the log before a snapshot is dropped beyond the retention, so an older one could not
 * bring the state further than the new one, and two would double the disk the state takes). At
 * start-up a damaged one is skipped for an older one, when there is one.
 */
export class SnapshotFiles implements SnapshotStore {
  private heldMark: HighWaterMark | null = null;
  private markWrites: Promise<void> = Promise.resolve();

  constructor(private readonly dir: string, private readonly onSkip: (file: string, reason: string) => void = () => {}) {
    mkdirSync(dir, { recursive: true });
  }

  /** Where the high-water mark is kept (named in messages). */
  get markPath(): string {
    return join(this.dir, MARK);
  }

  /** The operation_ids of the snapshots on disk, newest first. */
  list(): number[] {
    return this.names().map((n) => Number(NAME.exec(n)![1]));
  }

  private names(): string[] {
    return readdirSync(this.dir).filter((f) => NAME.test(f)).sort().reverse();
  }

  loadNewest(atMost = Number.MAX_SAFE_INTEGER, floatFiles: FloatFiles | null = null): Snapshot | null {
    return this.newestReadable(atMost, (path) => decodeFile(path, floatFiles));
  }

  /**
   * The operation_id of the newest snapshot at or before `atMost` whose every frame checks out
   * (SnapshotFrameCheck), or null: what loadNewest would start from, found without decoding a
   * state (a million points take seconds and gigabytes to decode).
   */
  newestWhole(atMost = Number.MAX_SAFE_INTEGER): number | null {
    return this.newestReadable(atMost, (path) => checkFile(path).opId);
  }

  /** `read` of the newest snapshot at or before `atMost` it does not throw on; those it throws on are skipped, with why. */
  private newestReadable<T>(atMost: number, read: (path: string) => T): T | null {
    for (const name of this.names()) {
      if (Number(NAME.exec(name)![1]) > atMost) continue;
      try {
        return read(join(this.dir, name));
      } catch (err) {
        this.onSkip(name, (err as Error).message);
      }
    }
    return null;
  }

  /** Writes a snapshot held as chunks (replication's bootstrap, tests). */
  save(opId: number, chunks: readonly Uint8Array[]): Promise<void> {
    return this.write(opId, (out) => chunks.forEach((c) => out.append(c)));
  }

  /**
   * Writes snapshot `opId` through `fill`, which starts now, straight into the temporary file (so
   * memory holds no copy of the state), synchronously or until the promise it answers resolves;
   * then fsyncs the file, renames it into place, fsyncs the directory, checks it reads back as
   * written and deletes the older snapshots. On a failure the temporary file goes.
   */
  write(opId: number, fill: (out: SnapshotOutput) => void | Promise<void>): Promise<void> {
    const name = snapshotFileName(opId);
    const temp = join(this.dir, `${name}.tmp`);
    let fd: number;
    try {
      fd = openSync(temp, 'w');
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const out = new FileOutput(fd);
    // The descriptor is closed only once no write of the output is in flight.
    const failed = async (err: unknown): Promise<never> => {
      await out.settled();
      closeSync(fd);
      await unlink(temp).catch(() => undefined);
      throw err;
    };
    let filling: void | Promise<void>;
    try {
      filling = fill(out);
    } catch (err) {
      return failed(err);
    }
    return Promise.resolve(filling)
      .then(() => out.finish())
      .then((written) => this.settle(fd, name, written), failed);
  }

  private async settle(fd: number, name: string, written: WrittenFile): Promise<void> {
    const final = join(this.dir, name);
    const temp = `${final}.tmp`;
    try {
      try {
        await promisify(fsync)(fd);
      } finally {
        closeSync(fd);
      }
      await rename(temp, final);
    } catch (err) {
      await unlink(temp).catch(() => undefined);
      throw err;
    }
    await syncDirectory(this.dir);
    await checkReadsBack(final, written);
    // On the threadpool: freeing a large file's blocks held the request thread 17-90 ms.
    for (const old of this.names().filter((n) => n < name)) await unlink(join(this.dir, old));
    for (const stray of readdirSync(this.dir).filter((f) => TEMP.test(f) && f !== `${name}.tmp`)) await unlink(join(this.dir, stray));
  }

  /** The mark on disk when it reads back; a damaged one is about to be replaced. */
  private markOnDisk(): HighWaterMark | null {
    try {
      return this.readMark();
    } catch {
      return null;
    }
  }

  readMark(): HighWaterMark | null {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(this.markPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      this.heldMark = decodeMark(bytes);
    } catch (err) {
      throw new CorruptDataError(`the high-water mark ${this.markPath} is damaged: ${(err as Error).message}`);
    }
    return this.heldMark;
  }

  /** Writes one at a time, in call order. */
  writeMark(mark: HighWaterMark): Promise<void> {
    const held = this.heldMark ?? this.markOnDisk();
    const next = held
      ? { opId: Math.max(held.opId, mark.opId), snapshotOpId: Math.max(held.snapshotOpId, mark.snapshotOpId), reservedThrough: Math.max(held.reservedThrough, mark.reservedThrough) }
      : mark;
    this.heldMark = next;
    const write = this.markWrites.then(() => writeFileDurably(this.dir, MARK, [encodeMark(next)]));
    this.markWrites = write.catch(() => undefined);
    return write;
  }
}

