import { fstatSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';
import type { Writable } from 'node:stream';

/** Takes one line, or answers false when it cannot take it now. Never blocks, never throws. */
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
 * Where log lines go (pino writes to it). Logging must never stop the service, so a line that
 * stdout cannot take now is dropped and counted; when stdout takes lines again, the logger is
 * told how many were lost since the last report.
 */
export class LogOutput {
  private droppedLines = 0;
  private unreported = 0;
  private report: (dropped: number) => void = () => {};
  private readonly sink: LineSink;

  private constructor(sink: (onDrained: () => void) => LineSink) {
    this.sink = sink(() => this.reportDrops());
  }

  /** Stdout: a file or device written synchronously, anything else (pipe, socket, terminal) through a bounded buffer. */
  static stdout(maxBufferedBytes = MAX_BUFFERED_LOG_BYTES): LogOutput {
    const stat = fstatSync(1);
    if (stat.isFile() || (stat.isCharacterDevice() && !isatty(1))) return new LogOutput(() => fileSink(1));
    return LogOutput.stream(process.stdout, maxBufferedBytes);
  }

  static stream(stream: Writable, maxBufferedBytes = MAX_BUFFERED_LOG_BYTES): LogOutput {
    return new LogOutput((onDrained) => streamSink(stream, maxBufferedBytes, onDrained));
  }

  /** Lines dropped since start-up. */
  get dropped(): number {
    return this.droppedLines;
  }

  /** Called with the number of lines lost each time output works again after dropping some. */
  onResumed(report: (dropped: number) => void): void {
    this.report = report;
  }

  write(line: string): void {
    if (this.sink.write(line)) this.reportDrops();
    else {
      this.droppedLines++;
      this.unreported++;
    }
  }

  private reportDrops(): void {
    if (this.unreported === 0) return;
    const dropped = this.unreported;
    this.unreported = 0;
    this.report(dropped);
  }
}
