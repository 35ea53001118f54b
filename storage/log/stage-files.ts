import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, statSync, unlinkSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { crc32 } from '../codec/crc32.js';
import { CorruptDataError } from '../errors.js';
import { BLOCK_HEADER } from '../export/format.js';

const SUFFIX = '.stage';

/**
 * The directory beside the log (`imports/` in the data dir) where streamed imports stage their
 * blocks: one file a stage, `<stage>.stage`, the file's POINTS and EDGES blocks byte for byte as
 * framed in the export file (type, length, CRC-32, payload). A stage's log entry names it by
 * number. Keeping the blocks out of LMDB keeps `data.mdb` from growing by an import's size: LMDB
 * reuses freed pages but never gives them back, while a file goes whole once its entry is dropped.
 */
export class StageFiles {
  constructor(readonly dir: string) {}

  /** The file of stage `stage`. */
  fileOf(stage: number): string {
    return join(this.dir, `${stage}${SUFFIX}`);
  }

  /** The path as the data dir names it, for messages. */
  nameOf(stage: number): string {
    return `imports/${stage}${SUFFIX}`;
  }

  /** Creates the directory (first stage of this data dir). */
  ensure(): void {
    mkdirSync(this.dir, { recursive: true });
  }

  /** The stages that have a file, in no order (none when the directory does not exist). */
  present(): number[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: number[] = [];
    for (const name of names) {
      const stage = Number(name.slice(0, -SUFFIX.length));
      if (name.endsWith(SUFFIX) && Number.isSafeInteger(stage) && stage > 0) out.push(stage);
    }
    return out;
  }

  /** The size of a stage's file in bytes; undefined when it is missing. */
  sizeOf(stage: number): number | undefined {
    try {
      return statSync(this.fileOf(stage)).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Deletes a stage's file (gone already is fine). */
  remove(stage: number): void {
    try {
      unlinkSync(this.fileOf(stage));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  /**
   * A stage's blocks in order, each checked against its CRC, and all of them against the digest
   * its entry holds; a missing file, a damaged, cut or missing block throws CorruptDataError. The
   * file stays open while it is read, so a snapshot that drops its entry meanwhile (and deletes
   * it) does not cut short a pass that started before.
   */
  *blocks(stage: number, blocks: number, digest: Uint8Array): Generator<Uint8Array> {
    const fd = this.openFile(stage);
    try {
      yield* this.blocksIn(fd, stage, blocks, digest);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The stage's file, opened now and held until close(): every pass over its blocks reads from it,
   * even after a snapshot drops its entry and deletes it (the changefeed reads an import in three
   * passes: its ids, its points, its edges).
   */
  open(stage: number, blocks: number, digest: Uint8Array): { read(): Iterable<Uint8Array>; close(): void } {
    const fd = this.openFile(stage);
    return { read: () => this.blocksIn(fd, stage, blocks, digest), close: () => closeSync(fd) };
  }

  private openFile(stage: number): number {
    try {
      return openSync(this.fileOf(stage), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new CorruptDataError(`staged import ${stage}: its file ${this.nameOf(stage)} is missing`);
      throw err;
    }
  }

  private *blocksIn(fd: number, stage: number, blocks: number, digest: Uint8Array): Generator<Uint8Array> {
    const size = fstatSync(fd).size;
    const hash = createHash('sha256');
    const header = new Uint8Array(BLOCK_HEADER);
    const view = new DataView(header.buffer);
    let at = 0;
    let seen = 0;
    while (at < size) {
      if (size - at < BLOCK_HEADER || readSync(fd, header, 0, BLOCK_HEADER, at) !== BLOCK_HEADER) throw new CorruptDataError(`staged import ${stage}: block ${seen + 1} is cut short`);
      const length = view.getUint32(1, true);
      if (length > size - at - BLOCK_HEADER) throw new CorruptDataError(`staged import ${stage}: block ${seen + 1} is cut short`);
      const value = new Uint8Array(BLOCK_HEADER + length);
      value.set(header);
      if (readSync(fd, value, BLOCK_HEADER, length, at + BLOCK_HEADER) !== length) throw new CorruptDataError(`staged import ${stage}: block ${seen + 1} is cut short`);
      if (crc32(value.subarray(BLOCK_HEADER)) !== view.getUint32(5, true)) throw new CorruptDataError(`staged import ${stage}: block ${seen + 1} fails its checksum`);
      hash.update(value);
      at += value.length;
      seen++;
      yield value;
    }
    if (seen !== blocks) throw new CorruptDataError(`staged import ${stage} holds ${seen} blocks, its entry names ${blocks}`);
    if (!Buffer.from(hash.digest()).equals(digest)) throw new CorruptDataError(`staged import ${stage}: its blocks do not match the digest in its entry`);
  }
}
