import cliProgress from 'cli-progress';

/** Progress of one long step, on stderr. */
export interface Progress {
  tick(n?: number): void;
  update(done: number): void;
  /** Runs `print` (which writes whole lines, to stdout or stderr) without tearing a bar being drawn. */
  aside(print: () => void): void;
  end(): void;
}

export interface ProgressOptions {
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Milliseconds; injected by tests. */
  now?: () => number;
  /** At most this long between plain lines while work goes on (default 5 s). */
  everyMs?: number;
}

const count = (n: number): string => n.toLocaleString('en');

/**
 * On a terminal a redrawn bar; otherwise plain lines ("replay verify: 40% (4,000/10,000 entries)")
 * at each tenth of the work or every few seconds, whichever comes first, so a log file stays short.
 */
export function startProgress(label: string, total: number, unit: string, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  return stream.isTTY ? new BarProgress(label, total, unit, stream) : new LineProgress(label, total, unit, stream, options.now ?? (() => performance.now()), options.everyMs ?? 5000);
}

class LineProgress implements Progress {
  private done = 0;
  private shownDone = -1;
  private shownTenth = -1;
  private shownAt: number;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly unit: string,
    private readonly stream: NodeJS.WritableStream,
    private readonly now: () => number,
    private readonly everyMs: number,
  ) {
    this.shownAt = now();
    this.show();
  }

  tick(n = 1): void {
    this.update(this.done + n);
  }

  update(done: number): void {
    this.done = done;
    if (this.tenth() > this.shownTenth || (done !== this.shownDone && this.now() - this.shownAt >= this.everyMs)) this.show();
  }

  aside(print: () => void): void {
    print();
  }

  end(): void {
    if (this.done !== this.shownDone) this.show();
  }

  private tenth(): number {
    return this.total > 0 ? Math.floor((Math.min(this.done, this.total) * 10) / this.total) : 10;
  }

  private show(): void {
    const percent = this.total > 0 ? Math.floor((Math.min(this.done, this.total) * 100) / this.total) : 100;
    this.stream.write(`${this.label}: ${percent}% (${count(this.done)}/${count(this.total)} ${this.unit})\n`);
    this.shownDone = this.done;
    this.shownTenth = this.tenth();
    this.shownAt = this.now();
  }
}

class BarProgress implements Progress {
  private readonly bar: cliProgress.SingleBar;
  private done = 0;

  constructor(label: string, total: number, unit: string, private readonly stream: NodeJS.WritableStream) {
    this.bar = new cliProgress.SingleBar(
      {
        stream,
        format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {duration_formatted} elapsed, eta {eta_formatted}`,
        hideCursor: true,
        // Redraw even when nothing changed, so a bar cleared by aside() comes back at once.
        forceRedraw: true,
        formatValue: (v, _o, type) => (type === 'value' || type === 'total' ? count(v) : String(v)),
      },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(total, 0);
  }

  tick(n = 1): void {
    this.update(this.done + n);
  }

  update(done: number): void {
    this.done = done;
    this.bar.update(done);
  }

  aside(print: () => void): void {
    this.stream.write('\r\x1b[2K');
    print();
    // cli-progress returns the cursor to where it was saved at start when it stops: save it again
    // where the bar is drawn now, below the printed lines (ESC 7 saves the cursor position).
    this.stream.write('\x1b7');
    this.bar.render();
  }

  end(): void {
    this.bar.stop();
  }
}
