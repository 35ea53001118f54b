import type { Collection } from '../collection.js';
import { badRequest, DbError, notFound } from '../errors.js';
import { LogLossError } from '../log/log-audit.js';
import { Engine } from './engine.js';

/**
 * A collection as it was right after operation `opId`: a second engine over the same log and
 * snapshots rebuilds the state at that operation (the newest snapshot at or before it, then the
 * log), a slice at a time. It never indexes (an export needs no HNSW graph) and writes nothing.
 */
export async function collectionAt(engine: Engine, name: string, opId: number): Promise<Collection> {
  const last = engine.lastAppliedOperationId;
  if (opId > last) throw badRequest(`at=${opId} is past the last applied operation, ${last}`);
  const past = new Engine(engine.log, { snapshots: engine.snapshotStore, schedule: () => undefined });
  const gone = () => new DbError(410, `the state at operation ${opId} can no longer be rebuilt: the log keeps operations from ${engine.log.firstOperationId} on and no snapshot at or before ${opId} is kept (SERVICE_LOG_RETENTION keeps more)`);
  try {
    await past.rebuild(opId);
  } catch (err) {
    throw err instanceof LogLossError ? gone() : err;
  }
  // Entries compacted away count as applied to replay; here they would be missing from the state.
  const base = past.lastSnapshotOperationId;
  if (base < opId && engine.log.firstOperationId > base + 1) throw gone();
  const c = past.collections.get(name);
  if (!c) throw notFound(`collection "${name}" did not exist right after operation ${opId}`);
  return c;
}
