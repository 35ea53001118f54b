import type { UpdateCounts } from '../query/cypher/graph-tx.js';

/** The update counters Neo4j reports under their Bolt names; only counters above zero are sent. */
export type Stats = Record<string, number>;

const BOLT_NAMES: Record<keyof UpdateCounts, string> = {
  nodesCreated: 'nodes-created',
  nodesDeleted: 'nodes-deleted',
  relationshipsCreated: 'relationships-created',
  relationshipsDeleted: 'relationships-deleted',
  propertiesSet: 'properties-set',
  labelsAdded: 'labels-added',
  labelsRemoved: 'labels-removed',
};

/** The counters of a write: what its queries did, operation by operation, and the indexes and constraints its schema changes made or dropped. */
export function statsOf(counts: UpdateCounts, schema: Record<string, Record<string, unknown>> | null = null): Stats {
  const s: Stats = {};
  const add = (key: string, n = 1) => {
    if (n > 0) s[key] = (s[key] ?? 0) + n;
  };
  for (const [field, name] of Object.entries(BOLT_NAMES) as [keyof UpdateCounts, string][]) add(name, counts[field]);
  // A schema change names each index or constraint it made (a definition) or dropped (null).
  for (const [group, added, removed] of [['cypher_indexes', 'indexes-added', 'indexes-removed'], ['cypher_constraints', 'constraints-added', 'constraints-removed']] as const) {
    for (const def of Object.values(schema?.[group] ?? {})) {
      // The index a constraint owns comes and goes with it, as Neo4j counts.
      if ((def as { owningConstraint?: string | null } | null)?.owningConstraint) continue;
      add(def === null ? removed : added);
    }
  }
  return s;
}

/** What one query of a transaction added to its counters. */
export function statsSince(before: Stats, after: Stats): Stats {
  const s: Stats = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) > 0) s[k] = v - (before[k] ?? 0);
  return s;
}
