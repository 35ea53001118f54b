import { codePointLength } from './code-points.js';
import { CONVERSION_FUNCTIONS } from './conversions.js';
import { storedProperties } from './stored-values.js';
import { runtimeError } from './errors.js';
import { vectorSimilarity } from './similarity.js';
import { type CypherNumber, float, integerResult, isInteger, isNumber, numberOf, WholeFloat } from './numbers.js';
import type { EvalContext } from './evaluate.js';
import type { GraphTx } from './graph-tx.js';
import type { QueryGuard } from './guard.js';
import { listBytes, sizeOf } from './sizes.js';
import { TEMPORAL_FUNCTIONS } from './temporal-functions.js';
import { SPATIAL_FUNCTIONS } from './spatial/functions.js';
import { STRING_FUNCTIONS } from './string-functions.js';
import { SERVER_FUNCTIONS } from './server-functions.js';
import { APOC_FUNCTIONS } from './apoc-functions.js';
import { APOC_COLL_FUNCTIONS } from './apoc/collections.js';
import { APOC_TEXT_FUNCTIONS } from './apoc/text.js';
import { APOC_MAP_FUNCTIONS } from './apoc/maps.js';
import { APOC_CONVERT_FUNCTIONS } from './apoc/convert.js';
import { APOC_DATE_FUNCTIONS } from './apoc/dates.js';
import { APOC_ANY_FUNCTIONS } from './apoc/any.js';
import { valueType } from './value-type.js';
import { isEntity, isMap, NodeRef, PathValue, RelRef, typeName, VirtualNode, VirtualRel, type MapValue, type Value } from './values.js';

export interface FunctionDef {
  minArgs: number;
  maxArgs: number;
  /** The name as Neo4j spells it (SHOW FUNCTIONS), when it is not all lower case. */
  display?: string;
  /** Scalar functions; aggregates are computed by the projection. */
  call?: (args: Value[], ctx: EvalContext) => Value;
}

/** The aggregating functions: they fold many rows into one value. */
export const AGGREGATES = new Set(['count', 'sum', 'avg', 'min', 'max', 'collect', 'stdev', 'stdevp', 'percentilecont', 'percentiledisc']);

const badArg = (fn: string, v: Value) => runtimeError('TypeError', 'InvalidArgumentType', `${fn}() cannot take a ${typeName(v)}`);
/** The TCK's name for a value of the wrong type given to a conversion or an entity function. */
const badValue = (fn: string, v: Value) => runtimeError('TypeError', 'InvalidArgumentValue', `${fn}() cannot take a ${typeName(v)}`);

/** Wraps a one-argument function so that null in gives null out. */
const nullSafe = (f: (v: Exclude<Value, null>, tx: GraphTx, guard: QueryGuard) => Value): FunctionDef => ({
  minArgs: 1,
  maxArgs: 1,
  call: ([v], ctx) => (v === null || v === undefined ? null : f(v, ctx.tx, ctx.guard)),
});

/** A math function answering a FLOAT. */
const num = (fn: string, f: (x: number) => number) => nullSafe((v) => {
  if (!isNumber(v)) throw badArg(fn, v);
  return float(f(numberOf(v)));
});

/** Reserves room for a list of `length` elements that `fn` is about to build. */
function chargeList(guard: QueryGuard, length: number, fn: string): void {
  guard.charge(listBytes(length), `${fn}()`);
  guard.step(length);
}

/** vector.similarity.cosine / euclidean(a, b): see similarity.ts; null for a null vector. */
function similarityFunction(fn: string, cosine: boolean): FunctionDef {
  return {
    minArgs: 2,
    maxArgs: 2,
    call: ([a, b]) => {
      if (a === null || b === null || a === undefined || b === undefined) return null;
      for (const v of [a, b]) if (!Array.isArray(v) || !v.every(isNumber)) throw badArg(fn, v);
      const x = (a as CypherNumber[]).map(numberOf);
      const y = (b as CypherNumber[]).map(numberOf);
      if (x.length !== y.length) throw runtimeError('ArgumentError', 'InvalidArgumentValue', `${fn}() takes two vectors of the same dimension, got ${x.length} and ${y.length}`);
      const score = vectorSimilarity(cosine, x, y);
      return score === null ? null : float(score);
    },
  };
}

/** range(from, to, step) without building it: how many values, and the values one by one. */
export function rangeOf(args: Value[]): { length: number; values: () => Iterable<number> } {
  const [from, to, step = 1] = args;
  if (!isInteger(from) || !isInteger(to) || !isInteger(step)) throw runtimeError('ArgumentError', 'InvalidArgumentType', 'range() takes integers (start, end and step)');
  if (step === 0) throw runtimeError('ArgumentError', 'NumberOutOfRange', 'range() takes a step other than 0');
  const length = Math.max(0, Math.floor((to - from) / step) + 1);
  const first = from;
  const by = step;
  function* values(): Iterable<number> {
    let x = first;
    for (let i = 0; i < length; i++, x += by) yield x;
  }
  return { length, values };
}

