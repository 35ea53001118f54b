import { encodeEvent } from '../events/codec.js';
import type { DbEvent } from '../events/types.js';
import type { Appended, EventLog, LogEntry, RawEntry } from './event-log.js';
import { decodeEntry, frameRecord } from './record.js';

const DURABLE = Promise.resolve();

/** The log kept in memory (the browser library, and tests): the same records, gone when dropped. */
export class MemoryLog implements EventLog {
  /** Keyed in ascending operation_id order: ids only go up, and truncation only removes. */
  private readonly records = new Map<number, Uint8Array>();
  private readonly passed = new Map<number, number>();
  private last = 0;
  readonly synchronous = true;

  get lastOperationId(): number {
    return this.last;
  }

  get firstOperationId(): number {
    for (const opId of this.records.keys()) return opId;
    return this.last + 1;
  }

  async truncateThrough(opId: number): Promise<void> {
    for (const key of [...this.records.keys()]) if (key <= opId) this.records.delete(key);
  }

  reserveThrough(opId: number): void {
    this.last = Math.max(this.last, opId);
  }

  passedOver(): ReadonlyMap<number, number> {
    return this.passed;
  }

  append(event: DbEvent, passOverThrough = 0, body?: Uint8Array): Appended {
    if (passOverThrough > this.last) {
      this.passed.set(this.last + 1, passOverThrough);
      this.last = passOverThrough;
    }
    const opId = ++this.last;
    const record = frameRecord(body ?? encodeEvent(event));
    this.records.set(opId, record);
    return { opId, durable: DURABLE, bytes: record.length };
  }

  *readRaw(from = 1, to = Number.MAX_SAFE_INTEGER): Iterable<RawEntry> {
    for (const [opId, record] of this.records) {
      if (opId > to) return;
      if (opId >= from) yield { opId, record };
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
