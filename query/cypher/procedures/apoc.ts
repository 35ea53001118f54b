import type { PointId } from '../../../storage/point-id.js';
import { property, type EvalContext } from '../evaluate.js';
import { equals, isMap, NodeRef, RelRef, type MapValue, type Value } from '../values.js';
import type { Writer } from '../writes.js';
import { expectArg, isString, isStringList, procedureError, type Procedure, type ProcedureRow } from './types.js';

/** APOC's name for the type of a stored property value. */
function metaType(v: unknown): string {
  if (typeof v === 'string') return 'STRING';
  if (typeof v === 'number') return Number.isInteger(v) ? 'INTEGER' : 'FLOAT';
  if (typeof v === 'boolean') return 'BOOLEAN';
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return 'LIST';
  return 'MAP';
}

interface PropertyStats {
  type: string;
  count: number;
}

function tally(into: Map<string, Map<string, PropertyStats>>, owner: string, key: string, value: unknown): void {
  let props = into.get(owner);
  if (!props) into.set(owner, (props = new Map()));
  const seen = props.get(key);
  if (seen) seen.count++;
  else props.set(key, { type: metaType(value), count: 1 });
}

const metaRow = (label: string, prop: string, type: string, count: number, elementType: string, other: string[] = []): ProcedureRow => ({
  label,
  property: prop,
  count,
  unique: false,
  index: false,
  existence: false,
  type,
  array: type === 'LIST',
  sample: null,
  left: 0,
  right: 0,
  other,
  otherLabels: [],
  elementType,
});

/**
 * apoc.meta.data(): one row per label and property, per label and outgoing relationship type
 * (type RELATIONSHIP, `other` the labels at the far end), and per relationship type and property.
 * Every node and relationship is read (APOC samples; the answer here is exact).
 */
function* metaData(ctx: EvalContext): Iterable<ProcedureRow> {
  const { tx } = ctx;
  const nodeProps = new Map<string, Map<string, PropertyStats>>();
  const relProps = new Map<string, Map<string, PropertyStats>>();
  const links = new Map<string, Map<string, { targets: Set<string>; count: number }>>();
  for (const id of tx.allNodes()) {
    ctx.guard.step();
    const data = tx.node(id);
    if (!data) continue;
    for (const label of data.labels) {
      for (const [key, value] of Object.entries(data.payload)) tally(nodeProps, label, key, value);
      if (data.vector) tally(nodeProps, label, 'embedding', []);
    }
    for (const e of tx.outgoing(id)) {
      const edge = tx.edge(e);
      if (!edge) continue;
      tally(relProps, edge.type, 'weight', edge.weight);
      for (const [key, value] of Object.entries(edge.properties)) tally(relProps, edge.type, key, value);
      const targets = tx.labelsOf(edge.to) ?? [];
      for (const label of data.labels) {
        let byType = links.get(label);
        if (!byType) links.set(label, (byType = new Map()));
        let link = byType.get(edge.type);
        if (!link) byType.set(edge.type, (link = { targets: new Set(), count: 0 }));
        link.count++;
        for (const t of targets) link.targets.add(t);
      }
    }
  }
  for (const [label, props] of [...nodeProps].sort()) for (const [key, s] of [...props].sort()) yield metaRow(label, key, s.type, s.count, 'node');
  for (const [label, byType] of [...links].sort()) for (const [type, link] of [...byType].sort()) yield metaRow(label, type, 'RELATIONSHIP', link.count, 'node', [...link.targets].sort());
  for (const [type, props] of [...relProps].sort()) for (const [key, s] of [...props].sort()) yield metaRow(type, key, s.type, s.count, 'relationship');
}

const entries = (m: MapValue): [string, Value][] => Object.entries(m);

/** Whether every key of `wanted` reads equal on the node or relationship. */
function hasAll(ctx: EvalContext, target: NodeRef | RelRef, wanted: MapValue): boolean {
  return entries(wanted).every(([key, value]) => equals(property(target, key, ctx), value) === true);
}

function mapArg(proc: string, index: number, v: Value | undefined): MapValue {
  if (v === undefined || v === null) return {};
  if (!isMap(v)) throw procedureError('ProcedureCallFailed', `${proc}: argument ${index + 1} must be a map`);
  return v;
}

function identity(proc: string, v: Value | undefined): MapValue {
  const ident = mapArg(proc, 1, v);
  if (Object.keys(ident).length === 0 || Object.values(ident).some((x) => x === null)) {
    throw procedureError('ProcedureCallFailed', `${proc}: the identifying properties must be a non-empty map without null values`);
  }
  return ident;
}

