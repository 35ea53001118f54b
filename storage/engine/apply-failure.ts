import type { DbEvent } from '../events/types.js';

const subjectOf = (e: DbEvent): string => ('collection' in e ? e.collection : 'name' in e ? e.name : '(aliases)');

/**
 * A logged entry whose apply threw. Validation is meant to make that impossible; when it still
 * happens the engine stops taking writes (the views may hold part of the entry) and start-up
 * refuses the log until `npm run replay -- repair --skip OP` sets the entry aside.
 */
export class ApplyFailedError extends Error {
  readonly kind: DbEvent['type'];
  readonly collection: string;

  constructor(readonly opId: number, event: DbEvent, override readonly cause: Error) {
    super(`log entry ${opId} (${event.type} on collection "${subjectOf(event)}") could not be applied: ${cause.message}`);
    this.name = 'ApplyFailedError';
    this.kind = event.type;
    this.collection = subjectOf(event);
  }
}
