import { mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CorruptDataError } from '../errors.js';
import { writeFileDurably } from './durable-file.js';
import { decodeMark, encodeMark, type HighWaterMark } from './high-water-mark.js';
import { decodeSnapshot, type Snapshot } from './snapshot-codec.js';
import type { SnapshotStore } from './snapshot-store.js';

const NAME = /^snapshot-(\d{16})\.snap$/;
const TEMP = /^snapshot-\d{16}\.snap\.tmp$/;
const MARK = 'high-water-mark';
const KEEP = 2;
export const snapshotFileName = (opId: number): string => `snapshot-${String(opId).padStart(16, '0')}.snap`;

/**
 * Snapshots as files in a directory, with the high-water mark beside them. A snapshot is written
 * to a temporary file, fsynced, renamed into place and the directory fsynced, so a crash mid-write
 * leaves the previous one intact. The two newest are kept; a damaged one is skipped for the one before it.
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

  loadNewest(atMost = Number.MAX_SAFE_INTEGER): Snapshot | null {
    for (const name of this.names()) {
      if (Number(NAME.exec(name)![1]) > atMost) continue;
      try {
        return decodeSnapshot(readFileSync(join(this.dir, name)));
      } catch (err) {
        this.onSkip(name, (err as Error).message);
      }
    }
    return null;
  }

  async save(opId: number, chunks: readonly Uint8Array[]): Promise<void> {
    const name = snapshotFileName(opId);
    await writeFileDurably(this.dir, name, chunks);
    for (const old of this.names().slice(KEEP)) unlinkSync(join(this.dir, old));
    for (const stray of readdirSync(this.dir).filter((f) => TEMP.test(f) && f !== `${name}.tmp`)) unlinkSync(join(this.dir, stray));
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
