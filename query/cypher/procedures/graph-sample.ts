import type { Payload } from '../../../storage/events/types.js';
import { propertyTypesOf, type PropertyType } from '../../../storage/property-types.js';
import { indexLabels } from '../schema.js';
import type { EvalContext } from '../evaluate.js';
import { VECTOR_PROPERTY } from './schema-commands.js';

/**
 * What the schema procedures (apoc.meta.*, db.schema.*) report, read from the graph. A
 * property's type comes from how its value is stored (stored-values.ts): JSON for strings,
 * booleans, whole numbers (integers) and other numbers (floats), and the type kept beside the
 * payload for temporal values, points, whole floats, integers beyond 2^53 and byte arrays.
 * APOC samples; here every node and relationship is read, so counts are exact.
 */

/** A property's type by APOC's names (apoc.meta.data, apoc.meta.schema) and Neo4j's (db.schema.*). */
export interface SeenType {
  apoc: string;
  neo4j: string;
}

const NAMES: Record<PropertyType, [string, string]> = {
  float: ['FLOAT', 'Double'],
  integer: ['INTEGER', 'Long'],
  date: ['DATE', 'Date'],
  localtime: ['LOCAL_TIME', 'LocalTime'],
  time: ['TIME', 'Time'],
  localdatetime: ['LOCAL_DATE_TIME', 'LocalDateTime'],
  datetime: ['DATE_TIME', 'DateTime'],
  duration: ['DURATION', 'Duration'],
  point: ['POINT', 'Point'],
  bytes: ['LIST', 'ByteArray'],
};

/** The Neo4j name of a plain JSON scalar's type, or null for null (a missing property in Cypher). */
function jsonName(v: unknown): string | null {
  if (typeof v === 'string') return 'String';
  if (typeof v === 'boolean') return 'Boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'Long' : 'Double';
  if (v === null || v === undefined) return null;
  return Array.isArray(v) ? 'List' : 'Map';
}

const APOC_OF: Record<string, string> = { String: 'STRING', Boolean: 'BOOLEAN', Long: 'INTEGER', Double: 'FLOAT', Map: 'MAP' };

/** The type of a payload's property, from its JSON and the type kept beside it; null when its value is null. */
export function storedTypeOf(payload: Payload, key: string): SeenType | null {
  const json = payload[key];
  const kept = propertyTypesOf(payload)?.[key];
  if (Array.isArray(json)) {
    if (kept === 'bytes') return { apoc: 'LIST', neo4j: 'ByteArray' };
    // A list's elements share one type (Neo4j's rule for what a property holds); a list from a
    // Qdrant payload may mix them, and is a plain List.
    const names = new Set(json.map(jsonName));
    const element = kept !== undefined ? NAMES[kept][1] : names.size === 1 ? [...names][0] : json.length === 0 ? 'String' : null;
    return { apoc: 'LIST', neo4j: element && element !== 'List' && element !== 'Map' ? `${element}Array` : 'List' };
  }
  if (kept !== undefined) return { apoc: NAMES[kept][0], neo4j: NAMES[kept][1] };
  const name = jsonName(json);
  return name === null ? null : { apoc: APOC_OF[name]!, neo4j: name };
}

const VECTOR_TYPE: SeenType = { apoc: 'LIST', neo4j: 'DoubleArray' };
/** A relationship's `weight` is its edge weight, a double (1.0 unless set). */
const WEIGHT_TYPE: SeenType = { apoc: 'FLOAT', neo4j: 'Double' };

/** One property of a label, a set of labels or a relationship type: its first type seen, every type seen, and how many carry it. */
export interface PropertySeen {
  type: SeenType;
  neo4jTypes: Set<string>;
  count: number;
}

export interface Owner {
  count: number;
  properties: Map<string, PropertySeen>;
}

/** Relationships of one type leaving (or reaching) nodes of one label: the labels at the other end, and how many. */
export interface Link {
  labels: Set<string>;
  count: number;
}

export interface GraphSample {
  nodeCount: number;
  relCount: number;
  byLabel: Map<string, Owner>;
  /** By the node's labels, sorted and joined by ':' (db.schema.nodeTypeProperties's node types). */
  byLabelSet: Map<string, Owner & { labels: string[] }>;
  byType: Map<string, Owner>;
  outgoing: Map<string, Map<string, Link>>;
  incoming: Map<string, Map<string, Link>>;
  /** (:Label)-[:TYPE]->() and ()-[:TYPE]->(:Label) counts, as apoc.meta.stats names them. */
  patterns: Map<string, number>;
  /** Each (start label, type, end label) a relationship joins, by those three joined by newlines. */
  triples: Map<string, Triple>;
  /** By the start node's labels, the type and the end node's labels (apoc.meta.relTypeProperties's rows). */
  byRelPattern: Map<string, Owner & RelPattern>;
  propertyKeys: Set<string>;
}