function nodeProps(tx: GraphTx, v: NodeRef): MapValue {
  return storedProperties(tx.payloadOf(v.id) ?? tx.deletedNode(v.id)?.payload ?? {});
}

function relProps(tx: GraphTx, v: RelRef): MapValue {
  const e = tx.edge(v.id) ?? tx.deletedEdge(v.id);
  return e ? { ...storedProperties(e.properties), weight: float(e.weight) } : {};
}

/** The properties of a node (its payload) or a relationship (weight included), as a map of Cypher values; a virtual one's are its own. */
export function propertiesOf(v: NodeRef | RelRef | VirtualNode | VirtualRel, tx: GraphTx): MapValue {
  if (v instanceof VirtualNode || v instanceof VirtualRel) return v.properties;
  return v instanceof NodeRef ? nodeProps(tx, v) : relProps(tx, v);
}

export const FUNCTIONS: Record<string, FunctionDef> = {
  count: { minArgs: 1, maxArgs: 1 },
  sum: { minArgs: 1, maxArgs: 1 },
  avg: { minArgs: 1, maxArgs: 1 },
  min: { minArgs: 1, maxArgs: 1 },
  max: { minArgs: 1, maxArgs: 1 },
  collect: { minArgs: 1, maxArgs: 1 },
  stdev: { minArgs: 1, maxArgs: 1 },
  stdevp: { minArgs: 1, maxArgs: 1 },
  percentilecont: { minArgs: 2, maxArgs: 2 },
  percentiledisc: { minArgs: 2, maxArgs: 2 },
  id: nullSafe((v) => {
    if (isEntity(v)) return v.id;
    throw badArg('id', v);
  }),
  // exists(n.prop) is evaluated by the evaluator (it needs the property expression).
  exists: { minArgs: 1, maxArgs: 1 },
  labels: nullSafe((v, tx) => {
    if (v instanceof VirtualNode) return [...v.labels];
    if (!(v instanceof NodeRef)) throw badValue('labels', v);
    const labels = tx.labelsOf(v.id);
    if (!labels && tx.deletedNode(v.id)) throw runtimeError('EntityNotFound', 'DeletedEntityAccess', `node ${v.id} was deleted earlier in this query; its labels cannot be read`);
    return [...(labels ?? [])];
  }),
  type: nullSafe((v, tx) => {
    if (v instanceof VirtualRel) return v.type;
    if (!(v instanceof RelRef)) throw badValue('type', v);
    return (tx.edge(v.id) ?? tx.deletedEdge(v.id))?.type ?? null;
  }),
  properties: nullSafe((v, tx, guard) => {
    if (isEntity(v)) {
      guard.charge(sizeOf(v, tx), 'properties()');
      return propertiesOf(v, tx);
    }
    if (isMap(v)) return v;
    throw badArg('properties', v);
  }),
  keys: nullSafe((v, tx, guard) => {
    const map = isEntity(v) ? propertiesOf(v, tx) : v;
    if (!isMap(map)) throw badArg('keys', v);
    guard.charge(sizeOf(map), 'keys()');
    return Object.keys(map);
  }),
  startnode: nullSafe((v, tx) => {
    if (v instanceof VirtualRel) return v.start;
    if (!(v instanceof RelRef)) throw badArg('startNode', v);
    return new NodeRef(tx.edgeFrom(v.id));
  }),
  endnode: nullSafe((v, tx) => {
    if (v instanceof VirtualRel) return v.end;
    if (!(v instanceof RelRef)) throw badArg('endNode', v);
    return new NodeRef(tx.edgeTo(v.id));
  }),
  nodes: nullSafe((v, _tx, guard) => {
    if (!(v instanceof PathValue)) throw badArg('nodes', v);
    chargeList(guard, 3 * v.nodes.length, 'nodes');
    return v.nodes.map((id) => new NodeRef(id));
  }),
  relationships: nullSafe((v, _tx, guard) => {
    if (!(v instanceof PathValue)) throw badArg('relationships', v);
    chargeList(guard, 3 * v.rels.length, 'relationships');
    return v.rels.map((id) => new RelRef(id));
  }),
  length: nullSafe((v) => {
    if (v instanceof PathValue) return v.rels.length;
    if (typeof v === 'string') return codePointLength(v);
    if (Array.isArray(v)) return v.length;
    throw badArg('length', v);
  }),
  size: nullSafe((v) => {
    if (typeof v === 'string') return codePointLength(v);
    if (Array.isArray(v)) return v.length;
    throw badArg('size', v);
  }),
  isempty: nullSafe((v) => {
    if (typeof v === 'string' || Array.isArray(v)) return v.length === 0;
    if (isMap(v)) return Object.keys(v).length === 0;
    throw badArg('isEmpty', v);
  }),
  valuetype: { minArgs: 1, maxArgs: 1, call: ([v]) => valueType(v ?? null) },
  coalesce: { minArgs: 1, maxArgs: 64, call: (args) => args.find((a) => a !== null) ?? null },
  head: nullSafe((v) => {
    if (!Array.isArray(v)) throw badArg('head', v);
    return v[0] ?? null;
  }),
  last: nullSafe((v) => {
    if (!Array.isArray(v)) throw badArg('last', v);
    return v[v.length - 1] ?? null;
  }),
  tail: nullSafe((v, _tx, guard) => {
    if (!Array.isArray(v)) throw badArg('tail', v);
    chargeList(guard, v.length, 'tail');
    return v.slice(1);
  }),
  reverse: nullSafe((v, _tx, guard) => {
    if (typeof v === 'string') {
      // The string is split into one-character strings before it is joined again.
      chargeList(guard, 3 * v.length, 'reverse');
      return [...v].reverse().join('');
    }
    if (!Array.isArray(v)) throw badArg('reverse', v);
    chargeList(guard, v.length, 'reverse');
    return [...v].reverse();
  }),
  range: {
    minArgs: 2,
    maxArgs: 3,
    call: (args, { guard }) => {
      const range = rangeOf(args);
      chargeList(guard, range.length, 'range');
      const out = new Array<number>(range.length);
      let i = 0;
      for (const x of range.values()) out[i++] = x;
      return out;
    },
  },
  abs: nullSafe((v) => {
    if (!isNumber(v)) throw badArg('abs', v);
    if (typeof v === 'bigint') return integerResult(v < 0n ? -v : v, 'abs()');
    return typeof v === 'number' ? Math.abs(v) : new WholeFloat(Math.abs(v.value));
  }),
  ceil: num('ceil', Math.ceil),
  floor: num('floor', Math.floor),
  sign: nullSafe((v) => {
    if (!isNumber(v)) throw badArg('sign', v);
    return Math.sign(numberOf(v)) + 0;
  }),
  sqrt: num('sqrt', Math.sqrt),
  exp: num('exp', Math.exp),
  log: num('log', Math.log),
  log10: num('log10', Math.log10),
  sin: num('sin', Math.sin),
  cos: num('cos', Math.cos),
  tan: num('tan', Math.tan),
  cot: num('cot', (x) => 1 / Math.tan(x)),
  asin: num('asin', Math.asin),
  acos: num('acos', Math.acos),
  atan: num('atan', Math.atan),
  degrees: num('degrees', (x) => (x * 180) / Math.PI),
  radians: num('radians', (x) => (x * Math.PI) / 180),
  atan2: {
    minArgs: 2,
    maxArgs: 2,
    call: ([y, x]) => {
      if (y === null || x === null || y === undefined || x === undefined) return null;
      if (!isNumber(y)) throw badArg('atan2', y);
      if (!isNumber(x)) throw badArg('atan2', x);
      return float(Math.atan2(numberOf(y), numberOf(x)));
    },
  },
  isnan: nullSafe((v) => {
    if (!isNumber(v)) throw badArg('isNaN', v);
    return Number.isNaN(numberOf(v));
  }),
  pi: { minArgs: 0, maxArgs: 0, call: () => Math.PI },
  rand: { minArgs: 0, maxArgs: 0, call: () => float(Math.random()) },
  e: { minArgs: 0, maxArgs: 0, call: () => Math.E },
  randomuuid: { minArgs: 0, maxArgs: 0, call: () => globalThis.crypto.randomUUID() },
  elementid: nullSafe((v) => {
    // The element ids Bolt sends with nodes and relationships (bolt/values.ts).
    if (isEntity(v)) return String(v.id);
    throw badArg('elementId', v);
  }),
  'vector.similarity.cosine': similarityFunction('vector.similarity.cosine', true),
  'vector.similarity.euclidean': similarityFunction('vector.similarity.euclidean', false),
  ...TEMPORAL_FUNCTIONS,
  ...SPATIAL_FUNCTIONS,
  ...STRING_FUNCTIONS,
  ...SERVER_FUNCTIONS,
  ...APOC_FUNCTIONS,
  ...APOC_COLL_FUNCTIONS,
  ...APOC_TEXT_FUNCTIONS,
  ...APOC_MAP_FUNCTIONS,
  ...APOC_CONVERT_FUNCTIONS,
  ...APOC_DATE_FUNCTIONS,
  ...APOC_ANY_FUNCTIONS,
  ...CONVERSION_FUNCTIONS,
};
