import { decodeSnapshot } from '../storage/snapshot/snapshot-codec.js';
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
    // Kept as the chunks it came in: one array holds at most 4 GiB, a snapshot may hold more.
    const chunks: Uint8Array[] = [];
    const body = res.body?.getReader();
    for (let part = await body?.read(); part && !part.done; part = await body!.read()) chunks.push(part.value);
    // Checked before it is kept: a snapshot that does not decode would be skipped at start-up.
    decodeSnapshot(chunks);
    await snapshots.write(opId, (out) => chunks.forEach((c) => out.append(c)));
    log.reserveThrough(opId);
    return opId;
  }
}
