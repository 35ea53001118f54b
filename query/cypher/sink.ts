import type { Row } from './evaluate.js';

/**
 * A stage's work, as a generator: it yields (nothing) where the query may pause so that the
 * server answers other requests (QueryGuard.paused), and returns its answer when done.
 */
export type Work<T> = Generator<void, T, void>;

/**
 * One stage of a running query: rows are pushed into it one at a time and it pushes its own
 * rows on into the next stage, so a clause never holds its whole input. `push` answers false
 * once the stage wants no more rows (a LIMIT is full); `close` ends the input, and a stage that
 * had to hold rows (ORDER BY, aggregation, an updating clause) sends them on then.
 */
export interface Sink {
  push(row: Row): Work<boolean>;
  close(): Work<void>;
}

/** Runs work to its end without pausing (a query run in one go, or a subquery inside an expression). */
export function drain<T>(work: Work<T>): T {
  for (;;) {
    const r = work.next();
    if (r.done) return r.value;
  }
}

/** A last stage that hands each row to `visit` (false: no more rows wanted). */
export function sinkOf(visit: (row: Row) => boolean): Sink {
  return {
    *push(row: Row): Work<boolean> {
      return visit(row);
    },
    *close(): Work<void> {},
  };
}
