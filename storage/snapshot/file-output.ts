import { createHash, webcrypto } from 'node:crypto';
import { write, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { CorruptDataError } from '../errors.js';
import type { SnapshotOutput } from './snapshot-codec.js';

/**
 * Appended bytes are written and checksummed in pieces of at most this many bytes, each on
 * libuv's threadpool (a positional write and a SHA-256), so the request thread only copies them.
 */
const PIECE_BYTES = 256 * 1024;
/**
 * Pieces in flight at once, each in a buffer of its own kept for reuse (2 MiB in all). When all
 * are taken (a disk slower than the encoder, or a snapshot written without pauses at shutdown),
 * the next piece is written and checksummed on the calling thread instead: memory stays flat.
 */
const IN_FLIGHT = 8;

/** A stretch of a written file: the SHA-256 of one appended piece, or the exact bytes of a reserved place. */
type Written = { at: number; length: number; digest: Uint8Array } | { at: number; bytes: Uint8Array };

/** What a file written through a FileOutput must read back as. */
export interface WrittenFile {
  size: number;
  stretches: readonly Written[];
}

function writeAllSync(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

function writeAll(fd: number, bytes: Uint8Array, position: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const from = (done: number): void => {
      if (done === bytes.length) return resolve();
      write(fd, bytes, done, bytes.length - done, position + done, (err, n) => (err ? reject(err) : from(done + n)));
    };
    from(0);
  });
}

/** SHA-256 on libuv's threadpool (WebCrypto copies the bytes before it answers). */
const digestOffThread = async (bytes: Uint8Array): Promise<Uint8Array> => new Uint8Array(await webcrypto.subtle.digest('SHA-256', bytes));

/**
 * A snapshot written straight into a file as it is encoded (positional writes to an open
 * descriptor), remembering a SHA-256 per appended piece and the exact bytes of each reserved
 * place, so the file can be checked back without the snapshot in memory. Appended pieces are
 * written and hashed on libuv's threadpool (see PIECE_BYTES, IN_FLIGHT); a failure there fails
 * the next append, or else `finish`. Call `settled` before closing the descriptor on any path.
 */
export class FileOutput implements SnapshotOutput {
  private position = 0;
  private readonly stretches: Written[] = [];
  private readonly spare: Uint8Array[] = [];
  private buffers = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private failure: Error | null = null;

  constructor(private readonly fd: number) {}

  append(bytes: Uint8Array): void {
    if (this.failure) throw this.failure;
    for (let from = 0; from < bytes.length; from += PIECE_BYTES) {
      const piece = bytes.subarray(from, Math.min(bytes.length, from + PIECE_BYTES));
      this.writePiece(piece, this.position);
      this.position += piece.length;
    }
  }

  private writePiece(piece: Uint8Array, at: number): void {
    const buffer = this.spare.pop() ?? (this.buffers < IN_FLIGHT ? (this.buffers++, new Uint8Array(PIECE_BYTES)) : null);
    if (!buffer) {
      writeAllSync(this.fd, piece, at);
      this.stretches.push({ at, length: piece.length, digest: createHash('sha256').update(piece).digest() });
      return;
    }
    const copy = buffer.subarray(0, piece.length);
    copy.set(piece);
    const stretch: Written = { at, length: piece.length, digest: new Uint8Array(0) };
    this.stretches.push(stretch);
    const done: Promise<void> = Promise.all([writeAll(this.fd, copy, at), digestOffThread(copy)]).then(
      ([, digest]) => {
        stretch.digest = digest;
      },
      (err: Error) => {
        this.failure ??= err;
      },
    );
    this.inFlight.add(done);
    void done.finally(() => {
      this.inFlight.delete(done);
      this.spare.push(buffer);
    });
  }

  reserve(length: number): (bytes: Uint8Array) => void {
    const place = { at: this.position, bytes: new Uint8Array(length) };
    this.stretches.push(place);
    writeAllSync(this.fd, place.bytes, place.at);
    this.position += length;
    return (bytes) => {
      if (bytes.length !== length) throw new Error(`a reserved place of ${length} bytes given ${bytes.length}`);
      place.bytes.set(bytes);
      writeAllSync(this.fd, bytes, place.at);
    };
  }

  /** Resolves once no write is in flight (whether they succeeded or not). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** What was written, for checkReadsBack, once every piece is on its way to the disk; rejects with the first write's failure. */
  async finish(): Promise<WrittenFile> {
    await this.settled();
    if (this.failure) throw this.failure;
    return { size: this.position, stretches: this.stretches };
  }
}

/** How much of a new snapshot is read back at once to check it: its pieces are hashed side by side on the threadpool. */
const READ_BACK_BYTES = 4 * 2 ** 20;

const lengthOf = (stretch: Written): number => ('bytes' in stretch ? stretch.bytes.length : stretch.length);

/**
 * Reads a file written through a FileOutput back, up to READ_BACK_BYTES at a time, hashing its
 * pieces off the request thread; throws CorruptDataError unless it holds what was written.
 */
export async function checkReadsBack(path: string, written: WrittenFile): Promise<void> {
  const file = await open(path, 'r');
  try {
    if ((await file.stat()).size !== written.size) throw new CorruptDataError(`snapshot ${path} is not the length written`);
    const buffer = Buffer.alloc(READ_BACK_BYTES);
    const { stretches } = written;
    for (let first = 0; first < stretches.length; ) {
      // The stretches that follow one another from `first` and fit in the buffer (at least one).
      const from = stretches[first]!.at;
      let end = first + 1;
      while (end < stretches.length && stretches[end]!.at === stretches[end - 1]!.at + lengthOf(stretches[end - 1]!) && stretches[end]!.at + lengthOf(stretches[end]!) - from <= buffer.length) end++;
      const last = stretches[end - 1]!;
      const span = last.at + lengthOf(last) - from;
      const bytes = span <= buffer.length ? buffer.subarray(0, span) : Buffer.alloc(span);
      const { bytesRead } = await file.read(bytes, 0, span, from);
      const checks = stretches.slice(first, end).map(async (stretch) => {
        const got = bytes.subarray(stretch.at - from, stretch.at - from + lengthOf(stretch));
        const same = bytesRead === span && ('bytes' in stretch ? got.equals(stretch.bytes) : Buffer.from(await digestOffThread(got)).equals(stretch.digest));
        if (!same) throw new CorruptDataError(`snapshot ${path} does not read back as written (at byte ${stretch.at})`);
      });
      await Promise.all(checks);
      first = end;
    }
  } finally {
    await file.close();
  }
}
