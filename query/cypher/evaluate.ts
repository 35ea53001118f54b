import type { DatabaseCatalog } from './procedures/catalog.js';
import type { BatchCommits } from './batch-commits.js';
import { temporalComponent } from './temporal/accessors.js';
import { isOfType } from './type-predicate.js';
import { labelExprMatches } from './label-expr.js';
import { addDuration, addDurations, divideDuration, multiplyDuration, negate, subtractDuration } from './temporal/arithmetic.js';
import { CypherDuration, isTemporal, type Temporal } from './temporal/types.js';
import type { Distance } from '../../storage/events/types.js';
import type { Clause, Expr } from './ast.js';
import { runtimeError } from './errors.js';
import { float, integerResult, isInteger, isIntegral, isNumber, numberOf, numberText, WholeFloat } from './numbers.js';
import { FUNCTIONS, propertiesOf } from './functions.js';
import { javaRegex } from './regex.js';
import type { GraphTx } from './graph-tx.js';
import type { QueryGuard } from './guard.js';
import { listBytes, ROW_BYTES, sizeOf, stringBytes } from './sizes.js';
import { storedProperty } from './stored-values.js';
import { pointComponent } from './spatial/functions.js';
import { CypherPoint } from './spatial/point.js';
import { compare, equals, isEntity, isMap, NodeRef, ownEntry, RelRef, setEntry, typeName, VirtualNode, VirtualRel, type MapValue, type Value } from './values.js';

/** One binding of variables to values. */
export type Row = Record<string, Value>;

export interface EvalContext {
  tx: GraphTx;
  /** Own properties only: a missing `$constructor` is missing. */
  params: Record<string, Value>;
  guard: QueryGuard;
  distance: Distance;
  /** While projecting an aggregation: each aggregate call's value for the current group. */
  aggregates?: Map<Expr, Value>;
  /**
   * Runs clauses seeded with a row, handing each row they produce to `visit` until it answers
   * false (the executor provides it, for EXISTS, COUNT and pattern expressions).
   */
  subquery?: (clauses: Clause[], row: Row, visit: (r: Row) => boolean) => void;
  /** The server's databases, for SHOW DATABASES (Bolt passes them; elsewhere the collection queried is the one). */
  catalog?: DatabaseCatalog;
  /** Where a batch of apoc.periodic is logged: only a query run in slices by the server's write path has one. */
  batches?: BatchCommits;
}

const typeError = (message: string) => runtimeError('TypeError', 'InvalidArgumentType', message);

function truth(v: Value, op: string): boolean | null {
  if (v === null || typeof v === 'boolean') return v;
  throw typeError(`${op} takes booleans, got a ${typeName(v)}`);
}

/** A property of a node, relationship or map; `n.embedding` is the node's vector. */
export function property(v: Value, key: string, ctx: EvalContext): Value {
  if (v === null) return null;
  if (v instanceof NodeRef) {
    // The payload alone for most keys: reading the whole node would make a vector view per access.
    const payload = ctx.tx.payloadOf(v.id);
    if (!payload) throw runtimeError('EntityNotFound', 'DeletedEntityAccess', `node ${v.id} was deleted; its properties cannot be read`);
    if (key === 'embedding') {
      const vector = ctx.tx.node(v.id)!.vector;
      if (vector) return Array.from(vector, float);
    }
    return storedProperty(payload, key) ?? null;
  }
  if (v instanceof RelRef) {
    const e = ctx.tx.edge(v.id);
    if (!e) throw runtimeError('EntityNotFound', 'DeletedEntityAccess', `relationship ${v.id} was deleted; its properties cannot be read`);
    if (key === 'weight') return float(e.weight);
    return storedProperty(e.properties, key) ?? null;
  }
  if (isMap(v)) return ownEntry(v, key) ?? null;
  if (v instanceof VirtualNode || v instanceof VirtualRel) return ownEntry(v.properties, key) ?? null;
  if (v instanceof CypherPoint) {
    const component = pointComponent(v, key);
    if (component === undefined) throw runtimeError('SyntaxError', 'InvalidArgumentValue', `a ${v.crs} point has no component "${key}"`);
    return component;
  }
  if (isTemporal(v)) {
    const component = temporalComponent(v, key);
    if (component === undefined) throw runtimeError('SyntaxError', 'InvalidArgumentValue', `a ${typeName(v)} has no component "${key}"`);
    return component;
  }
  throw typeError(`cannot read property "${key}" of a ${typeName(v)}`);
}

