import type { StreamMessage } from './stream.js';

type EntryMessage = Extract<StreamMessage, { kind: 'entry' }>;

/**
 * A follower's side of entries too large for one message: gathers an entry's pieces, which the
 * primary publishes in consecutive messages, back into its record. Memory holds the one entry
 * being gathered, as it would hold that entry whole.
 */
export class PieceGatherer {
  private opId = 0;
  private record: Uint8Array | null = null;
  private filled = 0;

  /**
   * Takes a piece: answers the entry's whole record once its last piece is in, null while more
   * are to come. Throws when the piece does not follow the ones taken (the stream no longer holds
   * the entry's first pieces, or holds something else).
   */
  take(m: EntryMessage): Uint8Array | null {
    const piece = m.piece!;
    if (piece.at === 0) {
      this.opId = m.opId;
      this.record = new Uint8Array(piece.total);
      this.filled = 0;
    } else if (this.record === null || this.opId !== m.opId || this.filled !== piece.at || this.record.length !== piece.total) {
      throw new Error(`stream message ${m.seq} holds bytes ${piece.at} on of log entry ${m.opId}, but not the piece before them (the stream no longer holds the entry's first pieces)`);
    }
    this.record.set(m.record, piece.at);
    this.filled += m.record.length;
    if (this.filled < piece.total) return null;
    const whole = this.record;
    this.drop();
    return whole;
  }

  /** Lets go of an entry being gathered: its primary was replaced (a marker), or the stream is read again from its first piece. */
  drop(): void {
    this.record = null;
    this.filled = 0;
    this.opId = 0;
  }
}
