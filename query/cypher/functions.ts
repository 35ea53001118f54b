import { runtimeError } from './errors.js';
import type { GraphTx } from './graph-tx.js';
import { isMap, NodeRef, PathValue, RelRef, typeName, type Value } from './values.js';

export interface FunctionDef {
  minArgs: number;
  maxArgs: number;
  /** Scalar functions; aggregates are computed by the projection. */
  call?: (args: Value[], tx: GraphTx) => Value;
}

const MAX_RANGE = 1_000_000;

/** The aggregating functions: they fold many rows into one value. */
export const AGGREGATES = new Set(['count', 'sum', 'avg', 'min', 'max', 'collect']);

const badArg = (fn: string, v: Value) => runtimeError('TypeError', 'InvalidArgumentType', `${fn}() cannot take a ${typeName(v)}`);

/** Wraps a one-argument function so that null in gives null out. */
const nullSafe = (f: (v: Exclude<Value, null>, tx: GraphTx) => Value): FunctionDef => ({
  minArgs: 1,
  maxArgs: 1,
  call: ([v], tx) => (v === null || v === undefined ? null : f(v, tx)),
});

const num = (fn: string, f: (x: number) => number) => nullSafe((v) => {
  if (typeof v !== 'number') throw badArg(fn, v);
  return f(v);
});

const str = (fn: string, f: (s: string) => Value) => nullSafe((v) => {
  if (typeof v !== 'string') throw badArg(fn, v);
  return f(v);
});

function nodeProps(tx: GraphTx, v: NodeRef): Value {
  return (tx.payloadOf(v.id) ?? tx.deletedNode(v.id)?.payload ?? {}) as Value;
}

function relProps(tx: GraphTx, v: RelRef): Value {
  const e = tx.edge(v.id) ?? tx.deletedEdge(v.id);
  return e ? ({ ...e.properties, weight: e.weight } as Value) : {};
}

/** The properties of a node (its payload) or a relationship (weight included), as a map. */
export function propertiesOf(v: NodeRef | RelRef, tx: GraphTx): Value {
  return v instanceof NodeRef ? ({ ...(nodeProps(tx, v) as object) } as Value) : relProps(tx, v);
}