/** The collection's raw distance (DECISIONS: Cosine 1 - cos, Dot -a·b, Euclid the L2 distance, Manhattan the L1 distance). */
export function rawDistance(a: Value, b: Value, distance: Distance): Value {
  if (a === null || b === null) return null;
  if (!Array.isArray(a) || !Array.isArray(b)) throw typeError(`<-> takes two vectors (lists of numbers), got a ${typeName(a)} and a ${typeName(b)}`);
  if (a.length !== b.length) throw typeError(`<-> takes vectors of the same dimension, got ${a.length} and ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  let sq = 0;
  let abs = 0;
  for (let i = 0; i < a.length; i++) {
    const p = a[i];
    const q = b[i];
    if (!isNumber(p) || !isNumber(q)) throw typeError('<-> takes vectors of numbers');
    const x = numberOf(p);
    const y = numberOf(q);
    dot += x * y;
    na += x * x;
    nb += y * y;
    sq += (x - y) * (x - y);
    abs += Math.abs(x - y);
  }
  if (distance === 'Euclid') return float(Math.sqrt(sq));
  if (distance === 'Manhattan') return float(abs);
  if (distance === 'Dot') return float(-dot);
  return float(na === 0 || nb === 0 ? 1 : 1 - dot / Math.sqrt(na * nb));
}

function arithmetic(op: string, a: Value, b: Value, guard: QueryGuard): Value {
  if (a === null || b === null) return null;
  if (op === '+') {
    if (Array.isArray(a) || Array.isArray(b)) {
      const length = (Array.isArray(a) ? a.length : 1) + (Array.isArray(b) ? b.length : 1);
      guard.charge(listBytes(length), 'a list concatenation');
      guard.step(length);
      if (Array.isArray(a)) return Array.isArray(b) ? [...a, ...b] : [...a, b];
      return [a, ...(b as Value[])];
    }
    if (typeof a === 'string' || typeof b === 'string') {
      if ((typeof a === 'string' || isNumber(a)) && (typeof b === 'string' || isNumber(b))) {
        const left = typeof a === 'string' ? a : numberText(a);
        const right = typeof b === 'string' ? b : numberText(b);
        guard.charge(stringBytes(left.length + right.length), 'a string concatenation');
        return left + right;
      }
    }
  }
  if (isTemporal(a) || isTemporal(b)) return temporalArithmetic(op, a, b);
  if (!isNumber(a) || !isNumber(b)) throw typeError(`${op} cannot combine a ${typeName(a)} and a ${typeName(b)}`);
  const x = numberOf(a);
  const y = numberOf(b);
  // INTEGER op INTEGER is an INTEGER (division truncates); a FLOAT on either side makes a FLOAT.
  if (isIntegral(a) && isIntegral(b)) {
    if (op === '^') return float(x ** y);
    if ((op === '/' || op === '%') && (y === 0 || b === 0n)) throw runtimeError('ArithmeticError', 'DivisionByZero', `integer ${op === '/' ? 'division' : 'modulo'} by zero`);
    if (typeof a === 'number' && typeof b === 'number') {
      const exact = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : op === '/' ? Math.trunc(x / y) : x % y;
      if (Number.isSafeInteger(exact)) return exact + 0;
    }
    return integerArithmetic(op, BigInt(a), BigInt(b));
  }
  switch (op) {
    case '+':
      return float(x + y);
    case '-':
      return float(x - y);
    case '*':
      return float(x * y);
    case '/':
      return float(x / y);
    case '%':
      return float(x % y);
    default:
      return float(x ** y);
  }
}

/** INTEGER arithmetic beyond 2^53, exact in 64 bits (a result past them is an IntegerOverflow, as in Neo4j). */
function integerArithmetic(op: string, x: bigint, y: bigint): number | bigint {
  const exact = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : op === '/' ? x / y : x % y;
  return integerResult(exact, op);
}

/** The list forms that bind a variable to each element: comprehensions, quantifiers and reduce. */
function iterate(e: Extract<Expr, { kind: 'comprehension' | 'quantifier' | 'reduce' }>, row: Row, ctx: EvalContext): Value {
  const list = evaluate(e.list, row, ctx);
  if (list === null) return null;
  if (!Array.isArray(list)) throw typeError(`${e.kind === 'reduce' ? 'reduce' : e.kind === 'quantifier' ? e.quantifier : 'a list comprehension'} iterates over a list, got a ${typeName(list)}`);
  const scope: Row = { ...row };
  if (e.kind === 'reduce') {
    let acc = evaluate(e.init, row, ctx);
    for (const item of list) {
      ctx.guard.step();
      scope[e.accumulator] = acc;
      scope[e.variable] = item;
      acc = evaluate(e.expr, scope, ctx);
    }
    return acc;
  }
  if (e.kind === 'comprehension') {
    ctx.guard.charge(listBytes(list.length), 'a list comprehension');
    const out: Value[] = [];
    for (const item of list) {
      ctx.guard.step();
      scope[e.variable] = item;
      if (e.where && evaluate(e.where, scope, ctx) !== true) continue;
      out.push(e.map ? evaluate(e.map, scope, ctx) : item);
    }
    return out;
  }
  let trues = 0;
  let nulls = 0;
  for (const item of list) {
    ctx.guard.step();
    scope[e.variable] = item;
    const v = evaluate(e.where, scope, ctx);
    if (v === null) nulls++;
    else if (v === true) trues++;
    else if (v !== false) throw typeError(`the predicate of ${e.quantifier}() must be a boolean, got a ${typeName(v)}`);
  }
  const falses = list.length - trues - nulls;
  switch (e.quantifier) {
    case 'all':
      return falses > 0 ? false : nulls > 0 ? null : true;
    case 'any':
      return trues > 0 ? true : nulls > 0 ? null : false;
    case 'none':
      return trues > 0 ? false : nulls > 0 ? null : true;
    case 'single':
      return trues > 1 ? false : nulls > 0 ? null : trues === 1;
  }
}

/** `a || b` (Neo4j 5): two strings or two lists joined; null if either is null. */
function concatenate(a: Value, b: Value, guard: QueryGuard): Value {
  if (a === null || b === null) return null;
  if (typeof a === 'string' && typeof b === 'string') {
    guard.charge(stringBytes(a.length + b.length), 'a string concatenation');
    return a + b;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    guard.charge(listBytes(a.length + b.length), 'a list concatenation');
    guard.step(a.length + b.length);
    return [...a, ...b];
  }
  throw typeError(`|| joins two strings or two lists, not a ${typeName(a)} and a ${typeName(b)}`);
}

/** Durations added to or taken from temporal values and each other, and scaled by numbers. */
function temporalArithmetic(op: string, a: Value, b: Value): Value {
  const refuse = () => typeError(`${op} cannot combine a ${typeName(a)} and a ${typeName(b)}`);
  const isDuration = (v: Value): v is CypherDuration => v instanceof CypherDuration;
  switch (op) {
    case '+':
      if (isDuration(a) && isDuration(b)) return addDurations(a, b);
      if (isDuration(b) && isTemporal(a)) return addDuration(a as Temporal, b);
      if (isDuration(a) && isTemporal(b)) return addDuration(b as Temporal, a);
      throw refuse();
    case '-':
      if (isDuration(a) && isDuration(b)) return addDurations(a, negate(b));
      if (isDuration(b) && isTemporal(a)) return subtractDuration(a as Temporal, b);
      throw refuse();
    case '*':
      if (isDuration(a) && isNumber(b)) return multiplyDuration(a, numberOf(b), isInteger(b));
      if (isDuration(b) && isNumber(a)) return multiplyDuration(b, numberOf(a), isInteger(a));
      throw refuse();
    case '/':
      if (isDuration(a) && isNumber(b)) {
        if (numberOf(b) === 0) throw runtimeError('ArithmeticError', 'DivisionByZero', 'a duration divided by zero');
        return divideDuration(a, numberOf(b));
      }
      throw refuse();
    default:
      throw refuse();
  }
}

/** `s =~ pattern`: the whole string matches Java's pattern (regex.ts). */
function regexMatch(s: Value, pattern: Value): Value {
  if (typeof s !== 'string' || typeof pattern !== 'string') return null;
  return javaRegex(pattern).test(s);
}

function stringPredicate(op: string, a: Value, b: Value): Value {
  if (typeof a !== 'string' || typeof b !== 'string') return null;
  return op === 'starts' ? a.startsWith(b) : op === 'ends' ? a.endsWith(b) : a.includes(b);
}

function inList(item: Value, list: Value, guard: QueryGuard): Value {
  if (list === null) return null;
  if (!Array.isArray(list)) throw typeError(`IN takes a list on its right, got a ${typeName(list)}`);
  guard.step(list.length);
  let unknown = false;
  for (const x of list) {
    const e = equals(item, x);
    if (e === true) return true;
    if (e === null) unknown = true;
  }
  return unknown ? null : false;
}

function compareChain(ops: string[], values: Value[]): Value {
  let result: boolean | null = true;
  for (let i = 0; i < ops.length; i++) {
    const a = values[i]!;
    const b = values[i + 1]!;
    let r: boolean | null;
    if (ops[i] === '=') r = equals(a, b);
    else if (ops[i] === '<>') {
      const e = equals(a, b);
      r = e === null ? null : !e;
    } else {
      const c = compare(a, b);
      r = c === null ? null : ops[i] === '<' ? c < 0 : ops[i] === '<=' ? c <= 0 : ops[i] === '>' ? c > 0 : c >= 0;
    }
    if (r === false) return false;
    if (r === null) result = null;
  }
  return result;
}

export function evaluate(e: Expr, row: Row, ctx: EvalContext): Value {
  switch (e.kind) {
    case 'literal':
      return e.isFloat && typeof e.value === 'number' ? float(e.value) : e.value;
    case 'param': {
      if (!Object.hasOwn(ctx.params, e.name)) throw runtimeError('ParameterMissing', 'MissingParameter', `Expected parameter(s): ${e.name}`);
      return ctx.params[e.name]!;
    }
    case 'var':
      return ownEntry(row, e.name) ?? null;
    case 'prop':
      return property(evaluate(e.object, row, ctx), e.key, ctx);
    case 'list':
      ctx.guard.charge(listBytes(e.items.length), 'a list literal');
      return e.items.map((x) => evaluate(x, row, ctx));
    case 'map': {
      ctx.guard.charge(ROW_BYTES + listBytes(2 * e.entries.length), 'a map literal');
      const m: Record<string, Value> = {};
      for (const [k, x] of e.entries) setEntry(m, k, evaluate(x, row, ctx));
      return m;
    }
    case 'unary': {
      const v = evaluate(e.arg, row, ctx);
      if (e.op === 'not') {
        const t = truth(v, 'NOT');
        return t === null ? null : !t;
      }
      if (v === null) return null;
      if (!isNumber(v)) throw typeError(`unary ${e.op} takes a number, got a ${typeName(v)}`);
      if (e.op !== '-') return v;
      if (typeof v === 'bigint') return integerResult(-v, 'unary -');
      return typeof v === 'number' ? (Number.isInteger(v) ? 0 - v : -v) : new WholeFloat(-v.value);
    }
    case 'binary': {
      if (e.op === 'and' || e.op === 'or' || e.op === 'xor') {
        const a = truth(evaluate(e.left, row, ctx), e.op.toUpperCase());
        if (e.op === 'and' && a === false) return false;
        if (e.op === 'or' && a === true) return true;
        const b = truth(evaluate(e.right, row, ctx), e.op.toUpperCase());
        if (e.op === 'and') return b === false ? false : a === null || b === null ? null : true;
        if (e.op === 'or') return b === true ? true : a === null || b === null ? null : false;
        return a === null || b === null ? null : a !== b;
      }
      const a = evaluate(e.left, row, ctx);
      const b = evaluate(e.right, row, ctx);
      switch (e.op) {
        case 'starts':
        case 'ends':
        case 'contains':
          return stringPredicate(e.op, a, b);
        case 'in':
          return inList(a, b, ctx.guard);
        case '<->':
          return rawDistance(a, b, ctx.distance);
        case '=~':
          return regexMatch(a, b);
        case '||':
          return concatenate(a, b, ctx.guard);
        default:
          return arithmetic(e.op, a, b, ctx.guard);
      }
    }
    case 'compare':
      return compareChain(e.ops, e.args.map((x) => evaluate(x, row, ctx)));
    case 'isNull': {
      const isNull = evaluate(e.arg, row, ctx) === null;
      return e.negated ? !isNull : isNull;
    }
    case 'isType':
      return isOfType(evaluate(e.arg, row, ctx), e.type, e.notNull) !== e.negated;
    case 'index': {
      const list = evaluate(e.object, row, ctx);
      const index = evaluate(e.index, row, ctx);
      if (list === null || index === null) return null;
      if (Array.isArray(list)) {
        if (typeof index !== 'number' || !Number.isInteger(index)) throw typeError(`a list index must be an integer, got a ${typeName(index)}`);
        return list[index < 0 ? list.length + index : index] ?? null;
      }
      if (typeof index === 'string') return property(list, index, ctx);
      if (isMap(list) || isEntity(list)) throw runtimeError('TypeError', 'MapElementAccessByNonString', `a map, node or relationship is indexed by a string key, not a ${typeName(index)}`);
      throw typeError(`cannot index a ${typeName(list)} with a ${typeName(index)}`);
    }
    case 'comprehension':
    case 'quantifier':
    case 'reduce':
      return iterate(e, row, ctx);
    case 'slice': {
      const list = evaluate(e.object, row, ctx);
      const from = e.from ? evaluate(e.from, row, ctx) : 0;
      const to = e.to ? evaluate(e.to, row, ctx) : undefined;
      if (list === null || from === null || to === null) return null;
      if (!Array.isArray(list)) throw typeError(`only a list can be sliced, got a ${typeName(list)}`);
      for (const bound of [from, to]) if (bound !== undefined && (typeof bound !== 'number' || !Number.isInteger(bound))) throw typeError(`a list slice bound must be an integer, got a ${typeName(bound)}`);
      ctx.guard.charge(listBytes(list.length), 'a list slice');
      return list.slice(from as number, to as number | undefined);
    }
    case 'mapProjection': {
      const source = evaluate(e.object, row, ctx);
      if (source === null) return null;
      const props = isEntity(source) ? propertiesOf(source, ctx.tx) : isMap(source) ? source : null;
      if (props === null) throw typeError(`a map projection reads a node, relationship or map, got a ${typeName(source)}`);
      const out: MapValue = {};
      for (const item of e.items) {
        if (item.kind === 'all') for (const [k, v] of Object.entries(props)) setEntry(out, k, v);
        else if (item.kind === 'property') setEntry(out, item.key, ownEntry(props, item.key) ?? null);
        else setEntry(out, item.key, evaluate(item.expr, row, ctx));
      }
      return out;
    }
    case 'case': {
      const subject = e.subject ? evaluate(e.subject, row, ctx) : undefined;
      for (const [when, then] of e.whens) {
        const hit = subject === undefined ? evaluate(when, row, ctx) === true : equals(subject, evaluate(when, row, ctx)) === true;
        if (hit) return evaluate(then, row, ctx);
      }
      return e.otherwise ? evaluate(e.otherwise, row, ctx) : null;
    }
    case 'hasLabels': {
      const v = evaluate(e.arg, row, ctx);
      if (v === null) return null;
      // On a relationship, `r:T` tests its type (as Neo4j 5 reads it).
      if (v instanceof RelRef) {
        const type = (ctx.tx.edge(v.id) ?? ctx.tx.deletedEdge(v.id))?.type;
        return e.expr ? labelExprMatches(e.expr, type === undefined ? [] : [type]) : e.labels.every((l) => l === type);
      }
      if (v instanceof VirtualRel) return e.expr ? labelExprMatches(e.expr, [v.type]) : e.labels.every((l) => l === v.type);
      if (!(v instanceof NodeRef) && !(v instanceof VirtualNode)) throw typeError(`a label test takes a node or relationship, got a ${typeName(v)}`);
      const labels = v instanceof VirtualNode ? v.labels : (ctx.tx.labelsOf(v.id) ?? []);
      return e.expr ? labelExprMatches(e.expr, labels) : e.labels.every((l) => labels.includes(l));
    }
    case 'subqueryExpr':
      return subqueryValue(e, row, ctx);
    case 'call': {
      const agg = ctx.aggregates?.get(e);
      if (agg !== undefined) return agg;
      if (e.name === 'exists') return e.args[0]!.kind === 'subqueryExpr' ? evaluate(e.args[0]!, row, ctx) : evaluate(e.args[0]!, row, ctx) !== null;
      const fn = FUNCTIONS[e.name];
      if (!fn?.call) throw runtimeError('SyntaxError', 'InvalidAggregation', `${e.name}() cannot be used here`);
      return fn.call(e.args.map((x) => evaluate(x, row, ctx)), ctx);
    }
  }
}

/** EXISTS (any row), COUNT (how many) or a pattern comprehension (the list of `map` over the rows). */
function subqueryValue(e: Extract<Expr, { kind: 'subqueryExpr' }>, row: Row, ctx: EvalContext): Value {
  const run = ctx.subquery;
  if (!run) throw runtimeError('SyntaxError', 'Unsupported', 'subqueries are not available here');
  const { guard } = ctx;
  if (e.mode === 'exists') {
    let found = false;
    run(e.body, row, () => {
      found = true;
      return false;
    });
    return found;
  }
  if (e.mode === 'count') {
    let n = 0;
    run(e.body, row, () => {
      n++;
      return true;
    });
    return n;
  }
  const out: Value[] = [];
  run(e.body, row, (r) => {
    const v = evaluate(e.map!, r, ctx);
    guard.charge(listBytes(1) + sizeOf(v), 'a pattern comprehension');
    out.push(v);
    return true;
  });
  return out;
}

/** WHERE semantics: only true keeps the row (null and false drop it). */
export const isTrue = (e: Expr, row: Row, ctx: EvalContext): boolean => evaluate(e, row, ctx) === true;