export interface Triple {
  from: string;
  type: string;
  to: string;
}

export interface RelPattern {
  type: string;
  from: string[];
  to: string[];
}

function ownerOf<T extends Owner>(into: Map<string, T>, key: string, make: () => T): T {
  let o = into.get(key);
  if (!o) into.set(key, (o = make()));
  return o;
}

const newOwner = (): Owner => ({ count: 0, properties: new Map() });

function see(owner: Owner, key: string, type: SeenType): void {
  const seen = owner.properties.get(key);
  if (!seen) owner.properties.set(key, { type, neo4jTypes: new Set([type.neo4j]), count: 1 });
  else {
    seen.count++;
    seen.neo4jTypes.add(type.neo4j);
  }
}

function link(into: Map<string, Map<string, Link>>, label: string, type: string, others: readonly string[]): void {
  let byType = into.get(label);
  if (!byType) into.set(label, (byType = new Map()));
  let l = byType.get(type);
  if (!l) byType.set(type, (l = { labels: new Set(), count: 0 }));
  l.count++;
  for (const o of others) l.labels.add(o);
}

const bump = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + 1);

/** Reads every live node and relationship (overlay included). */
export function sampleGraph(ctx: EvalContext): GraphSample {
  const { tx } = ctx;
  const s: GraphSample = { nodeCount: 0, relCount: 0, byLabel: new Map(), byLabelSet: new Map(), byType: new Map(), outgoing: new Map(), incoming: new Map(), patterns: new Map(), triples: new Map(), byRelPattern: new Map(), propertyKeys: new Set() };
  for (const id of tx.allNodes()) {
    ctx.guard.step();
    const data = tx.node(id);
    if (!data) continue;
    s.nodeCount++;
    const labels = [...data.labels].sort();
    const props: [string, SeenType][] = [];
    for (const key of Object.keys(data.payload)) {
      const type = storedTypeOf(data.payload, key);
      if (type) props.push([key, type]);
    }
    if (data.vector) props.push([VECTOR_PROPERTY, VECTOR_TYPE]);
    for (const [key] of props) s.propertyKeys.add(key);
    const owners = labels.map((l) => ownerOf(s.byLabel, l, newOwner));
    owners.push(ownerOf(s.byLabelSet, labels.join(':'), () => ({ ...newOwner(), labels })));
    for (const o of owners) {
      o.count++;
      for (const [key, type] of props) see(o, key, type);
    }
    for (const e of tx.outgoing(id)) {
      const edge = tx.edge(e);
      if (!edge) continue;
      s.relCount++;
      const targets = [...(tx.labelsOf(edge.to) ?? [])].sort();
      const pattern = ownerOf(s.byRelPattern, [labels.join(':'), edge.type, targets.join(':')].join('\n'), () => ({ ...newOwner(), type: edge.type, from: labels, to: targets }));
      const rels = [ownerOf(s.byType, edge.type, newOwner), pattern];
      s.propertyKeys.add('weight');
      for (const rel of rels) {
        rel.count++;
        see(rel, 'weight', WEIGHT_TYPE);
      }
      for (const key of Object.keys(edge.properties)) {
        const type = storedTypeOf(edge.properties, key);
        if (!type) continue;
        for (const rel of rels) see(rel, key, type);
        s.propertyKeys.add(key);
      }
      for (const from of labels) for (const to of targets) s.triples.set([from, edge.type, to].join('\n'), { from, type: edge.type, to });
      for (const l of labels) {
        link(s.outgoing, l, edge.type, targets);
        bump(s.patterns, `(:${l})-[:${edge.type}]->()`);
      }
      for (const t of targets) {
        link(s.incoming, t, edge.type, labels);
        bump(s.patterns, `()-[:${edge.type}]->(:${t})`);
      }
    }
  }
  return s;
}

/** What the schema says of a label's property: indexed (any index on it), unique, required. */
export interface PropertyRules {
  indexed: boolean;
  unique: boolean;
  existence: boolean;
}

export function propertyRules(ctx: EvalContext): (label: string, property: string) => PropertyRules {
  const { schema } = ctx.tx;
  const indexes = schema.allIndexes();
  const constraints = schema.allConstraints();
  return (label, property) => ({
    indexed: indexes.some((i) => indexLabels(i).includes(label) && i.properties.includes(property)),
    unique: constraints.some((c) => c.label === label && (c.type === 'UNIQUENESS' || c.type === 'NODE_KEY') && c.properties.length === 1 && c.properties[0] === property),
    existence: constraints.some((c) => c.label === label && (c.type === 'NODE_PROPERTY_EXISTENCE' || c.type === 'NODE_KEY') && c.properties.includes(property)),
  });
}

/** Map entries sorted by key. */
export const sortedEntries = <T>(m: Map<string, T>): [string, T][] => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
