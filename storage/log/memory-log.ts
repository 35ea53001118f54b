import { encodeEvent } from '../events/codec.js';
import type { DbEvent } from '../events/types.js';
import type { Appended, EventLog, LogEntry, RawEntry } from './event-log.js';
import { decodeEntry, frameRecord } from './record.js';

const DURABLE = Promise.resolve();

/** The log kept in memory (the browser library, and tests): the same records, gone when dropped. */
export class MemoryLog implements EventLog {
  private readonly records = new Map<number, Uint8Array>();
  private last = 0;
  readonly synchronous = true;

  get lastOperationId(): number {
    return this.last;
  }

  get firstOperationId(): number {
    for (let opId = 1; opId <= this.last; opId++) if (this.records.has(opId)) return opId;
    return this.last + 1;
  }

  async truncateThrough(opId: number): Promise<void> {
    for (const key of [...this.records.keys()]) if (key <= opId) this.records.delete(key);
  }

  reserveThrough(opId: number): void {
    this.last = Math.max(this.last, opId);
  }

  append(event: DbEvent): Appended {
    const opId = ++this.last;
    this.records.set(opId, frameRecord(encodeEvent(event)));
    return { opId, durable: DURABLE };
  }

  *readRaw(from = 1, to = Number.MAX_SAFE_INTEGER): Iterable<RawEntry> {
    for (let opId = Math.max(from, 1); opId <= Math.min(to, this.last); opId++) {
      const record = this.records.get(opId);
      if (record) yield { opId, record };
    }
  }

  *keys(from = 1, to = Number.MAX_SAFE_INTEGER): Iterable<number> {
    for (const { opId } of this.readRaw(from, to)) yield opId;
  }

  *read(from = 1, to = Number.MAX_SAFE_INTEGER): Iterable<LogEntry> {
    for (const { opId, record } of this.readRaw(from, to)) yield { opId, event: decodeEntry(opId, record) };
  }

  async close(): Promise<void> {}
}
