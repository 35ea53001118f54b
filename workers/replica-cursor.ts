import { queryTimeout } from '../query/cypher/guard.js';
import type { Resolved } from '../query/cypher/resolved-values.js';
import type { ResultStream } from '../query/cypher/run-query.js';
import type { RowsAnswer } from './replica-messages.js';

/** How a cursor reaches the replica that holds it (CypherReplicas). */
export interface CursorLink {
  pull(n: number): Promise<RowsAnswer>;
  /** Lets the replica's cursor go (an unanswered pull then answers no rows). */
  close(): void;
}

/**
 * The request thread's side of a read kept open on a Cypher replica between two pulls (Bolt's
 * auto-commit reads): its rows come as Resolved, a batch per take. It lives at most the query's
 * deadline from its start, as the query would on the request thread: a cursor a client leaves
 * unpulled is let go then, and a take after it fails with the query's timeout. A replica that
 * stops fails it (`fail`): the take waiting on it, or the next one, throws.
 */
export class ReplicaCursor implements ResultStream {
  private pending: Resolved[][];
  private ended: boolean;
  private pulling = false;
  private expired = false;
  private failure: Error | null = null;
  private readonly deadline: NodeJS.Timeout | undefined;

  constructor(
    readonly columns: string[],
    first: RowsAnswer,
    private readonly link: CursorLink,
    private readonly timeoutMs: number,
    /** When the query was sent (performance.now()): its deadline counts from then. */
    sentAt: number,
  ) {
    this.pending = first.rows;
    this.ended = first.exhausted;
    if (!this.ended) {
      this.deadline = setTimeout(() => this.expire(), Math.max(0, sentAt + timeoutMs - performance.now()));
      this.deadline.unref();
    }
  }

  /** False while a failure is still to be told (the next take throws it), so a client never takes a cut result for a whole one. */
  get exhausted(): boolean {
    return this.ended && this.pending.length === 0 && this.failure === null;
  }

  async take(n: number): Promise<Resolved[][]> {
    if (this.failure) throw this.failure;
    const head = this.pending;
    this.pending = [];
    if (n >= 0 && head.length >= n) {
      this.pending = head.slice(n);
      return head.slice(0, n);
    }
    if (this.ended) return head;
    this.pulling = true;
    let answer: RowsAnswer;
    try {
      answer = await this.link.pull(n < 0 ? -1 : n - head.length);
    } finally {
      this.pulling = false;
    }
    this.ended = answer.exhausted;
    if (this.ended) clearTimeout(this.deadline);
    else if (this.expired) this.release(queryTimeout(this.timeoutMs));
    return head.concat(answer.rows);
  }

  close(): void {
    this.pending = [];
    if (!this.ended) this.release(null);
  }

  /** The replica holding the cursor stopped: the cursor fails (the pool has failed any pull it was waiting on). */
  fail(err: Error): void {
    clearTimeout(this.deadline);
    this.ended = true;
    this.failure ??= err;
  }

  /** The deadline passed: let the replica's cursor go now, or once the pull under way is answered. */
  private expire(): void {
    this.expired = true;
    if (!this.pulling && !this.ended) this.release(queryTimeout(this.timeoutMs));
  }

  private release(failure: Error | null): void {
    clearTimeout(this.deadline);
    this.ended = true;
    this.failure ??= failure;
    this.link.close();
  }
}
