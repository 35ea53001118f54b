import type { FunctionDef } from '../functions.js';
import { float, isFloat, isNumber, numberOf } from '../numbers.js';
import { property, type EvalContext } from '../evaluate.js';
import { compare, keyOf, NodeRef, orderCompare, type Value } from '../values.js';
import { apocFunction, given, integerArg, listArg, stringArg } from './args.js';

/**
 * The apoc.coll functions, as APOC 5 computes them. APOC compares elements with Java's equals:
 * the integer 1 and the float 1.0 are different elements, so the key here keeps a float apart.
 */
const elementKey = (v: Value): string => (isFloat(v) ? 'f' : '') + keyOf(v);

/** The distinct elements, in the order they first appear. */
function distinct(list: Value[]): Value[] {
  const seen = new Map<string, Value>();
  for (const v of list) if (!seen.has(elementKey(v))) seen.set(elementKey(v), v);
  return [...seen.values()];
}

const keys = (list: Value[]) => new Set(list.map(elementKey));

function numbers(v: Value, fail: (m: string) => Error): number[] {
  return listArg(v, fail).map((x) => {
    if (!isNumber(x)) throw fail(`expected a list of numbers, got an element ${x === null ? 'null' : 'of another type'}`);
    return numberOf(x);
  });
}

/** The elements of the lists in `v` (one level; every level when `recursive`). */
function flatten(v: Value, recursive: boolean, depth = 0): Value[] {
  if (!Array.isArray(v) || (!recursive && depth === 2)) return [v];
  return v.flatMap((x) => flatten(x, recursive, depth + 1));
}

/** Cypher's `x < best` as apoc.coll.min/max fold it: an element that does not compare is passed over. */
function extreme(list: Value[], sign: 1 | -1): Value {
  let best: Value = null;
  for (const x of list) {
    if (best === null) best = x;
    else if (x !== null && (compare(x, best) ?? 0) * sign < 0) best = x;
  }
  return best;
}

/** The order apoc.coll.sortNodes sorts property values in: null first, then as ORDER BY orders values. */
function apocCompare(a: Value, b: Value): number {
  if (a === null) return b === null ? 0 : -1;
  if (b === null) return 1;
  return orderCompare(a, b);
}

/** apoc.coll.sortNodes(nodes, property): descending by the property, ascending when it starts with '^'. */
function sortNodes([l, p]: Value[], fail: (m: string) => Error, ctx: EvalContext): Value {
  if (!given(l) || (l as Value[]).length === 0) return [];
  const prop = stringArg(p ?? null, fail);
  const ascending = prop.startsWith('^');
  const key = ascending ? prop.slice(1) : prop;
  const value = (n: Value) => (n instanceof NodeRef ? property(n, key, ctx) : null);
  return [...listArg(l, fail)].sort((a, b) => (ascending ? 1 : -1) * apocCompare(value(a), value(b)));
}

