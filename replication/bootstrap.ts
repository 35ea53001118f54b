import { CorruptDataError } from '../storage/errors.js';
import { SnapshotFrameCheck } from '../storage/snapshot/snapshot-frames.js';
import type { SnapshotStore } from '../storage/snapshot/snapshot-store.js';
import type { EventLog } from '../storage/log/event-log.js';

/** The header the primary's bootstrap answer names its snapshot's operation_id in. */
export const BOOTSTRAP_OPERATION_HEADER = 'X-Operation-Id';
export const BOOTSTRAP_PATH = '/replication/bootstrap';
const RETRY_MS = 500;

export interface BootstrapSource {
  primaryUrl: string;
  /** Sent as the api-key header when the primary asks for credentials. */
  apiKey: string | null;
}

/** Whether this data dir holds nothing yet: a replica then starts from the primary's snapshot. */
export function isEmpty(log: EventLog, snapshots: SnapshotStore): boolean {
  return log.lastOperationId === 0 && snapshots.list().length === 0;
}

/**
 * Fetches a fresh snapshot from the primary (GET /replication/bootstrap), retrying until the
 * primary answers, and installs it as this data dir's newest snapshot, with the log's counter
 * at its operation_id, so the engine starts from it and the stream is followed after it.
 * Answers the snapshot's operation_id. A refusal other than "not ready yet" is thrown.
 */
export async function bootstrapFromPrimary(source: BootstrapSource, log: EventLog, snapshots: SnapshotStore, onWait: (reason: string) => void, signal?: AbortSignal): Promise<number> {
  const headers: Record<string, string> = source.apiKey ? { 'api-key': source.apiKey } : {};
  for (;;) {
    if (signal?.aborted) throw new Error('bootstrap cancelled');
    let res: Response;
    try {
      res = await fetch(new URL(BOOTSTRAP_PATH, source.primaryUrl), { headers, signal });
    } catch (err) {
      onWait(`the primary at ${source.primaryUrl} does not answer (${(err as Error).message})`);
      await new Promise((r) => setTimeout(r, RETRY_MS));
      continue;
    }
    if (res.status === 503) {
      onWait(`the primary at ${source.primaryUrl} is not ready: ${await res.text()}`);
      await new Promise((r) => setTimeout(r, RETRY_MS));
      continue;
    }
    if (!res.ok) throw new Error(`the primary at ${source.primaryUrl} refused the bootstrap (${res.status}): ${await res.text()}`);
    const opId = Number(res.headers.get(BOOTSTRAP_OPERATION_HEADER));
    if (!Number.isSafeInteger(opId) || opId < 0) throw new Error(`the primary's bootstrap answer names no operation_id (${BOOTSTRAP_OPERATION_HEADER})`);
    const cutShort = await receive(res, opId, snapshots);
    if (cutShort) {
      onWait(`the primary's snapshot stopped arriving (${cutShort}); asking for it again`);
      await new Promise((r) => setTimeout(r, RETRY_MS));
      continue;
    }
    log.reserveThrough(opId);
    return opId;
  }
}

/**
 * Writes the primary's snapshot to this data dir as it arrives, checking its frames on the way
 * (SnapshotFrameCheck), so that memory holds a piece of it at a time, never the snapshot or its
 * state. Answers why the answer's body stopped short, or null once the snapshot is in place; a
 * snapshot that fails its checks is thrown (start-up would skip it), and in either case no file
 * is left.
 */
async function receive(res: Response, opId: number, snapshots: SnapshotStore): Promise<string | null> {
  if (!res.body) throw new Error('the primary\'s bootstrap answer has no body');
  const check = new SnapshotFrameCheck();
  let cutShort: string | null = null;
  try {
    await snapshots.write(opId, async (out) => {
      const reader = res.body!.getReader();
      try {
        for (let part = await reader.read(); !part.done; part = await reader.read()) {
          check.feed(part.value);
          out.append(part.value);
        }
      } catch (err) {
        if (!(err instanceof CorruptDataError)) cutShort = (err as Error).message;
        // Whatever is still on its way is not wanted: the connection is let go.
        await reader.cancel().catch(() => undefined);
        throw err;
      }
      const head = check.end();
      if (head.opId !== opId) throw new CorruptDataError(`the primary's snapshot is at operation ${head.opId}, while its answer names ${opId}`);
    });
  } catch (err) {
    if (cutShort !== null) return cutShort;
    throw err;
  }
  return null;
}
