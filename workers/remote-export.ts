/**
 * The main thread's end of an export running on a Cypher replica (replica-export.ts): its
 * chunks as they come, handed out in order to one reader; each chunk taken is reported back
 * (`taken`), so the replica runs at most a window ahead of the reader. `release` stops it early.
 */
export class RemoteExport {
  private readonly queue: Uint8Array[] = [];
  private ended = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  private released = false;
  /** SHA-256 of the bytes (hex), once ended, when the export was asked for it. */
  sha256: string | null = null;
  /** Bytes come and not yet taken by the reader (tests). */
  buffered = 0;

  constructor(
    readonly pointCount: number,
    readonly edgeCount: number,
    readonly dimension: number,
    /** The operation the export was taken at, and the log's head hash there ('' when not written): its header's. */
    readonly operationId: number,
    readonly logHead: string,
    private readonly taken: (bytes: number) => void,
    private readonly stop: () => void,
  ) {}

  push(bytes: Uint8Array): void {
    this.queue.push(bytes);
    this.buffered += bytes.byteLength;
    this.resume();
  }

  end(sha256: string | null): void {
    this.ended = true;
    this.sha256 = sha256;
    this.resume();
  }

  fail(err: Error): void {
    this.failure ??= err;
    this.resume();
  }

  /** The reader is gone: the replica stops the export (idempotent; nothing to do once it ended). */
  release = (): void => {
    if (this.released) return;
    this.released = true;
    if (!this.ended && !this.failure) this.stop();
    // A reader waiting for the next chunk (its stream destroyed under it) ends rather than waits for good.
    this.resume();
  };

  private resume(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /**
   * The file's chunks in order; throws what stopped the replica's export. Awaits `pause` after
   * each chunk handed on: writing a chunk to the socket is the request thread's share of the
   * work, and while requests come in (the server's pause rests then) they go first, as they do
   * between the slices of an export encoded here; the replica, a window ahead, waits meanwhile.
   */
  async *stream(pause?: () => Promise<void>): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        if (this.released) return;
        const next = this.queue.shift();
        if (next) {
          this.buffered -= next.byteLength;
          this.taken(next.byteLength);
          yield next;
          await pause?.();
        } else if (this.failure) throw this.failure;
        else if (this.ended) return;
        else await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.release();
    }
  }
}
