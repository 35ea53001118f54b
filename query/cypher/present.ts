import type { GraphTx } from './graph-tx.js';
import { formatTemporal } from './temporal/format.js';
import { isTemporal } from './temporal/types.js';
import { isMap, NodeRef, PathValue, RelRef, setEntry, type Value } from './values.js';

/**
 * A result value as DECISIONS fixes it: a node is {id, labels, properties}, a relationship
 * {id, type, start, end, properties (weight included)}, a path {nodes, relationships}.
 * A node or relationship deleted by the query shows what it held when it was deleted.
 */
export function toJson(v: Value, tx: GraphTx): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (Array.isArray(v)) return v.map((x) => toJson(x, tx));
  if (v instanceof NodeRef) {
    const n = tx.node(v.id) ?? tx.deletedNode(v.id);
    return { id: v.id, labels: n ? [...n.labels] : [], properties: n ? { ...n.payload } : {} };
  }
  if (v instanceof RelRef) {
    const e = tx.edge(v.id) ?? tx.deletedEdge(v.id);
    return { id: v.id, type: e?.type ?? null, start: e?.from ?? null, end: e?.to ?? null, properties: e ? { ...e.properties, weight: e.weight } : {} };
  }
  if (v instanceof PathValue) {
    return { nodes: v.nodes.map((id) => toJson(new NodeRef(id), tx)), relationships: v.rels.map((id) => toJson(new RelRef(id), tx)) };
  }
  // Temporal values travel as their ISO-8601 text (DECISIONS.md).
  if (isTemporal(v)) return formatTemporal(v);
  if (isMap(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setEntry(out, k, toJson(x, tx));
    return out;
  }
  return null;
}
