import type { Row } from './evaluate.js';

/**
 * One stage of a running query: rows are pushed into it one at a time and it pushes its own
 * rows on into the next stage, so a clause never holds its whole input. `push` answers false
 * once the stage wants no more rows (a LIMIT is full); `close` ends the input, and a stage that
 * had to hold rows (ORDER BY, aggregation, an updating clause) sends them on then.
 */
export interface Sink {
  push(row: Row): boolean;
  close(): void;
}