export const APOC_COLL_FUNCTIONS: Record<string, FunctionDef> = Object.fromEntries([
  apocFunction('apoc.coll.toSet', 1, 1, ([l], fail) => (given(l) ? distinct(listArg(l, fail)) : null)),
  apocFunction('apoc.coll.flatten', 1, 2, ([l, r], fail) => (given(l) ? flatten(listArg(l, fail), r === true) : [])),
  apocFunction('apoc.coll.sum', 1, 1, ([l], fail) => (given(l) && (l as Value[]).length > 0 ? float(numbers(l, fail).reduce((s, x) => s + x, 0)) : null)),
  apocFunction('apoc.coll.avg', 1, 1, ([l], fail) => {
    if (!given(l) || (l as Value[]).length === 0) return null;
    const xs = numbers(l, fail);
    return float(xs.reduce((s, x) => s + x, 0) / xs.length);
  }),
  apocFunction('apoc.coll.min', 1, 1, ([l], fail) => (given(l) ? extreme(listArg(l, fail), 1) : null)),
  apocFunction('apoc.coll.max', 1, 1, ([l], fail) => (given(l) ? extreme(listArg(l, fail), -1) : null)),
  apocFunction('apoc.coll.sort', 1, 1, ([l], fail) => (given(l) ? [...listArg(l, fail)].sort(orderCompare) : [])),
  apocFunction('apoc.coll.reverse', 1, 1, ([l], fail) => (given(l) ? [...listArg(l, fail)].reverse() : [])),
  apocFunction('apoc.coll.contains', 2, 2, ([l, v], fail) => given(l) && keys(listArg(l, fail)).has(elementKey(v ?? null))),
  apocFunction('apoc.coll.containsAll', 2, 2, ([l, vs], fail) => {
    if (!given(l) || !given(vs) || (l as Value[]).length === 0) return false;
    const have = keys(listArg(l, fail));
    return listArg(vs, fail).every((v) => have.has(elementKey(v)));
  }),
  apocFunction('apoc.coll.indexOf', 2, 2, ([l, v], fail) => (given(l) ? listArg(l, fail).findIndex((x) => elementKey(x) === elementKey(v ?? null)) : -1)),
  apocFunction('apoc.coll.union', 2, 2, ([a, b], fail) => {
    if (!given(a)) return b ?? null;
    if (!given(b)) return a;
    return distinct([...listArg(a, fail), ...listArg(b, fail)]);
  }),
  apocFunction('apoc.coll.unionAll', 2, 2, ([a, b], fail) => (!given(a) ? (b ?? null) : !given(b) ? a : [...listArg(a, fail), ...listArg(b, fail)])),
  apocFunction('apoc.coll.intersection', 2, 2, ([a, b], fail) => {
    if (!given(a) || !given(b)) return [];
    const other = keys(listArg(b, fail));
    return distinct(listArg(a, fail)).filter((x) => other.has(elementKey(x)));
  }),
  apocFunction('apoc.coll.subtract', 2, 2, ([a, b], fail) => {
    if (!given(a)) return null;
    const other = keys(given(b) ? listArg(b, fail) : []);
    return distinct(listArg(a, fail)).filter((x) => !other.has(elementKey(x)));
  }),
  apocFunction('apoc.coll.removeAll', 2, 2, ([a, b], fail) => {
    if (!given(a)) return null;
    const other = keys(given(b) ? listArg(b, fail) : []);
    return listArg(a, fail).filter((x) => !other.has(elementKey(x)));
  }),
  apocFunction('apoc.coll.zip', 2, 2, ([a, b], fail) => {
    if (!given(a) || !given(b)) return null;
    const second = listArg(b, fail);
    return second.length === 0 ? [] : listArg(a, fail).map((x, i) => [x, second[i] ?? null]);
  }),
  apocFunction('apoc.coll.pairs', 1, 1, ([l], fail) => (given(l) ? listArg(l, fail).map((x, i, all) => [x, all[i + 1] ?? null]) : null)),
  apocFunction('apoc.coll.pairsMin', 1, 1, ([l], fail) => {
    if (!given(l)) return null;
    const list = listArg(l, fail);
    return list.slice(0, -1).map((x, i) => [x, list[i + 1]!]);
  }),
  apocFunction('apoc.coll.frequencies', 1, 1, ([l], fail) => {
    const counts = new Map<string, { item: Value; count: number }>();
    for (const x of given(l) ? listArg(l, fail) : []) {
      const entry = counts.get(elementKey(x));
      if (entry) entry.count++;
      else counts.set(elementKey(x), { item: x, count: 1 });
    }
    return [...counts.values()].map(({ item, count }) => ({ item, count }));
  }),
  apocFunction('apoc.coll.duplicates', 1, 1, ([l], fail) => {
    const seen = new Set<string>();
    const twice = new Map<string, Value>();
    for (const x of given(l) ? listArg(l, fail) : []) {
      if (seen.has(elementKey(x))) twice.set(elementKey(x), x);
      seen.add(elementKey(x));
    }
    return [...twice.values()];
  }),
  apocFunction('apoc.coll.partition', 2, 2, ([l, size], fail) => {
    if (!given(l)) return [];
    const list = listArg(l, fail);
    const n = integerArg(size ?? null, fail);
    if (n <= 0) throw fail(`the batch size must be positive, got ${n}`);
    const out: Value[] = [];
    for (let i = 0; i < list.length; i += n) out.push(list.slice(i, i + n));
    return out;
  }),
  apocFunction('apoc.coll.sortNodes', 2, 2, sortNodes),
]);

