import type { Engine } from '../storage/engine/engine.js';
import { BoltError } from './errors.js';
import type { Extra } from './messages/requests.js';

/** How long BEGIN or RUN waits for the state its bookmarks name, unless its tx_timeout is shorter. */
const BOOKMARK_WAIT_MS = 5_000;

/**
 * A bookmark is an operation id. BEGIN or an auto-commit RUN that carries bookmarks proceeds
 * once every operation they name is applied, so a session reads at least the state they name.
 */
export async function awaitBookmarks(engine: Engine, extra: Extra, timeoutMs = BOOKMARK_WAIT_MS): Promise<void> {
  const given = extra.bookmarks;
  if (given === undefined || given === null) return;
  if (!Array.isArray(given)) throw new BoltError('Neo.ClientError.Transaction.InvalidBookmark', 'bookmarks must be a list of strings');
  let newest = 0;
  for (const b of given) {
    if (typeof b !== 'string' || !/^\d{1,15}$/.test(b)) throw new BoltError('Neo.ClientError.Transaction.InvalidBookmark', `bookmark ${JSON.stringify(b)} is not one of this server's (an operation id)`);
    newest = Math.max(newest, Number(b));
  }
  const wait = Math.min(timeoutMs, BOOKMARK_WAIT_MS);
  if (!(await engine.applied.waitFor(newest, wait))) {
    throw new BoltError('Neo.TransientError.Transaction.BookmarkTimeout', `operation ${newest} is not applied after ${wait} ms (applied up to ${engine.lastAppliedOperationId})`);
  }
}
