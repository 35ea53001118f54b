import type { PointId } from '../../storage/point-id.js';
import { runtimeError } from './errors.js';
import type { GraphTx } from './graph-tx.js';
import { CypherPoint } from './spatial/point.js';
import { storedProperties } from './stored-values.js';
import { CypherDate, CypherDateTime, CypherDuration, CypherLocalDateTime, CypherLocalTime, CypherTime, isTemporal, type TemporalOrDuration } from './temporal/types.js';
import { isMap, NodeRef, PathValue, RelRef, setEntry, VirtualNode, VirtualRel, type MapValue, type Value } from './values.js';
import { float, WholeFloat } from './numbers.js';

/**
 * A Cypher value with its nodes and relationships read (labels, type, ends, properties), in a
 * form that crosses threads whole (structured clone keeps no class): a map is a `Map`, so a
 * plain object is always one of the tagged kinds below. A Cypher replica sends its Bolt rows
 * in this form, and the request thread's Bolt writer (bolt/values.ts) turns it into PackStream,
 * keeping the per-connection ids there.
 */
export type Resolved = null | boolean | number | string | bigint | Uint8Array | Resolved[] | ResolvedMap | ResolvedFloat | ResolvedNode | ResolvedRel | ResolvedPath | ResolvedTemporal | ResolvedPoint;
export type ResolvedMap = Map<string, Resolved>;

/** A float with no fraction (2.0), told apart from the integer 2. */
export interface ResolvedFloat {
  $: 'float';
  value: number;
}

/** A node; one no longer found has no labels and no properties. */
export interface ResolvedNode {
  $: 'node';
  id: PointId;
  labels: string[];
  properties: ResolvedMap;
}

/** A relationship, its weight among its properties; one no longer found has ends -1 and type ''. */
export interface ResolvedRel {
  $: 'rel';
  id: number;
  from: PointId;
  to: PointId;
  type: string;
  properties: ResolvedMap;
}

/** A path as its walk: nodes.length === rels.length + 1. */
export interface ResolvedPath {
  $: 'path';
  nodes: ResolvedNode[];
  rels: ResolvedRel[];
}

/** A temporal value or duration by its own fields, which a structured clone keeps (not its class: never test one with instanceof). */
export type TemporalFields = TemporalOrDuration;

export interface ResolvedTemporal {
  $: 'temporal';
  value: TemporalFields;
}

export interface ResolvedPoint {
  $: 'point';
  srid: number;
  x: number;
  y: number;
  z: number | null;
}

const entityParameter = () => runtimeError('TypeError', 'InvalidParameterType', 'nodes, relationships and paths are not supported as parameters');

/** A value as Resolved, its entities read through the query's overlay (a deleted one shows what it held). */
export function resolveValue(v: Value, tx: GraphTx): Resolved {
  return resolve(v, tx);
}

/** A query's parameters as Resolved, to send them to a Cypher replica (parameters hold no entities). */
export function resolveParameters(parameters: Record<string, Value>): ResolvedMap {
  return resolveMap(parameters, null);
}

function resolve(v: Value, tx: GraphTx | null): Resolved {
  if (v === null || typeof v === 'boolean' || typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint') return v;
  if (v instanceof WholeFloat) return { $: 'float', value: v.value };
  if (Array.isArray(v)) return v.map((x) => resolve(x, tx));
  if (v instanceof NodeRef || v instanceof RelRef || v instanceof PathValue) {
    if (tx === null) throw entityParameter();
    if (v instanceof NodeRef) return resolveNode(v.id, tx);
    if (v instanceof RelRef) return resolveRel(v.id, tx);
    return { $: 'path', nodes: v.nodes.map((id) => resolveNode(id, tx)), rels: v.rels.map((id) => resolveRel(id, tx)) };
  }
  // A virtual entity's negative id goes out as it is (Bolt's integer id and, as text, its element id), as Neo4j sends them.
  if (v instanceof VirtualNode) return virtualNode(v, tx);
  if (v instanceof VirtualRel) return { $: 'rel', id: v.id, from: v.start.id, to: v.end.id, type: v.type, properties: resolveMap(v.properties, tx) };
  if (isTemporal(v)) return { $: 'temporal', value: { ...v } };
  if (v instanceof CypherPoint) return { $: 'point', srid: v.srid, x: v.x, y: v.y, z: v.z };
  if (v instanceof Uint8Array) return v;
  if (isMap(v)) return resolveMap(v, tx);
  return null;
}

function resolveMap(m: MapValue, tx: GraphTx | null): ResolvedMap {
  const out: ResolvedMap = new Map();
  for (const [k, x] of Object.entries(m)) out.set(k, resolve(x, tx));
  return out;
}

const virtualNode = (v: VirtualNode, tx: GraphTx | null): ResolvedNode => ({ $: 'node', id: v.id, labels: [...v.labels], properties: resolveMap(v.properties, tx) });

function resolveNode(id: PointId, tx: GraphTx): ResolvedNode {
  const n = tx.node(id) ?? tx.deletedNode(id);
  return { $: 'node', id, labels: n ? [...n.labels] : [], properties: n ? resolveMap(storedProperties(n.payload), tx) : new Map() };
}

function resolveRel(id: number, tx: GraphTx): ResolvedRel {
  const e = tx.edge(id) ?? tx.deletedEdge(id);
  const properties = e ? resolveMap({ ...storedProperties(e.properties), weight: float(e.weight) }, tx) : new Map<string, Resolved>();
  return { $: 'rel', id, from: e?.from ?? -1, to: e?.to ?? -1, type: e?.type ?? '', properties };
}

/**
 * A query parameter back from Resolved (parameters cross to a Cypher replica in that form):
 * the temporal, point and float classes made again. Parameters hold no entities.
 */
export function valueOf(r: Resolved): Value {
  if (r === null || typeof r !== 'object' || r instanceof Uint8Array) return r;
  if (Array.isArray(r)) return r.map(valueOf);
  if (r instanceof Map) {
    const out: MapValue = {};
    for (const [k, x] of r) setEntry(out, k, valueOf(x));
    return out;
  }
  switch (r.$) {
    case 'float':
      return new WholeFloat(r.value);
    case 'point':
      return new CypherPoint(r.srid, r.x, r.y, r.z);
    case 'temporal':
      return temporalOf(r.value);
  }
  throw entityParameter();
}

function temporalOf(t: TemporalFields): TemporalOrDuration {
  switch (t.kind) {
    case 'date':
      return new CypherDate(t.epochDay);
    case 'localtime':
      return new CypherLocalTime(t.nanoOfDay);
    case 'time':
      return new CypherTime(t.nanoOfDay, t.offsetSeconds);
    case 'localdatetime':
      return new CypherLocalDateTime(t.epochDay, t.nanoOfDay);
    case 'datetime':
      return new CypherDateTime(t.epochDay, t.nanoOfDay, t.offsetSeconds, t.zone);
    case 'duration':
      return new CypherDuration(t.months, t.days, t.exactSeconds, t.nanos);
  }
}
