import type { Collection } from '../../storage/collection.js';
import { captureSnapshot, FRAME_BYTES, type SnapshotOutput } from '../../storage/snapshot/snapshot-codec.js';

/** A snapshot captured and written out now, as the parts it was written in (frames of `frameBytes`; `links` as captureSnapshot takes it). */
export function capturedParts(collections: ReadonlyMap<string, Collection>, opId: number, frameBytes = FRAME_BYTES, links = true): Uint8Array[] {
  const parts: Uint8Array[] = [];
  const out: SnapshotOutput = {
    append: (bytes) => void parts.push(bytes.slice()),
    reserve: (n) => {
      const room = new Uint8Array(n);
      parts.push(room);
      return (bytes) => room.set(bytes);
    },
  };
  const capture = captureSnapshot(collections, opId, frameBytes, links);
  try {
    for (const _ of capture.write(out));
  } finally {
    capture.release();
  }
  return parts;
}
