import type { StagedContent } from '../storage/events/types.js';
import type { EventLog, ImportStaging } from '../storage/log/event-log.js';
import type { StreamMessage } from './stream.js';

type EntryMessage = Extract<StreamMessage, { kind: 'entry' }>;

/**
 * A follower's side of a streamed import: the primary publishes the import's staged blocks
 * (its stage file, storage/log/import-stage.ts) in consecutive messages ahead of its entry,
 * which names the stage. Each piece is written to a stage of the same number in this server's
 * log as it comes (a few MiB in flight, as the primary's own import), so memory stays flat
 * whatever the import's size; the entry then commits the stage with it.
 */
export class StageReceiver {
  private stage: ImportStaging | null = null;
  private opId = 0;
  private total = 0;
  private filled = 0;

  constructor(private readonly log: EventLog) {}

  /** Writes a piece of an entry's staged blocks. Throws when it does not follow the ones taken (the stream no longer holds the first). */
  async take(m: EntryMessage): Promise<void> {
    const piece = m.stage!;
    if (piece.at === 0) {
      await this.drop();
      if (!this.log.stageImport) throw new Error(`stream message ${m.seq} holds the staged blocks of a streamed import, which this server's log cannot stage`);
      this.stage = this.log.stageImport(piece.stage);
      this.opId = m.opId;
      this.total = piece.total;
      this.filled = 0;
    } else if (this.stage === null || this.opId !== m.opId || this.stage.id !== piece.stage || this.total !== piece.total || this.filled !== piece.at) {
      throw new Error(`stream message ${m.seq} holds bytes ${piece.at} on of the staged blocks of log entry ${m.opId}, but not the piece before them (the stream no longer holds their first pieces)`);
    }
    this.stage.add(m.record);
    this.filled += m.record.length;
    await this.stage.room();
  }

  /**
   * The stage for entry `opId`, whose record names `staged` (undefined: no staged blocks):
   * every block in, durable and matching the digest the record names. Throws when they did not
   * all come before it, or do not match.
   */
  async finish(opId: number, staged: StagedContent | undefined): Promise<ImportStaging | undefined> {
    if (!staged) {
      if (this.stage && this.opId === opId) throw new Error(`log entry ${opId} came after staged blocks, and names none`);
      return undefined;
    }
    const stage = this.stage;
    if (stage === null || this.opId !== opId || stage.id !== staged.stage || this.filled !== this.total) {
      throw new Error(`log entry ${opId} names staged import ${staged.stage}, whose blocks did not all come before it`);
    }
    this.stage = null;
    try {
      const { digest } = await stage.finish();
      if (Buffer.compare(digest, staged.digest) !== 0) throw new Error(`the staged blocks of log entry ${opId} do not match the SHA-256 it names`);
    } catch (err) {
      await stage.discard();
      throw err;
    }
    return stage;
  }

  /** Lets go of (deletes) blocks being received: their primary was replaced (a marker), or the stream is read again from their first piece. */
  async drop(): Promise<void> {
    const stage = this.stage;
    this.stage = null;
    await stage?.discard();
  }
}
