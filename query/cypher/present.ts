import type { GraphTx } from './graph-tx.js';
import { float, floatText, isFloat, isNumber, numberOf } from './numbers.js';
import { formatTemporal } from './temporal/format.js';
import { isTemporal } from './temporal/types.js';
import { storedProperties } from './stored-values.js';
import { bytesToBase64 } from './bytes.js';
import { CypherPoint, pointJson } from './spatial/point.js';
import { isMap, NodeRef, PathValue, RelRef, setEntry, VirtualNode, VirtualRel, type MapValue, type Value } from './values.js';

/**
 * A float as JSON text keeps its type (DECISIONS.md: a float is written with '.' or an
 * exponent, 1.0): a JS number cannot say so, so the text travels in this box to jsonText().
 * The infinities are written 1e999 and -1e999 (JSON numbers that read back as them).
 */
export class JsonFloat {
  constructor(readonly text: string) {}
}

function typedFloat(v: number): unknown {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return new JsonFloat(v > 0 ? '1e999' : '-1e999');
  return new JsonFloat(floatText(v));
}

/**
 * A result value as DECISIONS fixes it: a node is {id, labels, properties}, a relationship
 * {id, type, start, end, properties (weight included)}, a path {nodes, relationships}.
 * A node or relationship deleted by the query shows what it held when it was deleted.
 * `floats` writes a FLOAT: a plain number for JS callers, a JsonFloat for JSON text.
 */
function present(v: Value, tx: GraphTx, floats: (x: number) => unknown): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (isNumber(v)) return isFloat(v) ? floats(numberOf(v)) : v;
  if (Array.isArray(v)) return v.map((x) => present(x, tx, floats));
  if (v instanceof NodeRef) {
    const n = tx.node(v.id) ?? tx.deletedNode(v.id);
    return { id: v.id, labels: n ? [...n.labels] : [], properties: n ? present(storedProperties(n.payload), tx, floats) : {} };
  }
  if (v instanceof RelRef) {
    const e = tx.edge(v.id) ?? tx.deletedEdge(v.id);
    return { id: v.id, type: e?.type ?? null, start: e?.from ?? null, end: e?.to ?? null, properties: e ? present({ ...storedProperties(e.properties), weight: float(e.weight) }, tx, floats) : {} };
  }
  // A virtual node or relationship (db.schema.visualization, apoc.meta.graph) in the same shape, its negative id its own.
  if (v instanceof VirtualNode) return { id: v.id, labels: [...v.labels], properties: present(v.properties, tx, floats) };
  if (v instanceof VirtualRel) return { id: v.id, type: v.type, start: v.start.id, end: v.end.id, properties: present(v.properties, tx, floats) };
  if (v instanceof PathValue) {
    return { nodes: v.nodes.map((id) => present(new NodeRef(id), tx, floats)), relationships: v.rels.map((id) => present(new RelRef(id), tx, floats)) };
  }
  // Temporal values travel as their ISO-8601 text (DECISIONS.md).
  if (isTemporal(v)) return formatTemporal(v);
  // A point as {lon, lat[, height]} or {x, y[, z]}, as it is stored; a byte array as base64 text.
  if (v instanceof CypherPoint) return present(pointJson(v) as MapValue, tx, floats);
  if (v instanceof Uint8Array) return bytesToBase64(v);
  if (isMap(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setEntry(out, k, present(x, tx, floats));
    return out;
  }
  return null;
}

const plainFloat = (x: number): unknown => (Number.isFinite(x) ? x : String(x));

/** For JS callers (the browser library): floats are plain numbers, the infinities and NaN their names. */
export const toJson = (v: Value, tx: GraphTx): unknown => present(v, tx, plainFloat);

/** For JSON text (the REST route, written by jsonText): floats keep their type. */
export const toTypedJson = (v: Value, tx: GraphTx): unknown => present(v, tx, typedFloat);