export const FUNCTIONS: Record<string, FunctionDef> = {
  count: { minArgs: 1, maxArgs: 1 },
  sum: { minArgs: 1, maxArgs: 1 },
  avg: { minArgs: 1, maxArgs: 1 },
  min: { minArgs: 1, maxArgs: 1 },
  max: { minArgs: 1, maxArgs: 1 },
  collect: { minArgs: 1, maxArgs: 1 },
  id: nullSafe((v) => {
    if (v instanceof NodeRef || v instanceof RelRef) return v.id;
    throw badArg('id', v);
  }),
  // exists(n.prop) is evaluated by the evaluator (it needs the property expression).
  exists: { minArgs: 1, maxArgs: 1 },
  labels: nullSafe((v, tx) => {
    if (!(v instanceof NodeRef)) throw badArg('labels', v);
    return [...(tx.labelsOf(v.id) ?? tx.deletedNode(v.id)?.labels ?? [])];
  }),
  type: nullSafe((v, tx) => {
    if (!(v instanceof RelRef)) throw badArg('type', v);
    return (tx.edge(v.id) ?? tx.deletedEdge(v.id))?.type ?? null;
  }),
  properties: nullSafe((v, tx) => {
    if (v instanceof NodeRef || v instanceof RelRef) return propertiesOf(v, tx);
    if (isMap(v)) return v;
    throw badArg('properties', v);
  }),
  keys: nullSafe((v, tx) => {
    if (v instanceof NodeRef) return Object.keys(nodeProps(tx, v) as object);
    if (v instanceof RelRef) return Object.keys(relProps(tx, v) as object);
    if (isMap(v)) return Object.keys(v);
    throw badArg('keys', v);
  }),
  startnode: nullSafe((v, tx) => {
    if (!(v instanceof RelRef)) throw badArg('startNode', v);
    return new NodeRef(tx.edgeFrom(v.id));
  }),
  endnode: nullSafe((v, tx) => {
    if (!(v instanceof RelRef)) throw badArg('endNode', v);
    return new NodeRef(tx.edgeTo(v.id));
  }),
  nodes: nullSafe((v) => {
    if (!(v instanceof PathValue)) throw badArg('nodes', v);
    return v.nodes.map((id) => new NodeRef(id));
  }),
  relationships: nullSafe((v) => {
    if (!(v instanceof PathValue)) throw badArg('relationships', v);
    return v.rels.map((id) => new RelRef(id));
  }),
  length: nullSafe((v) => {
    if (v instanceof PathValue) return v.rels.length;
    if (typeof v === 'string' || Array.isArray(v)) return v.length;
    throw badArg('length', v);
  }),
  size: nullSafe((v) => {
    if (typeof v === 'string' || Array.isArray(v)) return v.length;
    throw badArg('size', v);
  }),
  coalesce: { minArgs: 1, maxArgs: 64, call: (args) => args.find((a) => a !== null) ?? null },
  head: nullSafe((v) => {
    if (!Array.isArray(v)) throw badArg('head', v);
    return v[0] ?? null;
  }),
  last: nullSafe((v) => {
    if (!Array.isArray(v)) throw badArg('last', v);
    return v[v.length - 1] ?? null;
  }),
  tail: nullSafe((v) => {
    if (!Array.isArray(v)) throw badArg('tail', v);
    return v.slice(1);
  }),
  reverse: nullSafe((v) => {
    if (typeof v === 'string') return [...v].reverse().join('');
    if (Array.isArray(v)) return [...v].reverse();
    throw badArg('reverse', v);
  }),
  range: {
    minArgs: 2,
    maxArgs: 3,
    call: (args) => {
      const [from, to, step = 1] = args;
      if (typeof from !== 'number' || typeof to !== 'number' || typeof step !== 'number' || step === 0) throw runtimeError('TypeError', 'InvalidArgumentType', 'range() takes integers and a non-zero step');
      if ((to - from) / step > MAX_RANGE) throw runtimeError('TypeError', 'InvalidArgumentValue', `range() makes at most ${MAX_RANGE.toLocaleString('en')} values`);
      const out: number[] = [];
      for (let i = from; step > 0 ? i <= to : i >= to; i += step) out.push(i);
      return out;
    },
  },
  tointeger: nullSafe((v) => {
    if (typeof v === 'number') return Math.trunc(v);
    if (typeof v === 'string') {
      const n = Number(v);
      return v.trim() === '' || !Number.isFinite(n) ? null : Math.trunc(n);
    }
    throw badArg('toInteger', v);
  }),
  tofloat: nullSafe((v) => {
    if (typeof v === 'number') return v;
    if (typeof v === 'string') {
      const n = Number(v);
      return v.trim() === '' || Number.isNaN(n) ? null : n;
    }
    throw badArg('toFloat', v);
  }),
  tostring: nullSafe((v) => {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    throw badArg('toString', v);
  }),
  toboolean: nullSafe((v) => {
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string') return v.toLowerCase() === 'true' ? true : v.toLowerCase() === 'false' ? false : null;
    throw badArg('toBoolean', v);
  }),
  abs: num('abs', Math.abs),
  ceil: num('ceil', Math.ceil),
  floor: num('floor', Math.floor),
  round: num('round', Math.round),
  sign: num('sign', Math.sign),
  sqrt: num('sqrt', Math.sqrt),
  tolower: str('toLower', (s) => s.toLowerCase()),
  toupper: str('toUpper', (s) => s.toUpperCase()),
  trim: str('trim', (s) => s.trim()),
  ltrim: str('lTrim', (s) => s.trimStart()),
  rtrim: str('rTrim', (s) => s.trimEnd()),
};
