import type { EventLog } from '../../storage/log/event-log.js';

/** The log as an engine reads it, calling `onEntry` for every decoded entry read, so a replay can show progress. */
export function countingReads(log: EventLog, onEntry: () => void): EventLog {
  return {
    get lastOperationId() {
      return log.lastOperationId;
    },
    get firstOperationId() {
      return log.firstOperationId;
    },
    synchronous: log.synchronous,
    append: (event, passOverThrough) => log.append(event, passOverThrough),
    *read(from, to) {
      for (const entry of log.read(from, to)) {
        onEntry();
        yield entry;
      }
    },
    readRaw: (from, to) => log.readRaw(from, to),
    keys: (from, to) => log.keys(from, to),
    reserveThrough: (opId) => log.reserveThrough(opId),
    passedOver: () => log.passedOver(),
    skippedOperations: () => log.skippedOperations?.() ?? new Map(),
    truncateThrough: (opId) => log.truncateThrough(opId),
    close: () => log.close(),
  };
}
