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

/**
 * Chunks taken one at a time as reading needs them from `next` (which may block until one
 * comes; null: there are no more), so that bytes arriving from elsewhere are decoded as they
 * come. A read is allocated only once its bytes have all arrived.
 */
export function pulledSource(next: () => Uint8Array | null): ByteSource {
  const held: Uint8Array[] = [];
  let heldBytes = 0;
  let consumed = 0;
  let ended = false;
  /** Takes chunks until `n` bytes are held; answers whether they are. */
  const fill = (n: number): boolean => {
    while (heldBytes < n && !ended) {
      const chunk = next();
      if (chunk === null) ended = true;
      else if (chunk.length > 0) {
        held.push(chunk);
        heldBytes += chunk.length;
      }
    }
    return heldBytes >= n;
  };
  return {
    read(n) {
      if (n === 0) return new Uint8Array(0);
      if (!fill(n)) throw endsEarly(n, consumed);
      consumed += n;
      heldBytes -= n;
      const first = held[0]!;
      if (first.length >= n) {
        held[0] = first.subarray(n);
        if (held[0].length === 0) held.shift();
        return first.subarray(0, n);
      }
      const out = new Uint8Array(n);
      for (let filled = 0; filled < n; ) {
        const from = held[0]!;
        const take = Math.min(n - filled, from.length);
        out.set(from.subarray(0, take), filled);
        filled += take;
        if (take === from.length) held.shift();
        else held[0] = from.subarray(take);
      }
      return out;
    },
    get done() {
      return !fill(1);
    },
  };
}
