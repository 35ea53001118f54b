import { encodeEvent, decodeEvent } from '../events/codec.js';
import type { DbEvent } from '../events/types.js';
import type { Appended, EventLog, LogEntry } from './event-log.js';
import { frameRecord, unframeRecord } from './record.js';

const DURABLE = Promise.resolve();

/** The log kept in memory (the browser library, and tests): the same records, gone when dropped. */
export class MemoryLog implements EventLog {
  private readonly records = new Map<number, Uint8Array>();
  private last = 0;

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

  append(event: DbEvent): Appended {
    const opId = ++this.last;
    this.records.set(opId, frameRecord(encodeEvent(event)));
    return { opId, durable: DURABLE };
  }

  *read(from = 1, to = Number.MAX_SAFE_INTEGER): Iterable<LogEntry> {
    for (let opId = Math.max(from, 1); opId <= Math.min(to, this.last); opId++) {
      const record = this.records.get(opId);
      if (record) yield { opId, event: decodeEvent(unframeRecord(record, opId)) };
    }
  }

  async close(): Promise<void> {}
}
