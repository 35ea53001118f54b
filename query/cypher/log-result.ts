import type { Collection } from '../../storage/collection.js';
import type { Engine } from '../../storage/engine/engine.js';
import { checkExistence } from './constraints.js';
import type { GraphTx } from './graph-tx.js';
import type { CypherResult } from './run-query.js';

/**
 * Logs what a write query did as one entry: its graph changes, or its schema changes (a query
 * does one or the other). Answers the entry's operation id, or null when there was nothing to log.
 * The commit of a write: changes that leave a node without a property a constraint requires are
 * refused here, before anything is logged.
 * Call it inside serialWrite, with the collection the query ran against.
 */
export async function logQueryResult(engine: Engine, collection: string, r: Pick<CypherResult, 'changes' | 'schema'>): Promise<number | null> {
  if (r.changes.length === 0 && !r.schema) return null;
  const target = engine.collections.get(collection);
  if (target) checkExistence(target, r.changes);
  const event = r.changes.length > 0 ? { type: 'graph_write' as const, collection, changes: r.changes } : { type: 'collection_settings' as const, collection, settings: r.schema! };
  const { opId, result } = await engine.submit(event);
  if (result.error) throw result.error;
  return opId;
}

/**
 * One batch of apoc.periodic (see BatchLog): its writes logged as one entry, as a query's are;
 * answers the collection as it now stands. Call it inside serialWrite.
 */
export async function logBatch(engine: Engine, collection: string, tx: GraphTx): Promise<Collection> {
  if (tx.dirty) await logQueryResult(engine, collection, { changes: tx.changes(), schema: null });
  return engine.collections.get(collection) ?? tx.collection;
}
