import { mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import { decodeEvent, encodeEvent } from '../events/codec.js';
import type { DbEvent } from '../events/types.js';
import { DbError } from '../errors.js';
import { DataDirLock } from './data-dir-lock.js';
import type { Appended, EventLog, LogEntry } from './event-log.js';
import { frameRecord, unframeRecord } from './record.js';

export interface LmdbLogOptions {
  /** LMDB map size in bytes: the most the log file may grow to. */
  mapSize?: number;
}

/**
 * The durable log in one LMDB environment. Keys are operation_ids (ordered-binary numbers,
 * so they do not run out like uint32 keys); values are checksummed records.
 * overlappingSync is off, so a put resolves only after its commit has been fsynced:
 * the resolution is the durability acknowledgement. Concurrent appends share commits
 * through lmdb-js's write batching.
 */
export class LmdbLog implements EventLog {
  private last: number;
  private failure: Error | null = null;

  private constructor(
    private readonly env: RootDatabase,
    private readonly entries: Database<Uint8Array, number>,
    private readonly lock: DataDirLock,
  ) {
    let last = 0;
    for (const key of entries.getKeys({ reverse: true, limit: 1 })) last = key;
    this.last = last;
  }

  static open(dir: string, options: LmdbLogOptions = {}): LmdbLog {
    mkdirSync(dir, { recursive: true });
    const lock = DataDirLock.acquire(dir);
    try {
      const env = open({ path: dir, overlappingSync: false, mapSize: options.mapSize ?? 64 * 2 ** 30 });
      const entries = env.openDB<Uint8Array, number>({ name: 'log', encoding: 'binary' });
      return new LmdbLog(env, entries, lock);
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  get lastOperationId(): number {
    return this.last;
  }

  /** The first commit error, after which no write is taken (the disk can no longer be trusted). */
  get failed(): Error | null {
    return this.failure;
  }

  append(event: DbEvent): Appended {
    if (this.failure) throw new DbError(503, `the log stopped taking writes after a commit error: ${this.failure.message}`);
    const record = frameRecord(encodeEvent(event));
    const opId = ++this.last;
    const durable = this.entries.put(opId, record).then(
      (ok) => {
        if (!ok) throw new Error(`log entry ${opId} was not written`);
      },
      (err: Error) => {
        this.failure ??= err;
        throw new DbError(503, `log entry ${opId} could not be made durable: ${err.message}`);
      },
    );
    return { opId, durable };
  }

  *read(from = 1, to = Number.MAX_SAFE_INTEGER): Iterable<LogEntry> {
    for (const { key, value } of this.entries.getRange({ start: from, end: to + 1 })) {
      yield { opId: key, event: decodeEvent(unframeRecord(value, key)) };
    }
  }

  async close(): Promise<void> {
    await this.env.close();
    this.lock.release();
  }
}
