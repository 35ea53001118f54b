import type { EvalContext } from '../evaluate.js';
import { NodeRef, RelRef, type Value } from '../values.js';
import type { Writer } from '../writes.js';
import { mapArg } from './apoc.js';
import { expectArg, isString, isStringList, procedureError, type Procedure, type ProcedureRow } from './types.js';

/**
 * apoc.create.*: nodes and relationships with labels and types chosen at run time, and their
 * properties and labels set by name. Each goes through the Writer, as CREATE and SET do.
 */

function labelsArg(proc: string, index: number, v: Value | undefined): string[] {
  const labels = v === undefined || v === null ? [] : expectArg(proc, index, v, isStringList, 'a list of labels');
  if (labels.some((l) => l === '')) throw procedureError('ProcedureCallFailed', `${proc}: a label cannot be empty`);
  return labels;
}

/** A node or relationship, or a list of them, as APOC takes them (null: none). */
function targets<T extends NodeRef | RelRef>(proc: string, v: Value | undefined, kind: new (id: never) => T): T[] {
  const list = v === undefined || v === null ? [] : Array.isArray(v) ? v : [v];
  return list.map((x) => {
    if (!(x instanceof kind)) throw procedureError('ProcedureCallFailed', `${proc}: argument 1 must be a ${kind === (NodeRef as unknown) ? 'node' : 'relationship'} or a list of them`);
    return x;
  });
}

/** The pairs of keys and values setProperties takes: two lists of one length. */
function pairs(proc: string, keys: Value | undefined, values: Value | undefined): [string, Value][] {
  const k = expectArg(proc, 1, keys ?? null, isStringList, 'a list of property keys');
  const v = expectArg(proc, 2, values ?? null, (x): x is Value[] => Array.isArray(x), 'a list of values');
  if (k.length !== v.length) throw procedureError('ProcedureCallFailed', `${proc}: the keys (${k.length}) and the values (${v.length}) must be lists of the same length`);
  return k.map((key, i) => [key, v[i]!]);
}

function createNode(args: Value[], _ctx: EvalContext, writer: Writer): ProcedureRow[] {
  const p = 'apoc.create.node';
  return [{ node: new NodeRef(writer.createNode(labelsArg(p, 0, args[0]), mapArg(p, 1, args[1]))) }];
}

function createNodes(args: Value[], _ctx: EvalContext, writer: Writer): ProcedureRow[] {
  const p = 'apoc.create.nodes';
  const labels = labelsArg(p, 0, args[0]);
  const list = expectArg(p, 1, args[1] ?? null, (x): x is Value[] => Array.isArray(x), 'a list of property maps');
  return list.map((props) => ({ node: new NodeRef(writer.createNode(labels, mapArg(p, 1, props))) }));
}

function createRelationship(args: Value[], _ctx: EvalContext, writer: Writer): ProcedureRow[] {
  const p = 'apoc.create.relationship';
  const [from, , , to] = args;
  if (!(from instanceof NodeRef) || !(to instanceof NodeRef)) throw procedureError('ProcedureCallFailed', `${p}: the start (argument 1) and end (argument 4) must be nodes`);
  const type = expectArg(p, 1, args[1] ?? null, isString, 'a relationship type');
  if (type === '') throw procedureError('ProcedureCallFailed', `${p}: the relationship type cannot be empty`);
  return [{ rel: new RelRef(writer.createRelationship(from.id, to.id, type, mapArg(p, 2, args[2]))) }];
}

/** setProperty / setProperties / removeProperties, on nodes (`node` column) or relationships (`rel`). */
function propertyProcedure(name: string, display: string, rel: boolean, arity: number, assignments: (args: Value[]) => [string, Value][]): Procedure {
  const column = rel ? 'rel' : 'node';
  return {
    name,
    display,
    mode: 'write',
    minArgs: arity,
    maxArgs: arity,
    outputs: [column],
    run: (args, _ctx, writer) => {
      const entries = assignments(args);
      return targets<NodeRef | RelRef>(display, args[0], rel ? RelRef : NodeRef).map((t) => {
        writer.assign(t, entries, false);
        return { [column]: t };
      });
    },
  };
}

function setProperty(display: string): (args: Value[]) => [string, Value][] {
  return (args) => [[expectArg(display, 1, args[1] ?? null, isString, 'a property key'), args[2] ?? null]];
}

function removeProperties(display: string): (args: Value[]) => [string, Value][] {
  return (args) => expectArg(display, 1, args[1] ?? null, isStringList, 'a list of property keys').map((k) => [k, null]);
}

/** setLabels: the node ends with exactly these labels; removeLabels: without them. */
function labelProcedure(name: string, display: string, replace: boolean): Procedure {
  return {
    name,
    display,
    mode: 'write',
    minArgs: 2,
    maxArgs: 2,
    outputs: ['node'],
    run: (args, ctx, writer) => {
      const labels = labelsArg(display, 1, args[1]);
      return targets(display, args[0], NodeRef).map((node) => {
        if (replace) {
          const drop = (ctx.tx.labelsOf(node.id) ?? []).filter((l) => !labels.includes(l));
          if (drop.length > 0) writer.setLabels(node, drop, true);
          writer.setLabels(node, labels, false);
        } else writer.setLabels(node, labels, true);
        return { node };
      });
    },
  };
}

export const APOC_CREATE_PROCEDURES: Procedure[] = [
  { name: 'apoc.create.node', display: 'apoc.create.node', mode: 'write', minArgs: 2, maxArgs: 2, outputs: ['node'], run: createNode },
  { name: 'apoc.create.nodes', display: 'apoc.create.nodes', mode: 'write', minArgs: 2, maxArgs: 2, outputs: ['node'], run: createNodes },
  { name: 'apoc.create.relationship', display: 'apoc.create.relationship', mode: 'write', minArgs: 4, maxArgs: 4, outputs: ['rel'], run: createRelationship },
  propertyProcedure('apoc.create.setproperty', 'apoc.create.setProperty', false, 3, setProperty('apoc.create.setProperty')),
  propertyProcedure('apoc.create.setproperties', 'apoc.create.setProperties', false, 3, (args) => pairs('apoc.create.setProperties', args[1], args[2])),
  propertyProcedure('apoc.create.removeproperties', 'apoc.create.removeProperties', false, 2, removeProperties('apoc.create.removeProperties')),
  propertyProcedure('apoc.create.setrelproperty', 'apoc.create.setRelProperty', true, 3, setProperty('apoc.create.setRelProperty')),
  propertyProcedure('apoc.create.setrelproperties', 'apoc.create.setRelProperties', true, 3, (args) => pairs('apoc.create.setRelProperties', args[1], args[2])),
  propertyProcedure('apoc.create.removerelproperties', 'apoc.create.removeRelProperties', true, 2, removeProperties('apoc.create.removeRelProperties')),
  labelProcedure('apoc.create.setlabels', 'apoc.create.setLabels', true),
  labelProcedure('apoc.create.removelabels', 'apoc.create.removeLabels', false),
];
