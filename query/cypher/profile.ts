import type { Clause } from './ast.js';
import type { EvalContext, Row } from './evaluate.js';
import type { Sink, Work } from './sink.js';

/**
 * What PROFILE counts for the clauses of a query's parts (not those inside subqueries): the rows
 * each clause handed on, and the nodes the matcher examined (GraphTx.scanned) meanwhile.
 */
export class ClauseCounts {
  readonly rows = new Map<Clause, number>();
  /** Nodes examined while a clause's rows were handed on: by the clauses after it. */
  readonly hitsAfter = new Map<Clause, number>();
  /** Nodes examined by a whole part. */
  readonly partHits = new Map<Clause[], number>();

  /** The nodes a clause itself examined: those of the part (or after the clause before) less those after it. */
  hitsOf(part: Clause[], i: number): number {
    const before = i === 0 ? (this.partHits.get(part) ?? 0) : (this.hitsAfter.get(part[i - 1]!) ?? 0);
    return before - (this.hitsAfter.get(part[i]!) ?? 0);
  }
}

/** Sits between a clause and the stage after it, counting the rows the clause hands on. */
export class CountingSink implements Sink {
  constructor(
    private readonly ctx: EvalContext,
    private readonly counts: ClauseCounts,
    private readonly clause: Clause,
    private readonly next: Sink,
  ) {
    counts.rows.set(clause, counts.rows.get(clause) ?? 0);
  }

  *push(row: Row): Work<boolean> {
    this.counts.rows.set(this.clause, this.counts.rows.get(this.clause)! + 1);
    return yield* this.measured(this.next.push(row));
  }

  *close(): Work<void> {
    yield* this.measured(this.next.close());
  }

  private *measured<T>(work: Work<T>): Work<T> {
    const scanned = this.ctx.tx.scanned;
    try {
      return yield* work;
    } finally {
      this.counts.hitsAfter.set(this.clause, (this.counts.hitsAfter.get(this.clause) ?? 0) + this.ctx.tx.scanned - scanned);
    }
  }
}