/** apoc.merge.node(labels, identProps, onCreateProps, onMatchProps): each node matching, or a new one. */
function mergeNode(args: Value[], ctx: EvalContext, writer: Writer): ProcedureRow[] {
  const p = 'apoc.merge.node';
  const labels = expectArg(p, 0, args[0] ?? null, isStringList, 'a list of labels');
  if (labels.some((l) => l === '')) throw procedureError('ProcedureCallFailed', `${p}: a label cannot be empty`);
  const ident = identity(p, args[1]);
  const onCreate = mapArg(p, 2, args[2]);
  const onMatch = mapArg(p, 3, args[3]);
  const { tx } = ctx;
  // One identifying value is looked up in the payload index; the rest are checked on each candidate.
  const [key, value] = Object.entries(ident).find(([, v]) => typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') ?? [];
  const candidates: PointId[] =
    key !== undefined ? tx.nodesWithValue(key, value as string | number | boolean) : labels.length > 0 ? tx.nodesWithLabel(labels[0]!) : tx.allNodes();
  const found: NodeRef[] = [];
  for (const id of candidates) {
    ctx.guard.step();
    const node = new NodeRef(id);
    if (labels.every((l) => tx.labelsOf(id)?.includes(l)) && hasAll(ctx, node, ident)) found.push(node);
  }
  if (found.length === 0) return [{ node: new NodeRef(writer.createNode(labels, { ...ident, ...onCreate })) }];
  for (const node of found) if (Object.keys(onMatch).length > 0) writer.assign(node, entries(onMatch), false);
  return found.map((node) => ({ node }));
}

/** apoc.merge.relationship(start, type, identProps, onCreateProps, end, onMatchProps). */
function mergeRelationship(args: Value[], ctx: EvalContext, writer: Writer): ProcedureRow[] {
  const p = 'apoc.merge.relationship';
  const [start, , , , end] = args;
  if (!(start instanceof NodeRef) || !(end instanceof NodeRef)) throw procedureError('ProcedureCallFailed', `${p}: the start (argument 1) and end (argument 5) must be nodes`);
  const type = expectArg(p, 1, args[1]!, isString, 'a relationship type');
  if (type === '') throw procedureError('ProcedureCallFailed', `${p}: the relationship type cannot be empty`);
  const ident = mapArg(p, 2, args[2]);
  const onCreate = mapArg(p, 3, args[3]);
  const onMatch = mapArg(p, 5, args[5]);
  const { tx } = ctx;
  const found: RelRef[] = [];
  for (const e of tx.outgoing(start.id)) {
    const edge = tx.edge(e);
    if (edge && edge.type === type && edge.to === end.id && hasAll(ctx, new RelRef(e), ident)) found.push(new RelRef(e));
  }
  if (found.length === 0) return [{ rel: new RelRef(writer.createRelationship(start.id, end.id, type, { ...ident, ...onCreate })) }];
  for (const rel of found) if (Object.keys(onMatch).length > 0) writer.assign(rel, entries(onMatch), false);
  return found.map((rel) => ({ rel }));
}

/** apoc.create.addLabels(nodes, labels): a node, or a list of them. */
function addLabels(args: Value[], _ctx: EvalContext, writer: Writer): ProcedureRow[] {
  const p = 'apoc.create.addLabels';
  const nodes = Array.isArray(args[0]) ? args[0] : [args[0] ?? null];
  const labels = expectArg(p, 1, args[1]!, isStringList, 'a list of labels');
  if (labels.some((l) => l === '')) throw procedureError('ProcedureCallFailed', `${p}: a label cannot be empty`);
  return nodes.map((node) => {
    if (!(node instanceof NodeRef)) throw procedureError('ProcedureCallFailed', `${p}: argument 1 must be a node or a list of nodes`);
    writer.setLabels(node, labels, false);
    return { node };
  });
}

export const APOC_PROCEDURES: Procedure[] = [
  {
    name: 'apoc.meta.data',
    display: 'apoc.meta.data',
    mode: 'read',
    minArgs: 0,
    maxArgs: 1,
    outputs: ['label', 'property', 'count', 'unique', 'index', 'existence', 'type', 'array', 'sample', 'left', 'right', 'other', 'otherLabels', 'elementType'],
    run: ([config], ctx) => {
      // The answer reads every node and relationship, so the sampling settings are met as they stand.
      const settings = mapArg('apoc.meta.data', 0, config);
      const unknown = Object.keys(settings).find((k) => k !== 'sample' && k !== 'maxRels');
      if (unknown !== undefined) throw procedureError('ProcedureCallFailed', `apoc.meta.data does not take the setting \`${unknown}\`; it reads every node, so only sample and maxRels are accepted`);
      return metaData(ctx);
    },
  },
  { name: 'apoc.merge.node', display: 'apoc.merge.node', mode: 'write', minArgs: 2, maxArgs: 4, outputs: ['node'], run: mergeNode },
  { name: 'apoc.merge.relationship', display: 'apoc.merge.relationship', mode: 'write', minArgs: 5, maxArgs: 6, outputs: ['rel'], run: mergeRelationship },
  { name: 'apoc.create.addlabels', display: 'apoc.create.addLabels', mode: 'write', minArgs: 2, maxArgs: 2, outputs: ['node'], run: addLabels },
];
