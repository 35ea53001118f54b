import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import { applyEvent } from '../../storage/engine/apply-event.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { CypherError } from '../../query/cypher/errors.js';
import { compileQuery, executeQuery, type CypherResult } from '../../query/cypher/run-query.js';

const config: CollectionConfig = { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) };

/** A collection and a way to run Cypher on it in process, committing writes (one event) and schema changes as the server does. */
export function cypherGraph() {
  const collections = new Map<string, Collection>();
  applyEvent(collections, 1, { type: 'create_collection', name: 'g', config });
  let opId = 1;
  const c = collections.get('g')!;
  const run = (text: string, params: Record<string, unknown> = {}): CypherResult => {
    const r = executeQuery(c, compileQuery(text), params);
    if (r.changes.length > 0) {
      const applied = applyEvent(collections, ++opId, { type: 'graph_write', collection: 'g', changes: r.changes });
      if (applied.error) throw applied.error;
    }
    if (r.schema) c.settings = { ...c.settings, ...Object.fromEntries(Object.entries(r.schema).map(([k, v]) => [k, { ...(c.settings[k] ?? {}), ...v }])) };
    return r;
  };
  return { c, run, rows: (text: string, params?: Record<string, unknown>) => run(text, params).rows };
}

/** The CypherError `f` throws (fails the test when it throws none, or something else). */
export function cypherFailure(f: () => unknown): CypherError {
  try {
    f();
  } catch (err) {
    expect(err).to.be.instanceOf(CypherError);
    return err as CypherError;
  }
  return expect.fail('no error');
}
