import { Worker } from 'node:worker_threads';
import { badRequest } from '../storage/errors.js';
import type { JsonParseAnswer, JsonParseRequest } from './json-parse-messages.js';

/** Thrown for a body that is not JSON (or holds a `__proto__` key): a 400, as koa-body's parse error is. */
export class JsonSyntaxError extends SyntaxError {
  readonly status = 400;
}

/** Thrown when a parser thread stopped before answering (the request is a 500). */
export class JsonParserStoppedError extends Error {
  override name = 'JsonParserStoppedError';
}

interface Waiting {
  resolve(body: unknown): void;
  reject(err: Error): void;
}

/** One parser thread, started at its first body, and the bodies it has not answered yet. */
class ParserThread {
  readonly waiting = new Map<number, Waiting>();
  private thread: Worker | null = null;

  constructor(
    private readonly onDispatch: () => ((thread: Worker) => void) | null,
    private readonly onStopped: () => void,
  ) {}

  send(request: JsonParseRequest, waiting: Waiting): void {
    const thread = (this.thread ??= this.start());
    this.waiting.set(request.id, waiting);
    this.onDispatch()?.(thread);
    thread.postMessage(request, [request.bytes.buffer as ArrayBuffer]);
  }

  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    this.failAll(new JsonParserStoppedError('the server is closing'));
    await thread?.terminate();
  }

  private start(): Worker {
    const thread = new Worker(new URL('./json-parse-worker.js', import.meta.url));
    thread.unref();
    thread.on('message', (a: JsonParseAnswer) => {
      const w = this.waiting.get(a.id);
      if (!w) return;
      this.waiting.delete(a.id);
      if ('body' in a) w.resolve(a.body);
      else w.reject(a.kind === 'syntax' ? new JsonSyntaxError(a.error) : a.kind === 'refused' ? badRequest(a.error) : new Error(a.error));
    });
    // An answer this thread cannot read (the answers are refused before they could be too deep
    // for it, so none is known) is the oldest body's: a thread answers its bodies in order.
    thread.on('messageerror', (err) => {
      const [oldest] = this.waiting;
      if (!oldest) return;
      this.waiting.delete(oldest[0]);
      oldest[1].reject(new Error(`the parsed body could not be read: ${err.message}`));
    });
    // A crash fires 'error' and then 'exit': the first fails the bodies out and lets the next body start a new thread.
    const stopped = (why: string): void => {
      if (this.thread !== thread) return;
      this.thread = null;
      this.onStopped();
      this.failAll(new JsonParserStoppedError(`the JSON parser thread stopped (${why})`));
    };
    thread.on('error', (err) => stopped(err.message));
    thread.on('exit', (code) => stopped(`exit code ${code}`));
    return thread;
  }

  private failAll(err: Error): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of waiting) w.reject(err);
  }
}

/** Parser threads for a machine of `cores`: all but the request thread's core, one at least, four at most (a body parses at hundreds of MB/s on one). */
export function parserThreadsFor(cores: number): number {
  return Math.max(1, Math.min(4, cores - 1));
}

/**
 * Threads that parse large JSON bodies (SERVICE_JSON_OFF_THREAD_BYTES) off the request thread,
 * which would otherwise spend a body's whole parse (200 ms for 1,000 points of 1,536 dimensions)
 * and the collection of its millions of numbers before answering any other request. A body goes
 * to the thread with the fewest bodies waiting; each starts at its first body. Its bytes are
 * transferred, not copied: the caller gives them up.
 */
export class JsonParsers {
  private readonly threads: ParserThread[];
  private nextId = 1;
  /** Bodies parsed off the request thread, and threads that stopped unasked (their bodies answered 500; the next body starts another) (metrics, tests). */
  parsed = 0;
  stopped = 0;
  /** Tests: called with a thread right before a body is sent to it. */
  onDispatch: ((thread: Worker) => void) | null = null;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`a JSON parser pool has at least 1 thread, not ${size}`);
    this.threads = Array.from({ length: size }, () => new ParserThread(() => this.onDispatch, () => this.stopped++));
  }

  /** The body in `bytes` (UTF-8 JSON), its vectors packed (packed-vectors.ts). */
  parse(bytes: Uint8Array): Promise<unknown> {
    // Only a buffer of its own can be given up (a view of a larger one is copied out first).
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !(bytes.buffer instanceof SharedArrayBuffer) ? bytes : bytes.slice();
    let thread = this.threads[0]!;
    for (const t of this.threads) if (t.waiting.size < thread.waiting.size) thread = t;
    return new Promise((resolve, reject) => {
      thread.send(
        { id: this.nextId++, bytes: own },
        {
          resolve: (body) => {
            this.parsed++;
            resolve(body);
          },
          reject,
        },
      );
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.close()));
  }
}
