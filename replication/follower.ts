import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { Engine } from '../storage/engine/engine.js';
import { chainHash, hex } from '../storage/log/chain.js';
import { chainHashOf, stagedImportOf, unframeRecord } from '../storage/log/record.js';
import type { ImportStaging } from '../storage/log/event-log.js';
import { PieceGatherer } from './pieces.js';
import { StageReceiver } from './stage-receiver.js';
import { firstSeqAfter, positionOf, readMessage, streamHead, SUBJECT } from './stream.js';

/** Entries handed to the engine and not yet applied, at most: LMDB groups their commits. */
const APPLYING = 512;
/** How often the stream's newest message is read, for the lag a follower reports. */
const POLL_MS = 1_000;
/** The wait before a consumer that ended is started again. */
const RESUBSCRIBE_MS = 500;
/**
 * A consumer that delivers nothing this long while the stream holds more is replaced: after a
 * NATS node goes, the client's ordered consumer can stall rather than fail.
 */
const STALL_MS = 3_000;

export interface FollowerOptions {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  engine: Engine;
  /** Told the primary's URL as each message names it. */
  onPrimary(url: string): void;
  /** Told once when following stops for good (a gap in the stream, a broken chain, an entry that fails). */
  onStopped(reason: string): void;
  /** Told when the consumer failed or stalled and a new one is started. */
  onRetry(reason: string): void;
}

/** How far a replica is behind the stream. */
export interface Lag {
  /** The newest operation_id applied here. */
  applied: number;
  /** The operation_id the stream's newest message stands at, as last read. */
  stream: number;
  /** Stream messages not applied here yet. */
  entries: number;
  /** How long ago the newest entry applied here was published, when entries are waiting (0 when caught up). */
  ms: number;
}

/**
 * The replica's side: the stream from the entry after this server's log on, in order, with an
 * ordered consumer (it resumes by itself after a NATS node goes). Each entry is checked (the
 * operation it follows is held here, its CRC, its chain hash against the entry before it), stored
 * in this server's own log and applied by the engine's apply code, in order.
 */
export class Follower {
  private messages: ConsumerMessages | null = null;
  private running: Promise<void> = Promise.resolve();
  private applying: Promise<void>[] = [];
  /** The newest operation_id stored in this server's log: the next entry must follow it. */
  private held: number;
  /** The chain hash the next entry must link to; null: the next entry is taken as the anchor (after a bootstrap). */
  private previousHash: Uint8Array | null;
  private seenSeq = 0;
  /** When the newest message was delivered (or the consumer started). */
  private seenAt = Date.now();
  private streamSeq = 0;
  private streamOpId = 0;
  private appliedStampMs = 0;
  private poller: NodeJS.Timeout | null = null;
  private stopped: string | null = null;
  /** stop() was called: the consumer is not started again. */
  private ending = false;
  /** The entry being gathered from its pieces, when it did not fit one message. */
  private readonly pieces = new PieceGatherer();
  /** A streamed import's staged blocks being received, ahead of its entry. */
  private readonly stages: StageReceiver;

  constructor(private readonly o: FollowerOptions) {
    const log = o.engine.log;
    this.held = log.lastOperationId;
    const holdsNewest = [...log.keys(this.held, this.held)].length > 0;
    // An unchained newest entry (written before logs were chained) leaves no hash to link to.
    this.previousHash = holdsNewest && log.headHash && /[^0]/.test(log.headHash) ? Buffer.from(log.headHash, 'hex') : null;
    this.streamOpId = this.held;
    this.stages = new StageReceiver(log);
  }

  /** Why following stopped for good, or null. */
  get stoppedReason(): string | null {
    return this.stopped;
  }

  lag(): Lag {
    const applied = this.o.engine.lastAppliedOperationId;
    const entries = Math.max(0, this.streamSeq - this.seenSeq) + this.applying.length;
    return { applied, stream: Math.max(this.streamOpId, applied), entries, ms: entries === 0 ? 0 : Math.max(0, Date.now() - this.appliedStampMs) };
  }

  async start(): Promise<void> {
    await this.subscribe();
    this.running = this.run();
    this.poller = setInterval(() => void this.poll(), POLL_MS);
    await this.poll();
  }

  /** An ordered consumer from the message after the newest entry held here. */
  private async subscribe(): Promise<ConsumerMessages> {
    const from = await firstSeqAfter(this.o.jsm, this.o.stream, this.held);
    // Read again from there: an entry's pieces (and staged blocks) come again from their first.
    this.pieces.drop();
    await this.stages.drop();
    const consumer = await this.o.js.consumers.get(this.o.stream, { filter_subjects: SUBJECT, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from });
    this.messages = await consumer.consume();
    this.seenSeq = Math.max(this.seenSeq, from - 1);
    this.seenAt = Date.now();
    return this.messages;
  }

