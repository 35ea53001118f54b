import type { HighWaterMark } from './high-water-mark.js';
import type { Snapshot, SnapshotOutput } from './snapshot-codec.js';
import type { FloatFiles } from '../views/float-file.js';

/** Where the engine keeps snapshots and the high-water mark (files on the server; none in the browser). */
export interface SnapshotStore {
  /** The newest snapshot at or before `atMost` that reads back whole, or null; floats on disk go to `floatFiles` as they are read. */
  loadNewest(atMost?: number, floatFiles?: FloatFiles | null): Snapshot | null;
  /**
   * Writes snapshot `opId`: `fill` starts before this returns and writes through `out`, at once or
   * until the promise it answers resolves (the engine encodes a state captured beforehand, a
   * slice at a time); the answer resolves once the snapshot is durable and reads back as written.
   */
  write(opId: number, fill: (out: SnapshotOutput) => void | Promise<void>): Promise<void>;
  /** The operation_ids of the snapshots held (damaged ones too), newest first. */
  list(): number[];
  /** The mark as last written, null when there is none; throws CorruptDataError when it is damaged. */
  readMark(): HighWaterMark | null;
  /** Replaces the mark durably; a mark lower than the one held is raised to it. */
  writeMark(mark: HighWaterMark): Promise<void>;
}
