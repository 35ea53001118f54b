import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { headers } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { crc32 } from '../storage/codec/crc32.js';
import { DbError } from '../storage/errors.js';
import { entryHeaders, entryMessageId, isPartial, positionOf, PRIMARY, PROMOTED_AFTER, stageMessageId, streamHead, SUBJECT, type Piece, type StagePiece, type StreamMessage } from './stream.js';

/** sync: a write is acknowledged once JetStream holds it; async: once LMDB does, published behind it. */
export type ReplicationMode = 'sync' | 'async';

/** Publishes in flight at once: they are pipelined on the connection, not one round trip each. */
const WINDOW = 256;
const RETRY_MS = 250;
/** Room left in each message for its headers. */
const HEADER_MARGIN = 1_024;
/** Bytes of a staged import's blocks published and not yet acknowledged, at most: what publishing them holds in memory. */
const STAGE_WINDOW_BYTES = 8 * 2 ** 20;

/** A streamed import's blocks, in the file its entry names (storage/log/import-stage.ts). */
export interface StagedSource {
  stage: number;
  file: string;
}

interface Pending {
  opId: number;
  record: Uint8Array;
  /** Committed in LMDB: it may be published. */
  ready: boolean;
  /** JetStream acknowledged it. */
  stored: boolean;
  /** Under sync, the write's acknowledgement waits on this. */
  settle: { resolve: () => void; reject: (err: Error) => void } | null;
}

export interface PublisherOptions {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  mode: ReplicationMode;
  /** This server's URL, carried on every message so replicas can name the primary. */
  selfUrl: string | null;
  /** How long one publish waits for JetStream's acknowledgement before the stream is read again. */
  publishTimeoutMs: number;
  /** The largest message the NATS servers take (their max_payload). */
  maxPayload: number;
  /** The record this server's log holds for an operation_id, or null: how it knows its own entries in the stream. */
  heldRecord(opId: number): Uint8Array | null;
  /** A streamed import's staged blocks, for its record; null for any other record. */
  stagedOf?(opId: number, record: Uint8Array): StagedSource | null;
  /** Told once when another server turns out to write to the stream. */
  onFenced(reason: string): void;
  /** Told of a publish that failed and will be retried. */
  onRetry?(err: Error): void;
  /** The promotion marker this server published when it was promoted (kept in its data dir), so it knows it again after a restart. */
  ownMarker?: string | null;
  /** Told of the marker once it is in the stream, to keep it. */
  onClaimed?(markerId: string): Promise<void>;
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0;

/** Up to `length` bytes of a file at `at` (fewer where it ends; none when it is missing). */
function readAt(file: string, at: number, length: number): Uint8Array {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return new Uint8Array(0);
  }
  try {
    const bytes = new Uint8Array(length);
    return bytes.subarray(0, readSync(fd, bytes, 0, length, at));
  } finally {
    closeSync(fd);
  }
}

/**
 * The primary's side: every durable log entry goes to the stream in operation_id order. Each
 * publish carries its operation_id as the message id (a retry is stored once) and the stream
 * sequence it must follow (Nats-Expected-Last-Sequence): this server is the only writer, so the
 * sequence of each next message is known, and a message from any other server makes the next
 * publish fail. After any failure the stream's newest message is read: if it is one of this
 * server's entries (the log holds the same record), publishing goes on after it; if it is
 * anyone else's, this server is fenced and takes no more writes.
 */
export class Publisher {
  private queue: Pending[] = [];
  /** queue[sending] is the next entry to publish. */
  private sending = 0;
  private inFlight = 0;
  /** The stream sequence of the newest message sent; the next publish expects it. */
  private lastSeq = 0;
  /** The operation_id of the newest entry sent: the next entry's Vgdb-Previous. */
  private lastOpId = 0;
  private confirmedOpId = 0;
  private broken = false;
  private resyncing = false;
  private ownMarker: string | null = null;
  private fence: string | null = null;
  private closed = false;
  private drainWaiters: (() => void)[] = [];
  /** Where the stream's pieces of an entry (or of its staged blocks) end, when this server stopped part way through them. */
  private partial: { opId: number; at: number; stage: boolean } | null = null;
  /** A staged import's blocks are being published: nothing after its entry is sent meanwhile. */
  private streaming = false;

