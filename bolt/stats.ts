import type { Collection } from '../storage/collection.js';
import type { GraphChange, Payload } from '../storage/events/types.js';

/** The update counters Neo4j reports under their Bolt names; only counters above zero are sent. */
export type Stats = Record<string, number>;

const changedKeys = (before: Payload, after: Payload): number => {
  let n = 0;
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) if (JSON.stringify(before[k]) !== JSON.stringify(after[k])) n++;
  return n;
};

/** Counts what a write's changes do to the collection as it stands before they apply. */
export function statsOf(changes: readonly GraphChange[], c: Collection, schema: Record<string, Record<string, unknown>> | null = null): Stats {
  const s: Stats = {};
  const add = (key: string, n = 1) => {
    if (n > 0) s[key] = (s[key] ?? 0) + n;
  };
  const old = (id: Parameters<Collection['store']['slotOf']>[0]) => {
    const slot = c.store.slotOf(id);
    return slot < 0 ? { payload: {}, labels: [] as readonly string[] } : { payload: c.store.payloads[slot]!, labels: c.store.labels[slot]! };
  };
  for (const ch of changes) {
    switch (ch.kind) {
      case 'create_node':
        add('nodes-created');
        add('labels-added', ch.point.labels.length);
        add('properties-set', Object.keys(ch.point.payload).length);
        break;
      case 'update_node':
      case 'set_node': {
        const after = ch.kind === 'set_node' ? { payload: ch.payload, labels: ch.labels } : { payload: ch.point.payload, labels: ch.point.labels };
        const before = old(ch.kind === 'set_node' ? ch.id : ch.point.id);
        add('labels-added', after.labels.filter((l) => !before.labels.includes(l)).length);
        add('labels-removed', before.labels.filter((l) => !after.labels.includes(l)).length);
        add('properties-set', changedKeys(before.payload, after.payload));
        break;
      }
      case 'delete_node':
        add('nodes-deleted');
        break;
      case 'create_edge':
        add('relationships-created');
        add('properties-set', Object.keys(ch.edge.properties ?? {}).length);
        break;
      case 'update_edge': {
        const e = c.graph.edge(ch.id);
        add('properties-set', e ? changedKeys({ ...e.properties, weight: e.weight }, { ...ch.properties, weight: ch.weight }) : 0);
        break;
      }
      case 'delete_edge':
        add('relationships-deleted');
        break;
    }
  }
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
