interface Waiter {
  opId: number;
  done: (reached: boolean) => void;
  timer: ReturnType<typeof setTimeout> | null;
}

/**
 * Lets readers wait until an operation is applied: read-your-writes (`min_operation_id`) and
 * the changefeed waiting for the next entry. The engine calls advance() as it applies.
 */
export class AppliedWatch {
  private waiters: Waiter[] = [];

  constructor(private readonly appliedUpTo: () => number) {}

  /** Wakes the waiters whose operation is now applied. */
  advance(opId: number): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.opId <= opId) this.finish(w, true);
      else still.push(w);
    }
    this.waiters = still;
  }

  /**
   * Resolves true once `opId` is applied, false after `timeoutMs` (null: no limit) or when
   * `signal` aborts. Resolves at once when it is applied already.
   */
  waitFor(opId: number, timeoutMs: number | null, signal?: AbortSignal): Promise<boolean> {
    if (opId <= this.appliedUpTo()) return Promise.resolve(true);
    if (timeoutMs === 0 || signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const w: Waiter = { opId, done: resolve, timer: null };
      const giveUp = () => {
        this.waiters = this.waiters.filter((x) => x !== w);
        this.finish(w, false);
      };
      if (timeoutMs !== null) w.timer = setTimeout(giveUp, timeoutMs);
      signal?.addEventListener('abort', giveUp, { once: true });
      this.waiters.push(w);
    });
  }

  /** Wakes every waiter as not reached (the engine is closing). */
  cancelAll(): void {
    for (const w of this.waiters) this.finish(w, false);
    this.waiters = [];
  }

  private finish(w: Waiter, reached: boolean): void {
    if (w.timer) clearTimeout(w.timer);
    w.timer = null;
    w.done(reached);
  }
}
