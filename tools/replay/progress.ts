/** A progress bar on stderr for long runs; silent when stderr is not a terminal. */
export class Progress {
  private done = 0;
  private shown = -1;

  constructor(private readonly label: string, private readonly total: number) {}

  tick(n = 1): void {
    this.done += n;
    if (!process.stderr.isTTY || this.total < 1000) return;
    const pct = Math.floor((this.done / this.total) * 100);
    if (pct === this.shown) return;
    this.shown = pct;
    const bar = '#'.repeat(Math.floor(pct / 4)).padEnd(25, '.');
    process.stderr.write(`\r${this.label} [${bar}] ${pct}% (${this.done}/${this.total})`);
  }

  end(): void {
    if (process.stderr.isTTY && this.shown >= 0) process.stderr.write('\n');
  }
}
