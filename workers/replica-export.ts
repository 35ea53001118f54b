import { createHash, type Hash } from 'node:crypto';
import type { Collection } from '../storage/collection.js';
import { exportCollection } from '../storage/export/export-writer.js';
import { EXPORT_WINDOW_BYTES, type ExportMessage, type ReplicaAnswer } from './replica-messages.js';
import type { TransferListItem } from 'node:worker_threads';

/** A buffer of its own, so that transferring it hands over exactly these bytes (a view's whole buffer would go otherwise). */
const owned = (piece: Uint8Array): Uint8Array => (piece.byteOffset === 0 && piece.byteLength === piece.buffer.byteLength ? piece : piece.slice());

/**
 * One export running on a replica: encoded in slices with a turn between them (so entries and
 * queries are taken meanwhile, over the export's capture: storage/snapshot/sliced-encoding.md),
 * each block sent as it is made, never more than EXPORT_WINDOW_BYTES ahead of what the main
 * thread has taken.
 */
export class ReplicaExport {
  private ahead = 0;
  private closed = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly m: ExportMessage,
    private readonly post: (answer: ReplicaAnswer, transfer?: TransferListItem[]) => void,
  ) {}

  /** The main thread took `bytes`: room for as many more. */
  taken(bytes: number): void {
    this.ahead -= bytes;
    this.resume();
  }

  /** The main thread wants no more: the export stops at its next piece and lets its pin go. */
  close(): void {
    this.closed = true;
    this.resume();
  }

  private resume(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Takes the export of `c` at `operationId` now (its capture) and sends it; throws what the capture throws, before any answer. */
  async run(c: Collection, operationId: number, logHead: string, pause: () => Promise<void>): Promise<void> {
    const { id } = this.m;
    const head = this.m.logHead ? logHead : '';
    const exp = exportCollection(c, operationId, head);
    const hash: Hash | null = this.m.digest ? createHash('sha256') : null;
    this.post({ type: 'exporting', id, pointCount: exp.pointCount, edgeCount: exp.edgeCount, dimension: exp.dimension, operationId, logHead: head });
    try {
      for await (const piece of exp.stream(pause)) {
        while (this.ahead >= EXPORT_WINDOW_BYTES && !this.closed) await new Promise<void>((resolve) => (this.wake = resolve));
        if (this.closed) return;
        hash?.update(piece);
        const bytes = owned(piece);
        this.ahead += bytes.byteLength;
        this.post({ type: 'chunk', id, bytes }, [bytes.buffer as ArrayBuffer]);
      }
      if (!this.closed) this.post({ type: 'export-end', id, sha256: hash ? hash.digest('hex') : null });
    } finally {
      exp.release();
    }
  }
}
