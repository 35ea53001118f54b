import { createHash, type Hash } from 'node:crypto';
import { writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { CorruptDataError } from '../errors.js';
import type { SnapshotOutput } from './snapshot-codec.js';

/** How much of a new snapshot is read back at a time to check it. */
const READ_BACK_BYTES = 4 * 2 ** 20;

/** A stretch of a written file: the SHA-256 of a run of appended bytes, or the exact bytes of a reserved place. */
type Written = { at: number; length: number; digest: Buffer } | { at: number; bytes: Uint8Array };

/** What a file written through a FileOutput must read back as. */
export interface WrittenFile {
  size: number;
  stretches: readonly Written[];
}

function writeAllSync(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

/**
 * A snapshot written straight into a file as it is encoded (positional writes to an open
 * descriptor), remembering what it wrote as a SHA-256 per run of appended bytes and the exact
 * bytes of each reserved place, so the file can be checked back without the snapshot in memory.
 */
export class FileOutput implements SnapshotOutput {
  private position = 0;
  private run: Hash = createHash('sha256');
  private runAt = 0;
  private readonly stretches: Written[] = [];

  constructor(private readonly fd: number) {}

  append(bytes: Uint8Array): void {
    writeAllSync(this.fd, bytes, this.position);
    this.run.update(bytes);
    this.position += bytes.length;
  }

  reserve(length: number): (bytes: Uint8Array) => void {
    this.endRun();
    const place = { at: this.position, bytes: new Uint8Array(length) };
    this.stretches.push(place);
    writeAllSync(this.fd, place.bytes, place.at);
    this.position += length;
    this.runAt = this.position;
    return (bytes) => {
      if (bytes.length !== length) throw new Error(`a reserved place of ${length} bytes given ${bytes.length}`);
      place.bytes.set(bytes);
      writeAllSync(this.fd, bytes, place.at);
    };
  }

  private endRun(): void {
    if (this.position > this.runAt) this.stretches.push({ at: this.runAt, length: this.position - this.runAt, digest: this.run.digest() });
    this.run = createHash('sha256');
    this.runAt = this.position;
  }

  /** What was written, for checkReadsBack. */
  finish(): WrittenFile {
    this.endRun();
    return { size: this.position, stretches: this.stretches };
  }
}

/** Reads a file written through a FileOutput back a piece at a time; throws CorruptDataError unless it holds what was written. */
export async function checkReadsBack(path: string, written: WrittenFile): Promise<void> {
  const file = await open(path, 'r');
  try {
    if ((await file.stat()).size !== written.size) throw new CorruptDataError(`snapshot ${path} is not the length written`);
    const differs = (at: number) => new CorruptDataError(`snapshot ${path} does not read back as written (at byte ${at})`);
    for (const stretch of written.stretches) {
      if ('bytes' in stretch) {
        const got = Buffer.alloc(stretch.bytes.length);
        const { bytesRead } = await file.read(got, 0, got.length, stretch.at);
        if (bytesRead !== got.length || !got.equals(stretch.bytes)) throw differs(stretch.at);
        continue;
      }
      const hash = createHash('sha256');
      const piece = Buffer.alloc(Math.min(READ_BACK_BYTES, stretch.length));
      for (let from = 0; from < stretch.length; ) {
        const want = Math.min(piece.length, stretch.length - from);
        const { bytesRead } = await file.read(piece, 0, want, stretch.at + from);
        if (bytesRead !== want) throw differs(stretch.at + from);
        hash.update(piece.subarray(0, want));
        from += want;
      }
      if (!hash.digest().equals(stretch.digest)) throw differs(stretch.at);
    }
  } finally {
    await file.close();
  }
}
