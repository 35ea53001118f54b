import { fstatSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';
import type { Writable } from 'node:stream';

/** Takes whole lines (one or a batch), or answers false when it cannot take them now. Never blocks, never throws. */
interface LineSink {
  write(line: string): boolean;
}

/**
 * A file or a device (a disk that may fill, /dev/full): each line is written at once; a failed
 * write drops the line. After a line was cut short, the next one starts on a fresh line.
 */
function fileSink(fd: number): LineSink {
  let midLine = false;
  return {
    write(line) {
      const bytes = Buffer.from(midLine ? `\n${line}` : line);
      let written = 0;
      try {
        while (written < bytes.length) written += writeSync(fd, bytes, written);
        midLine = false;
        return true;
      } catch {
        midLine ||= written > 0;
        return false;
      }
    },
  };
}

/**
 * A pipe, socket or terminal, written asynchronously. Once more than `maxBufferedBytes` wait
 * (nobody reads the other end), lines are dropped until the buffer has drained completely:
 * noticed on 'drain', or at the next line when the buffer is smaller than the stream's highWaterMark.
 */
function streamSink(stream: Writable, maxBufferedBytes: number, onDrained: () => void): LineSink {
  let blocked = false;
  let broken = false;
  stream.on('error', () => {
    broken = true;
  });
  stream.on('drain', () => {
    if (!blocked) return;
    blocked = false;
    onDrained();
  });
  return {
    write(line) {
      if (broken || stream.destroyed) return false;
      if (blocked && stream.writableLength > 0) return false;
      blocked = false;
      if (stream.writableLength + line.length > maxBufferedBytes) {
        blocked = true;
        return false;
      }
      stream.write(line);
      return true;
    },
  };
}

/** How much log output may wait in memory for a slow or stuck stdout. */
export const MAX_BUFFERED_LOG_BYTES = 1 << 20;

/**
 * Stdout takes lines in batches: one write every few milliseconds, or once this much is waiting.
 * A write to a pipe or file is a system call that costs as much as a small search and, on a pipe,
 * wakes the reader each time; one per request line was the largest part of a search request's time.
 */
export const LOG_BATCH_MS = 10;
const LOG_BATCH_BYTES = 16 << 10;

/** Outputs with lines waiting: written out as the process exits (process.exit after a fatal line included). */
const batching = new Set<LogOutput>();
let exitHooked = false;
function flushAtExit(output: LogOutput): void {
  batching.add(output);
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const o of batching) o.flush();
  });
}

/**
 * Where log lines go (pino writes to it). Logging must never stop the service, so a line that
 * stdout cannot take now is dropped and counted; when stdout takes lines again, the logger is
 * told how many were lost since the last report.
 */
export class LogOutput {
  private droppedLines = 0;
  private unreported = 0;
  private report: (dropped: number) => void = () => {};
  private readonly sink: LineSink;
  private pending = '';
  private pendingLines = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  /** `batchMs`: how long a line may wait to go out with the next ones (0: each line at once). */
  private constructor(sink: (onDrained: () => void) => LineSink, private readonly batchMs: number) {
    this.sink = sink(() => this.reportDrops());
    if (batchMs > 0) flushAtExit(this);
  }

  /**
   * Stdout: a file or device written synchronously, anything else (pipe, socket, terminal) through a
   * bounded buffer; lines go out in batches (LOG_BATCH_MS).
   */
  static stdout(maxBufferedBytes = MAX_BUFFERED_LOG_BYTES, batchMs = LOG_BATCH_MS): LogOutput {
    const stat = fstatSync(1);
    if (stat.isFile() || (stat.isCharacterDevice() && !isatty(1))) return new LogOutput(() => fileSink(1), batchMs);
    return LogOutput.stream(process.stdout, maxBufferedBytes, batchMs);
  }

  static stream(stream: Writable, maxBufferedBytes = MAX_BUFFERED_LOG_BYTES, batchMs = 0): LogOutput {
    return new LogOutput((onDrained) => streamSink(stream, maxBufferedBytes, onDrained), batchMs);
  }

  /** Lines dropped since start-up (lines waiting in a batch are written out first, so that they count). */
  get dropped(): number {
    this.flush();
    return this.droppedLines;
  }

  /** Called with the number of lines lost each time output works again after dropping some. */
  onResumed(report: (dropped: number) => void): void {
    this.report = report;
  }

  write(line: string): void {
    if (this.batchMs <= 0) {
      this.send(line, 1);
      return;
    }
    this.pending += line;
    this.pendingLines++;
    if (this.pending.length >= LOG_BATCH_BYTES) this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(() => this.flush(), this.batchMs);
      this.timer.unref();
    }
  }

  /** Writes the lines waiting in the batch now. */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.pendingLines === 0) return;
    const text = this.pending;
    const lines = this.pendingLines;
    this.pending = '';
    this.pendingLines = 0;
    this.send(text, lines);
  }

  /** One write of `lines` lines; when the sink cannot take it, all of them are dropped and counted. */
  private send(text: string, lines: number): void {
    if (this.sink.write(text)) this.reportDrops();
    else {
      this.droppedLines += lines;
      this.unreported += lines;
    }
  }

  private reportDrops(): void {
    if (this.unreported === 0) return;
    const dropped = this.unreported;
    this.unreported = 0;
    this.report(dropped);
  }
}