  constructor(private readonly o: PublisherOptions) {
    this.ownMarker = o.ownMarker ?? null;
  }

  get mode(): 'sync' | 'async' {
    return this.o.mode;
  }

  /** Why this server may not write (another one wrote to the stream: it is fenced), or null. */
  get fenced(): string | null {
    return this.fence;
  }

  /** Entries durable here and not yet held by the stream. */
  get backlog(): number {
    return this.queue.length;
  }

  /** The newest operation_id the stream is known to hold from this server. */
  get publishedThrough(): number {
    return this.confirmedOpId;
  }

  /**
   * Reads the stream's newest message and takes up from it (fencing this server when it is not
   * its own); answers the operation_id the stream holds through, so the caller can publish the
   * log's entries after it.
   */
  async start(): Promise<number> {
    await this.resync();
    return this.lastOpId;
  }

  /** Queues an entry as it is appended; see AckGate.admit. */
  admit(opId: number, record: Uint8Array, durable: Promise<void>): Promise<void> {
    if (this.fence) return Promise.reject(this.stoppedError());
    const p: Pending = { opId, record, ready: false, stored: false, settle: null };
    const stored = this.o.mode === 'sync' ? new Promise<void>((resolve, reject) => (p.settle = { resolve, reject })) : null;
    this.queue.push(p);
    durable.then(
      () => {
        p.ready = true;
        this.pump();
      },
      // The engine stops taking writes on a failed commit; nothing after it is published.
      () => undefined,
    );
    return stored ? Promise.all([durable, stored]).then(() => undefined) : durable;
  }

