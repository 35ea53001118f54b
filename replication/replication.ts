import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { AckGate } from '../storage/engine/ack-gate.js';
import type { Engine } from '../storage/engine/engine.js';
import { DbError } from '../storage/errors.js';
import type { EventLog } from '../storage/log/event-log.js';
import { stagedImportOf } from '../storage/log/record.js';
import { writeFileDurably } from '../storage/snapshot/durable-file.js';
import type { SnapshotStore } from '../storage/snapshot/snapshot-store.js';
import { bootstrapFromPrimary, isEmpty } from './bootstrap.js';
import { connectNats } from './connection.js';
import { Follower } from './follower.js';
import { Publisher, type ReplicationMode } from './publisher.js';
import { ensureStream, positionOf, streamHead } from './stream.js';

export type Role = 'primary' | 'replica';

export interface ReplicationSettings {
  natsServers: string[];
  stream: string;
  /** NATS nodes holding each message. */
  streamReplicas: number;
  mode: ReplicationMode;
  role: Role;
  /** Where a replica bootstraps from, and the primary its 421 names until a message names one. */
  primaryUrl: string | null;
  primaryApiKey: string | null;
  /** How long a write waits for JetStream under sync before it is answered 503. */
  ackTimeoutMs: number;
  dataDir: string;
}

/** Entries durable on the primary and not yet in the stream, at most, before writes are refused. */
const MAX_BACKLOG = 100_000;
/** How long one publish waits for its acknowledgement before the stream is read again. */
const PUBLISH_TIMEOUT_MS = 2_000;
/** How long a promotion waits for the replica to apply the stream's newest message. */
const PROMOTE_CATCH_UP_MS = 30_000;
/** Where a promoted server keeps the id of its promotion marker, to know it again after a restart. */
const MARKER_FILE = 'replication-marker';

/** What GET /replication and /readyz report. */
export interface ReplicationStatus {
  role: Role;
  mode: ReplicationMode;
  primary: string | null;
  fenced: string | null;
  stopped: string | null;
  applied_operation_id: number;
  stream_operation_id: number | null;
  lag_entries: number;
  lag_ms: number;
  /** On the primary: the newest operation_id the stream holds from it, and the entries not yet published. */
  published_operation_id: number | null;
  unpublished_entries: number;
}

/**
 * Read replicas over NATS JetStream. On the primary it is the engine's acknowledgement gate (a
 * Publisher); on a replica it refuses writes (421 naming the primary) and follows the stream (a
 * Follower); POST /replication/promote turns a replica into the primary.
 */
export class Replication implements AckGate {
  private role: Role;
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private jsm: JetStreamManager | null = null;
  private publisher: Publisher | null = null;
  private follower: Follower | null = null;
  private engine: Engine | null = null;
  private primaryUrl: string | null;
  private selfUrl: string | null = null;
  private fence: string | null = null;
  private promoting = false;

  constructor(private readonly settings: ReplicationSettings, private readonly logger: Logger) {
    this.role = settings.role;
    this.primaryUrl = settings.primaryUrl;
  }

  get isReplica(): boolean {
    return this.role === 'replica';
  }

  get ackTimeoutMs(): number | null {
    return this.settings.mode === 'sync' ? this.settings.ackTimeoutMs : null;
  }

  refusal(): DbError | null {
    if (this.role === 'replica') return new DbError(421, `this server is a read replica and takes no writes: send them to the primary${this.primaryUrl ? ` at ${this.primaryUrl}` : ''}`);
    if (this.fence) return new DbError(503, `this server takes no writes: ${this.fence}`);
    if (!this.publisher) return new DbError(503, 'replication is starting: the stream is being read');
    if (this.publisher.backlog >= MAX_BACKLOG) {
      return new DbError(503, `JetStream is ${this.publisher.backlog} entries behind this primary (are a majority of the NATS nodes up?); writes resume once it catches up`);
    }
    return null;
  }