  /**
   * Waits until the message at stream sequence `seq` is applied here (promotion: nothing the
   * stream holds is left behind), up to `timeoutMs`; answers whether it was.
   */
  async catchUp(seq: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.seenSeq < seq) {
      if (this.stopped || Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 10));
    }
    await Promise.allSettled(this.applying);
    return this.stopped === null;
  }

  /** Stops consuming; resolves once every entry taken is applied. */
  async stop(): Promise<void> {
    this.ending = true;
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    this.messages?.stop();
    await this.running;
    await Promise.allSettled(this.applying);
    await this.stages.drop();
  }

  private async poll(): Promise<void> {
    try {
      const head = await streamHead(this.o.jsm, this.o.stream);
      this.streamSeq = Math.max(this.streamSeq, head.seq);
      if (head.last) this.streamOpId = Math.max(this.streamOpId, positionOf(head.last));
      // Ending the stalled consumer makes run() start a new one after the newest entry held.
      if (this.streamSeq > this.seenSeq && Date.now() - this.seenAt > STALL_MS) {
        this.seenAt = Date.now();
        this.o.onRetry(`the consumer delivered nothing for ${STALL_MS} ms while the stream holds more; starting a new one after operation ${this.held}`);
        this.messages?.stop();
      }
    } catch {
      // The lag is reported from the last read; the consumer reconnects by itself.
    }
  }

  /**
   * Takes messages until stopped. The ordered consumer recovers from a lost NATS node by itself;
   * when it gives up (its stream leader gone too long), a new one starts after the newest entry held.
   */
  private async run(): Promise<void> {
    let messages = this.messages;
    while (!this.stopped && !this.ending) {
      try {
        messages ??= await this.subscribe();
        for await (const m of messages) {
          if (this.stopped) break;
          await this.take(m);
        }
      } catch (err) {
        this.o.onRetry(`the consumer failed (${(err as Error).message}); starting a new one after operation ${this.held}`);
      }
      messages = null;
      if (!this.stopped && !this.ending) await new Promise((r) => setTimeout(r, RESUBSCRIBE_MS));
    }
  }

  private async take(m: JsMsg): Promise<void> {
    const msg = readMessage(m.seq, m.headers, m.data);
    this.seenSeq = m.seq;
    this.seenAt = Date.now();
    this.streamSeq = Math.max(this.streamSeq, m.seq + m.info.pending);
    this.streamOpId = Math.max(this.streamOpId, positionOf(msg));
    if (msg.primary) this.o.onPrimary(msg.primary);
    // A marker after pieces of an entry: their primary stopped before the last, and the new one goes on after the entry before.
    if (msg.kind === 'promotion') {
      this.pieces.drop();
      return this.stages.drop();
    }
    if (msg.opId <= this.held) return;
    if (msg.stage) {
      try {
        return await this.stages.take(msg);
      } catch (err) {
        return this.halt(`${(err as Error).message}: start this replica again on an empty data dir to bootstrap from the primary`);
      }
    }
    if (msg.piece) {
      let whole: Uint8Array | null;
      try {
        whole = this.pieces.take(msg);
      } catch (err) {
        return this.halt(`${(err as Error).message}: start this replica again on an empty data dir to bootstrap from the primary`);
      }
      if (!whole) return;
      msg.record = whole;
    }
    if (msg.previous > this.held) {
      return this.halt(`the stream no longer holds the entries between operation ${this.held} and ${msg.previous} (its oldest were dropped): start this replica again on an empty data dir to bootstrap from the primary`);
    }
    const problem = this.checkChain(msg.opId, msg.record);
    if (problem) return this.halt(`log entry ${msg.opId} from the stream ${problem}; nothing from it on is applied`);
    let stage: ImportStaging | undefined;
    try {
      stage = await this.stages.finish(msg.opId, stagedImportOf(msg.opId, msg.record)?.staged);
    } catch (err) {
      return this.halt(`${(err as Error).message}; nothing from it on is applied`);
    }
    this.held = msg.opId;
    const stampMs = m.time.getTime();
    let applying: Promise<void>;
    try {
      applying = this.o.engine.applyReplicated(msg.opId, msg.record, stage);
    } catch (err) {
      return this.halt(`log entry ${msg.opId} from the stream could not be stored: ${(err as Error).message}`);
    }
    const tracked = applying.then(
      () => {
        this.appliedStampMs = Math.max(this.appliedStampMs, stampMs);
      },
      (err: Error) => this.halt(`log entry ${msg.opId} from the stream could not be applied: ${err.message}`),
    );
    this.applying.push(tracked);
    void tracked.finally(() => this.applying.splice(this.applying.indexOf(tracked), 1));
    if (this.applying.length >= APPLYING) await this.applying[0];
  }

  /** Why a record does not follow the entry before it (CRC, chain hash), or null when it does. */
  private checkChain(opId: number, record: Uint8Array): string | null {
    let body: Uint8Array;
    try {
      body = unframeRecord(record, opId);
    } catch (err) {
      return `is damaged: ${(err as Error).message}`;
    }
    const stored = chainHashOf(record);
    if (stored && this.previousHash && hex(chainHash(this.previousHash, opId, body)) !== hex(stored)) {
      return 'has a chain hash that does not follow from the entry before it (a changed, dropped or reordered entry)';
    }
    this.previousHash = stored;
    return null;
  }

  private halt(reason: string): void {
    if (this.stopped) return;
    this.stopped = reason;
    this.messages?.stop();
    this.o.onStopped(reason);
  }
}
