import type { PointId } from '../../../storage/point-id.js';
import { property, type EvalContext } from '../evaluate.js';
import { equals, isMap, NodeRef, RelRef, type MapValue, type Value } from '../values.js';
import type { Writer } from '../writes.js';
import { expectArg, isString, isStringList, procedureError, type Procedure, type ProcedureRow } from './types.js';

const entries = (m: MapValue): [string, Value][] => Object.entries(m);

/** Whether every key of `wanted` reads equal on the node or relationship. */
function hasAll(ctx: EvalContext, target: NodeRef | RelRef, wanted: MapValue): boolean {
  return entries(wanted).every(([key, value]) => equals(property(target, key, ctx), value) === true);
}

export function mapArg(proc: string, index: number, v: Value | undefined): MapValue {
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
  { name: 'apoc.merge.node', display: 'apoc.merge.node', mode: 'write', minArgs: 2, maxArgs: 4, outputs: ['node'], run: mergeNode },
  { name: 'apoc.merge.relationship', display: 'apoc.merge.relationship', mode: 'write', minArgs: 5, maxArgs: 6, outputs: ['rel'], run: mergeRelationship },
  { name: 'apoc.create.addlabels', display: 'apoc.create.addLabels', mode: 'write', minArgs: 2, maxArgs: 2, outputs: ['node'], run: addLabels },
];
