import type { Middleware } from 'koa';
import { DbError } from '../storage/errors.js';
import type { Engine } from '../storage/engine/engine.js';
import { ApplyFailedError } from '../storage/engine/apply-failure.js';

/** What replication adds to readiness: a problem (fenced, no longer following) and its lag. */
export interface ReplicationReadiness {
  problem(): string | null;
  status(): object;
}

/** Ready once the log has been replayed, and as long as the log takes writes (and replication, when on, is sound). */
export class Readiness {
  private replayed = false;

  constructor(private readonly engine: Engine, private readonly replication: ReplicationReadiness | null = null) {}

  /** Replication's status for /readyz (role, lag), or null when it is off. */
  replicationStatus(): object | null {
    return this.replication?.status() ?? null;
  }

  markReplayed(): void {
    this.replayed = true;
  }

  /** Why the service is not ready, or null when it is. */
  problem(): string | null {
    if (!this.replayed) return 'starting: the log is being replayed';
    const replication = this.replication?.problem();
    if (replication) return replication;
    const failure = this.engine.failed;
    if (!failure) return null;
    if (failure instanceof ApplyFailedError) return `writes are stopped: ${failure.message}`;
    return `writes are stopped after a log failure: ${failure.message}`;
  }

  /** Holds collection routes back with a 503 until the views are rebuilt. */
  gate(): Middleware {
    return async (_ctx, next) => {
      if (!this.replayed) throw new DbError(503, 'the service is starting: the log is being replayed');
      await next();
    };
  }
}