  /** Resolves once every queued entry is in the stream (or this server is fenced). */
  drained(): Promise<void> {
    if (this.queue.length === 0 || this.fence) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /**
   * A promoted replica claims the stream: a marker message that must follow the stream's newest
   * message (`seq`, standing at operation `through`), which the replica has applied. Any other
   * server's publish after that fails its check, and so does this claim if another came first.
   */
  async claim(seq: number, through: number): Promise<void> {
    this.lastSeq = seq;
    this.lastOpId = this.confirmedOpId = through;
    const id = `promoted-${this.lastOpId}-${randomUUID()}`;
    const h = headers();
    h.set(PROMOTED_AFTER, String(this.lastOpId));
    if (this.o.selfUrl) h.set(PRIMARY, this.o.selfUrl);
    try {
      const ack = await this.o.js.publish(SUBJECT, new Uint8Array(0), { msgID: id, expect: { lastSequence: this.lastSeq }, headers: h, timeout: this.o.publishTimeoutMs });
      this.lastSeq = ack.seq;
      this.ownMarker = id;
    } catch (err) {
      if (/wrong last sequence/i.test((err as Error).message)) throw new DbError(409, `promotion refused: another server published to the stream after operation ${this.lastOpId}`);
      throw new DbError(503, `promotion failed: JetStream did not take the promotion marker: ${(err as Error).message}`);
    }
    await this.o.onClaimed?.(id);
  }

  close(): void {
    this.closed = true;
  }

  private stoppedError(): DbError {
    return new DbError(503, `this server takes no writes: ${this.fence}`);
  }

  private pump(): void {
    while (!this.broken && !this.resyncing && !this.streaming && !this.fence && !this.closed && this.inFlight < WINDOW && this.sending < this.queue.length && this.queue[this.sending]!.ready) {
      this.send(this.queue[this.sending++]!);
    }
  }

  /**
   * Publishes an entry: as one message when it fits the NATS servers' max_payload, else as
   * pieces in consecutive messages (each expecting the one before, as entries do), from where the
   * stream's pieces of it end when this server stopped part way through it.
   */
  private send(p: Pending): void {
    const previous = this.lastOpId;
    this.lastOpId = p.opId;
    const resumed = this.partial?.opId === p.opId ? this.partial : null;
    this.partial = null;
    let staged: StagedSource | null;
    try {
      staged = this.o.stagedOf?.(p.opId, p.record) ?? null;
    } catch (err) {
      return this.failed(err as Error);
    }
    // A stream that holds part of the record holds all of the blocks before it.
    if (staged) return void this.sendStaged(p, staged, previous, resumed?.stage ? resumed.at : resumed ? Infinity : 0, resumed && !resumed.stage ? resumed.at : 0);
    this.sendRecord(p, previous, resumed?.at ?? 0);
  }

  private sendRecord(p: Pending, previous: number, from: number): void {
    const room = this.o.maxPayload - HEADER_MARGIN;
    if (from === 0 && p.record.length <= room) return void this.publish(p, p.record, null, previous, 0);
    const recordCrc = crc32(p.record);
    for (let at = from; at < p.record.length; at += room) void this.publish(p, p.record.subarray(at, at + room), { at, total: p.record.length }, previous, recordCrc);
  }

  /**
   * A streamed import: its staged blocks from `from` on, read from their file a message at a
   * time with at most STAGE_WINDOW_BYTES unacknowledged, then its record (from `recordFrom`).
   * Counted as a publish in flight until every message is sent, so that after a failure the
   * stream is read again only once it has stopped.
   */
  private async sendStaged(p: Pending, staged: StagedSource, previous: number, from: number, recordFrom: number): Promise<void> {
    this.inFlight++;
    this.streaming = true;
    const room = this.o.maxPayload - HEADER_MARGIN;
    const unacknowledged: Promise<void>[] = [];
    const stopped = (): boolean => this.broken || this.closed || this.fence !== null;
    const recordCrc = crc32(p.record);
    let file = null;
    try {
      file = await open(staged.file, 'r');
      const total = (await file.stat()).size;
      for (let at = Math.min(from, total); at < total; at += room) {
        while (unacknowledged.length * room >= STAGE_WINDOW_BYTES) await unacknowledged.shift();
        if (stopped()) return;
        const bytes = new Uint8Array(Math.min(room, total - at));
        const { bytesRead } = await file.read(bytes, 0, bytes.length, at);
        if (bytesRead !== bytes.length) throw new Error(`the staged blocks of operation ${p.opId} (${staged.file}) end at byte ${at + bytesRead}, not ${total}`);
        if (stopped()) return;
        unacknowledged.push(this.publish(p, bytes, null, previous, recordCrc, { stage: staged.stage, at, total }));
      }
      if (!stopped()) this.sendRecord(p, previous, recordFrom);
    } catch (err) {
      this.broken = true;
      this.o.onRetry?.(err as Error);
    } finally {
      await file?.close();
      this.streaming = false;
      this.inFlight--;
      this.afterSettle();
    }
  }

  /**
   * One message: the entry's last (or only) piece, once JetStream holds it, makes the entry
   * stored (a piece of its staged blocks never does: the record follows). Resolves once settled.
   */
  private publish(p: Pending, bytes: Uint8Array, piece: Piece | null, previous: number, recordCrc: number, stage: StagePiece | null = null): Promise<void> {
    const expected = this.lastSeq++;
    const last = stage === null && (piece === null || piece.at + bytes.length === piece.total);
    const msgID = stage ? stageMessageId(p.opId, stage.at, recordCrc) : entryMessageId(p.opId, piece, recordCrc);
    this.inFlight++;
    return this.o.js.publish(SUBJECT, bytes, { msgID, expect: { lastSequence: expected }, headers: entryHeaders(previous, this.o.selfUrl, piece, stage), timeout: this.o.publishTimeoutMs }).then(
      () => {
        this.inFlight--;
        if (last) {
          p.stored = true;
          this.confirmStored();
        }
        this.afterSettle();
      },
      (err: Error) => {
        this.inFlight--;
        this.failed(err);
      },
    );
  }

  /** A publish (or what it needed) failed: the stream is read again once nothing is in flight. */
  private failed(err: Error): void {
    this.broken = true;
    this.o.onRetry?.(err);
    this.afterSettle();
  }

  /** Acknowledges, in order, the entries at the head of the queue that the stream holds. */
  private confirmStored(): void {
    while (this.queue.length > 0 && this.queue[0]!.stored) {
      const p = this.queue.shift()!;
      this.sending--;
      this.confirmedOpId = p.opId;
      p.settle?.resolve();
    }
    if (this.queue.length === 0) for (const wake of this.drainWaiters.splice(0)) wake();
  }

  /** After a failure, the stream is read again once every publish in flight has settled, a moment later (not in a tight loop). */
  private afterSettle(): void {
    if (this.broken && this.inFlight === 0) setTimeout(() => void this.resync(), RETRY_MS);
    else this.pump();
  }

  /** Reads the stream's newest message until it can be read, and takes up from it. */
  private async resync(): Promise<void> {
    if (this.resyncing) return;
    this.resyncing = true;
    try {
      while (!this.closed) {
        try {
          this.adopt(await streamHead(this.o.jsm, this.o.stream));
          break;
        } catch (err) {
          this.o.onRetry?.(err as Error);
          await new Promise((r) => setTimeout(r, RETRY_MS));
        }
      }
    } finally {
      this.resyncing = false;
      this.broken = false;
    }
    this.pump();
  }

  /** Takes up after the stream's newest message if it is this server's, or fences this server. */
  private adopt(head: { seq: number; last: StreamMessage | null }): void {
    const last = head.last;
    if (last === null) {
      if (this.confirmedOpId > 0) return this.fenceWith(`it is fenced: the stream ${this.o.stream} no longer holds operation ${this.confirmedOpId}, which it acknowledged (it was purged or recreated)`);
    } else if (!this.isOwn(last)) {
      const what = last.kind === 'promotion' ? `it is fenced: a replica was promoted after operation ${last.after}${last.primary ? ` (now the primary: ${last.primary})` : ''}` : `it is fenced: operation ${last.opId} in the stream is not this server's${last.primary ? ` (written by ${last.primary})` : ''}`;
      return this.fenceWith(`${what}; restart this server with SERVICE_ROLE=replica on an empty data dir to follow the new primary`);
    }
    const through = last === null ? 0 : positionOf(last);
    // This server stopped part way through an entry's pieces (or its staged blocks): it goes on after the last the stream holds.
    this.partial = null;
    if (last !== null && last.kind === 'entry' && isPartial(last)) {
      const place = last.stage ?? last.piece!;
      this.partial = { opId: last.opId, at: place.at + last.record.length, stage: last.stage !== null };
    }
    for (const p of this.queue) if (p.opId <= through) p.stored = true;
    this.confirmStored();
    this.confirmedOpId = Math.max(this.confirmedOpId, through);
    this.lastSeq = head.seq;
    this.lastOpId = through;
    this.sending = 0;
  }

  private isOwn(m: StreamMessage): boolean {
    if (m.kind === 'promotion') return m.id === this.ownMarker;
    const held = this.o.heldRecord(m.opId);
    if (held === null) return false;
    if (m.stage) {
      const staged = this.o.stagedOf?.(m.opId, held);
      return staged?.stage === m.stage.stage && sameBytes(readAt(staged.file, m.stage.at, m.record.length), m.record);
    }
    if (m.piece === null) return sameBytes(held, m.record);
    return held.length === m.piece.total && sameBytes(held.subarray(m.piece.at, m.piece.at + m.record.length), m.record);
  }

  private fenceWith(reason: string): void {
    this.fence = reason;
    const error = this.stoppedError();
    for (const p of this.queue) p.settle?.reject(error);
    this.queue = [];
    this.sending = 0;
    for (const wake of this.drainWaiters.splice(0)) wake();
    this.o.onFenced(reason);
  }
}
