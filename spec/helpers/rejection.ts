import type { DbError } from '../../storage/errors.js';

/** The error a promise rejects with; throws when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<DbError> {
  try {
    await p;
  } catch (err) {
    return err as DbError;
  }
  throw new Error('expected a rejection');
}
