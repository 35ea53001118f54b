/**
 * A store's float vectors kept in a file instead of RAM (Qdrant's on_disk: true): slot s's dim
 * floats at byte s * dim * 4. The file is a view like the others: written by apply, never
 * fsynced, rebuilt from the snapshot and the log at start-up. Reads go through the OS page cache.
 */
export interface FloatFile {
  /** Writes `count` vectors from `from` (dim floats each) at slots `slot`, `slot + 1`, ... */
  write(slot: number, from: Float32Array, count: number): void;
  /** Reads `count` vectors from slot `slot` on into the start of `into`. */
  read(slot: number, into: Float32Array, count: number): void;
  /** Lets go of the file (its space is given back). */
  close(): void;
}

/** Makes float files (a data dir's); the browser library has none, and keeps every vector in RAM. */
export interface FloatFiles {
  open(dim: number): FloatFile;
  /** Told when a collection has let go of large buffers (floats moved into a file or back, codes replaced), so that their memory can be given back at once. */
  released(): void;
}
