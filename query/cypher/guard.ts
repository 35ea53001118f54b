import { runtimeError } from './errors.js';

/** The error of a query stopped at its deadline (also met by a query still waiting for a Cypher replica then). */
export const queryTimeout = (timeoutMs: number) => runtimeError('TransientError', 'QueryTimeout', `the query ran for more than ${timeoutMs / 1000} s and was stopped; narrow its patterns or add a LIMIT`);

/** How long one query may run. */
export const QUERY_TIMEOUT_MS = 30_000;

/** The memory one query may build, by default: 1/16 of a 4 GB heap, leaving room for the estimate's undercount. */
export const QUERY_MEMORY_BYTES = 256 * 2 ** 20;

/** Units of work between two readings of the clock. */
const STEPS_PER_CHECK = 1024;

export interface GuardOptions {
  /** The query's deadline, from its start. */
  timeoutMs?: number;
  /** The memory budget, in estimated bytes (see sizes.ts). */
  memoryBytes?: number;
  /** Milliseconds on any monotonic scale; tests pass a counter instead of the wall clock. */
  clock?: () => number;
  /**
   * Run in slices of this many milliseconds: past one, `paused` is set and the query's stages
   * yield, so the server can answer other requests before it resumes. Absent: one go.
   */
  sliceMs?: number;
}

const human = (bytes: number) => (bytes >= 2 ** 20 || !Number.isFinite(bytes) ? `${+(bytes / 2 ** 20).toFixed(1)} MB` : `${+(bytes / 2 ** 10).toFixed(1)} KB`);

/**
 * The limits one query runs under: a deadline, read every STEPS_PER_CHECK units of work (a row,
 * a list element, a node looked at), and a memory budget that every list, string and held row
 * is charged against before it is built. `building` names what is being computed, for the
 * message when the budget runs out.
 */
export class QueryGuard {
  /** Estimated bytes the query holds now. */
  used = 0;
  /** The variable or column being computed, named when the budget runs out. */
  building = '';
  private steps = 0;
  private nextCheck = STEPS_PER_CHECK;
  private readonly clock: () => number;
  private readonly deadline: number;
  private sliceEnd = Infinity;
  /** Set once the current slice is used up: stages yield at their next row. */
  paused = false;
  readonly timeoutMs: number;
  readonly memoryBytes: number;
  readonly sliceMs: number | null;

  constructor(options: GuardOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? QUERY_TIMEOUT_MS;
    this.memoryBytes = options.memoryBytes ?? QUERY_MEMORY_BYTES;
    this.clock = options.clock ?? (() => performance.now());
    this.deadline = this.clock() + this.timeoutMs;
    this.sliceMs = options.sliceMs ?? null;
    this.resume();
  }

  /** Starts a new slice. */
  resume(): void {
    this.paused = false;
    if (this.sliceMs !== null) this.sliceEnd = this.clock() + this.sliceMs;
  }

  /** Counts `units` of work; past the deadline the query stops with an error. */
  step(units = 1): void {
    this.steps += units;
    if (this.steps < this.nextCheck) return;
    this.nextCheck = this.steps + STEPS_PER_CHECK;
    const now = this.clock();
    if (now > this.sliceEnd) this.paused = true;
    if (now > this.deadline) {
      throw queryTimeout(this.timeoutMs);
    }
  }

  /** Reserves `bytes` for `what` before it is built; over the budget the query stops with an error. */
  charge(bytes: number, what: string): void {
    const next = this.used + bytes;
    if (!(next <= this.memoryBytes)) {
      const target = this.building ? ` for \`${this.building}\`` : '';
      throw runtimeError(
        'TransientError',
        'MemoryLimitExceeded',
        `the query needs more than its memory budget of ${human(this.memoryBytes)} (SERVICE_QUERY_MEMORY_MB): ${what}${target} would take about ${human(bytes)} more on top of ${human(this.used)}; aggregate, filter or add a LIMIT earlier`,
      );
    }
    this.used = next;
  }

  /** Whether `bytes` more would leave half the budget free: what an operator may hold by choice, not need. */
  canHold(bytes: number): boolean {
    return this.used + bytes <= this.memoryBytes / 2;
  }

  release(bytes: number): void {
    this.used -= bytes;
  }
}
