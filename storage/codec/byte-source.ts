import { CorruptDataError } from '../errors.js';

/**
 * Bytes read in order from wherever they are (a file, chunks in memory), a piece at a time, so
 * that a large file is decoded without being held whole.
 */
export interface ByteSource {
  /** The next `n` bytes, exactly; throws CorruptDataError if the source ends first. */
  read(n: number): Uint8Array;
  /** Whether every byte has been read. */
  readonly done: boolean;
}

const endsEarly = (n: number, at: number): CorruptDataError => new CorruptDataError(`the data ends early: needed ${n} bytes at byte ${at}`);

/** Chunks in memory, read in order: a read within one chunk is a view of it, one across chunks a copy. */
export function chunkSource(chunks: Uint8Array | readonly Uint8Array[]): ByteSource {
  const list = chunks instanceof Uint8Array ? [chunks] : chunks;
  const total = list.reduce((n, c) => n + c.length, 0);
  let index = 0;
  let at = 0;
  let consumed = 0;
  const skipEmpty = (): void => {
    while (index < list.length && at === list[index]!.length) {
      index++;
      at = 0;
    }
  };
  return {
    read(n) {
      // Checked first: a damaged length must not allocate before the end is found.
      if (consumed + n > total) throw endsEarly(n, consumed);
      skipEmpty();
      const chunk = list[index];
      if (chunk && at + n <= chunk.length) {
        at += n;
        consumed += n;
        return chunk.subarray(at - n, at);
      }
      const out = new Uint8Array(n);
      for (let filled = 0; filled < n; ) {
        skipEmpty();
        const from = list[index]!;
        const take = Math.min(n - filled, from.length - at);
        out.set(from.subarray(at, at + take), filled);
        filled += take;
        at += take;
      }
      consumed += n;
      return out;
    },
    get done() {
      return consumed === total;
    },
  };
}
