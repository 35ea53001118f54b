import type { Snapshot } from './snapshot-codec.js';

/** Where the engine keeps snapshots (files on the server; none in the browser). */
export interface SnapshotStore {
  /** The newest snapshot at or before `atMost` that reads back whole, or null. */
  loadNewest(atMost?: number): Snapshot | null;
  save(opId: number, chunks: readonly Uint8Array[]): Promise<void>;
}