  admit(opId: number, record: Uint8Array, durable: Promise<void>): Promise<void> {
    if (!this.publisher) return Promise.reject(new DbError(503, 'replication is not publishing'));
    return this.publisher.admit(opId, record, durable);
  }

  timeoutError(opId: number): DbError {
    return new DbError(
      503,
      `operation ${opId} is durable on this primary but JetStream did not confirm it within ${this.settings.ackTimeoutMs} ms (are a majority of the NATS nodes up?), so it is not acknowledged; it is applied once JetStream takes it, unless this server is fenced first`,
    );
  }

  truncatableThrough(): number {
    if (this.role === 'replica') return Number.MAX_SAFE_INTEGER;
    return this.publisher ? this.publisher.publishedThrough - 1 : 0;
  }

  /** Connects to NATS and makes sure the stream exists; `selfUrl` is what this server's messages name as the primary. */
  async connect(selfUrl: string): Promise<void> {
    this.selfUrl = selfUrl;
    this.nc = await connectNats(this.settings.natsServers, `vectorgraphdb ${this.role} ${selfUrl}`);
    this.js = jetstream(this.nc, { timeout: PUBLISH_TIMEOUT_MS });
    this.jsm = await jetstreamManager(this.nc, { timeout: PUBLISH_TIMEOUT_MS });
    // JetStream answers only once its cluster has elected a leader: start-up waits for that.
    for (;;) {
      try {
        await ensureStream(this.jsm, { name: this.settings.stream, replicas: this.settings.streamReplicas });
        return;
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'waiting for JetStream to create or find the stream');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /**
   * The primary, before it replays its log: reads the stream's newest message, fences this
   * server when another wrote it, and otherwise publishes the log's entries after it (written
   * here before a crash, never acknowledged) before any new write is taken.
   */
  async preparePrimary(log: EventLog): Promise<void> {
    const publisher = this.newPublisher(log, this.ownMarker());
    const through = await publisher.start();
    if (publisher.fenced) return;
    let republished = 0;
    for (const { opId, record } of log.readRaw(through + 1)) {
      publisher.admit(opId, record, Promise.resolve()).catch(() => undefined);
      republished++;
    }
    await publisher.drained();
    if (republished > 0) this.logger.info({ from: through + 1, entries: republished }, 'published the log entries the stream did not hold yet');
    this.publisher = publisher;
  }

  /** A replica on an empty data dir, before it replays: installs a fresh snapshot from the primary. */
  async prepareReplica(log: EventLog, snapshots: SnapshotStore): Promise<void> {
    if (!isEmpty(log, snapshots)) return;
    if (!this.primaryUrl) throw new Error('SERVICE_PRIMARY_URL is needed to bootstrap a replica on an empty data dir');
    const opId = await bootstrapFromPrimary({ primaryUrl: this.primaryUrl, apiKey: this.settings.primaryApiKey }, log, snapshots, (reason) => this.logger.warn(`bootstrap waits: ${reason}`));
    this.logger.info({ opId, primary: this.primaryUrl }, 'bootstrapped from the primary\'s snapshot');
  }

  /** Once the engine has replayed: a replica starts following the stream. */
  async started(engine: Engine): Promise<void> {
    this.engine = engine;
    if (this.role === 'replica') await this.follow();
  }

  private async follow(): Promise<void> {
    const follower = new Follower({
      js: this.js!,
      jsm: this.jsm!,
      stream: this.settings.stream,
      engine: this.engine!,
      onPrimary: (url) => (this.primaryUrl = url),
      onStopped: (reason) => this.logger.error({ reason }, `replication stopped: ${reason}`),
      onRetry: (reason) => this.logger.warn({ reason }, 'following the stream again'),
    });
    this.follower = follower;
    await follower.start();
  }

  private newPublisher(log: EventLog, ownMarker: string | null): Publisher {
    return new Publisher({
      js: this.js!,
      jsm: this.jsm!,
      stream: this.settings.stream,
      mode: this.settings.mode,
      selfUrl: this.selfUrl,
      publishTimeoutMs: PUBLISH_TIMEOUT_MS,
      maxPayload: this.nc!.info?.max_payload ?? 1024 * 1024,
      heldRecord: (opId) => {
        for (const { record } of log.readRaw(opId, opId)) return record;
        return null;
      },
      stagedOf: (opId, record) => {
        const staged = stagedImportOf(opId, record)?.staged;
        return staged && log.stageFile ? { stage: staged.stage, file: log.stageFile(staged.stage) } : null;
      },
      ownMarker,
      onClaimed: (id) => writeFileDurably(this.settings.dataDir, MARKER_FILE, [Buffer.from(id)]),
      onFenced: (reason) => {
        this.fence = reason;
        this.logger.error({ reason }, `writes stopped: ${reason}`);
      },
      onRetry: (err) => this.logger.warn({ err: err.message }, 'a publish to JetStream failed; reading the stream again'),
    });
  }

  private ownMarker(): string | null {
    try {
      return readFileSync(join(this.settings.dataDir, MARKER_FILE), 'utf8');
    } catch {
      return null;
    }
  }

  /**
   * Promotes this replica: applies the stream up to its newest message as read now, stops
   * following, and claims the stream with a marker that must follow that message. Every write a
   * primary acknowledged under sync is in the stream, so it is applied here first. Refused (409)
   * when another server published in the meantime; this server then goes on following.
   */
  async promote(): Promise<{ operation_id: number }> {
    if (this.role !== 'replica') throw new DbError(409, 'this server is the primary already');
    if (this.promoting) throw new DbError(409, 'a promotion is under way');
    const follower = this.follower;
    if (!follower || !this.engine) throw new DbError(503, 'this replica is starting');
    if (follower.stoppedReason) throw new DbError(409, `this replica stopped following the stream, so it may miss entries: ${follower.stoppedReason}`);
    this.promoting = true;
    try {
      const head = await streamHead(this.jsm!, this.settings.stream);
      if (!(await follower.catchUp(head.seq, PROMOTE_CATCH_UP_MS))) throw new DbError(503, `promotion refused: this replica did not apply the stream up to message ${head.seq} within ${PROMOTE_CATCH_UP_MS} ms`);
      await follower.stop();
      const through = head.last ? positionOf(head.last) : 0;
      const publisher = this.newPublisher(this.engine.log, null);
      try {
        await publisher.claim(head.seq, through);
      } catch (err) {
        await this.follow();
        throw err;
      }
      this.follower = null;
      this.publisher = publisher;
      this.role = 'primary';
      this.primaryUrl = this.selfUrl;
      this.logger.warn({ through, seq: head.seq }, 'promoted to primary');
      return { operation_id: through };
    } finally {
      this.promoting = false;
    }
  }

  /** Why this server is not fit to serve as it should (fenced, or no longer following), or null. */
  problem(): string | null {
    if (this.fence) return `writes are stopped: ${this.fence}`;
    const stopped = this.follower?.stoppedReason;
    return stopped ? `replication stopped: ${stopped}` : null;
  }

  status(): ReplicationStatus {
    const applied = this.engine?.lastAppliedOperationId ?? 0;
    const lag = this.follower?.lag();
    return {
      role: this.role,
      mode: this.settings.mode,
      primary: this.primaryUrl,
      fenced: this.fence,
      stopped: this.follower?.stoppedReason ?? null,
      applied_operation_id: applied,
      stream_operation_id: lag ? lag.stream : (this.publisher?.publishedThrough ?? null),
      lag_entries: lag?.entries ?? 0,
      lag_ms: lag?.ms ?? 0,
      published_operation_id: this.publisher?.publishedThrough ?? null,
      unpublished_entries: this.publisher?.backlog ?? 0,
    };
  }

  async close(): Promise<void> {
    await this.follower?.stop();
    this.publisher?.close();
    await this.nc?.close();
  }
}
