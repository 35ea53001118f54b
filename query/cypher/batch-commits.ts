import type { Collection } from '../../storage/collection.js';
import { procedureError } from './procedures/types.js';
import type { GraphTx } from './graph-tx.js';
import type { Work } from './sink.js';

/**
 * Where a query that commits in batches (apoc.periodic.iterate, apoc.periodic.commit) logs each
 * batch: the caller's own write path, so a batch is one log entry as an auto-commit query is.
 */
export interface BatchLog {
  /** Logs the overlay's writes as one entry; answers the collection later batches read (the one a first write made, for a database not made yet). */
  commit(tx: GraphTx): Promise<Collection>;
}

type Outcome = { collection: Collection } | { error: unknown };

/**
 * A query's batch commits. A batch's work asks for its commit and yields: the driver of the
 * query's slices (executeQueryInSlices) runs the commit before the next step, so the query waits
 * on the log without holding the thread. A query run in one go never reaches that driver, and
 * its batch is then refused, unlogged.
 */
export class BatchCommits {
  private request: (() => Promise<void>) | null = null;

  constructor(private readonly log: BatchLog) {}

  /** Logs the overlay's writes as one entry; answers the collection to read from now on. */
  *commit(tx: GraphTx, display: string): Work<Collection> {
    let outcome: Outcome | null = null;
    this.request = async () => {
      try {
        outcome = { collection: await this.log.commit(tx) };
      } catch (error) {
        outcome = { error };
      }
    };
    yield;
    this.request = null;
    const done = outcome as Outcome | null;
    if (done === null) throw procedureError('ProcedureCallFailed', `${display} commits each batch as a write of its own, which it cannot do nested in a query that runs in one go: call it in a query of its own`);
    if ('error' in done) throw done.error;
    return done.collection;
  }

  /** For the driver, between two steps: runs the commit the query waits on; false when there is none. */
  async settle(): Promise<boolean> {
    const request = this.request;
    if (!request) return false;
    this.request = null;
    await request();
    return true;
  }
}
