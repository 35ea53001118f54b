/** An error a caller can act on. `code` is the HTTP status the service answers with. */
export class DbError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
    this.name = 'DbError';
  }
}

export const badRequest = (message: string): DbError => new DbError(400, message);
export const notFound = (message: string): DbError => new DbError(404, message);
export const conflict = (message: string): DbError => new DbError(409, message);

/** Stored bytes that fail their checksum or do not decode. */
export class CorruptDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CorruptDataError';
  }
}

/** A log entry that fails its checksum or does not decode. */
export class DamagedEntryError extends CorruptDataError {
  constructor(readonly opId: number, detail: string) {
    super(`log entry ${opId} is damaged: ${detail}`);
    this.name = 'DamagedEntryError';
  }
}
