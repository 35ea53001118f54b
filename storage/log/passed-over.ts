import type { EventLog } from './event-log.js';

/** The first operation_id from `opId` on that was not passed over (an import raised the counter past the rest). */
export function skipPassedOver(passed: ReadonlyMap<number, number>, opId: number): number {
  let at = opId;
  for (let to = passed.get(at); to !== undefined; to = passed.get(at)) at = to + 1;
  return at;
}

/** How many operation_ids from `from` to `to` (inclusive) may hold an entry: those not passed over. */
export function idsInUse(log: EventLog, from: number, to: number): number {
  let count = Math.max(0, to - from + 1);
  for (const [first, last] of log.passedOver()) count -= Math.max(0, Math.min(last, to) - Math.max(first, from) + 1);
  return count;
}
