import type { FunctionDef } from '../functions.js';
import { isMap, keyOf, ownEntry, setEntry, type MapValue, type Value } from '../values.js';
import { javaText } from '../apoc-functions.js';
import { apocFunction, given, listArg, mapArg, stringArg } from './args.js';

/** The apoc.map functions, as APOC 5 computes them: a null map reads as an empty one where APOC's does. */

const mapOrEmpty = (v: Value | undefined, fail: (m: string) => Error): MapValue => (given(v) ? mapArg(v, fail) : {});

function put(m: MapValue, key: string, value: Value): MapValue {
  setEntry(m, key, value);
  return m;
}

function fromEntries(entries: [Value, Value][], fail: (m: string) => Error): MapValue {
  const out: MapValue = {};
  for (const [k, v] of entries) put(out, stringArg(k, fail), v);
  return out;
}

/** `recursive`: also from the maps inside, and the maps in lists inside. */
function withoutKeys(m: MapValue, keys: Set<string>, recursive: boolean): MapValue {
  const strip = (v: Value): Value => (!recursive ? v : isMap(v) ? withoutKeys(v, keys, true) : Array.isArray(v) ? v.map(strip) : v);
  const out: MapValue = {};
  for (const [k, v] of Object.entries(m)) if (!keys.has(k)) put(out, k, strip(v));
  return out;
}

function flatten(m: MapValue, delimiter: string, prefix = '', out: MapValue = {}): MapValue {
  for (const [k, v] of Object.entries(m)) {
    if (isMap(v)) flatten(v, delimiter, `${prefix}${k}${delimiter}`, out);
    else put(out, prefix + k, v);
  }
  return out;
}

function unflatten(m: MapValue, delimiter: string): MapValue {
  const out: MapValue = {};
  for (const [k, v] of Object.entries(m)) {
    const path = k.split(delimiter);
    let at = out;
    for (const part of path.slice(0, -1)) {
      const next = ownEntry(at, part);
      at = isMap(next ?? null) ? (next as MapValue) : (put(at, part, {}), at[part] as MapValue);
    }
    put(at, path[path.length - 1]!, v);
  }
  return out;
}

const recursiveOption = (config: Value | undefined, fail: (m: string) => Error) => ownEntry(mapOrEmpty(config, fail), 'recursive') === true;

function groupBy(list: Value, key: Value, fail: (m: string) => Error, multi: boolean): MapValue {
  const k = stringArg(key, fail);
  const out: MapValue = {};
  for (const item of listArg(list, fail)) {
    if (!isMap(item)) continue;
    const value = ownEntry(item, k);
    if (value === undefined || value === null) continue;
    const group = javaText(value);
    if (!multi) put(out, group, item);
    else put(out, group, [...((ownEntry(out, group) as Value[] | undefined) ?? []), item]);
  }
  return out;
}

export const APOC_MAP_FUNCTIONS: Record<string, FunctionDef> = Object.fromEntries([
  apocFunction('apoc.map.merge', 2, 2, ([a, b], fail) => ({ ...mapOrEmpty(a, fail), ...mapOrEmpty(b, fail) })),
  apocFunction('apoc.map.mergeList', 1, 1, ([l], fail) => Object.assign({}, ...(given(l) ? listArg(l, fail) : []).map((m) => mapOrEmpty(m, fail))) as MapValue),
  apocFunction('apoc.map.fromPairs', 1, 1, ([l], fail) =>
    fromEntries((given(l) ? listArg(l, fail) : []).filter((p) => Array.isArray(p) && p.length > 0).map((p) => [(p as Value[])[0]!, (p as Value[])[1] ?? null]), fail),
  ),
  apocFunction('apoc.map.fromLists', 2, 2, ([ks, vs], fail) => {
    if (!given(ks) || !given(vs)) return {};
    const keys = listArg(ks, fail);
    const values = listArg(vs, fail);
    if (keys.length !== values.length) throw fail('keys and values lists have to be of equal size');
    return fromEntries(keys.map((k, i) => [k, values[i]!]), fail);
  }),
  apocFunction('apoc.map.fromValues', 1, 1, ([l], fail) => {
    const list = given(l) ? listArg(l, fail) : [];
    if (list.length % 2 !== 0) throw fail('expected an even number of values: key, value, key, value …');
    return fromEntries(list.flatMap((k, i) => (i % 2 === 0 ? [[k, list[i + 1]!] as [Value, Value]] : [])), fail);
  }),
  apocFunction('apoc.map.setKey', 3, 3, ([m, k, v], fail) => put({ ...mapOrEmpty(m, fail) }, stringArg(k ?? null, fail), v ?? null)),
  apocFunction('apoc.map.setEntry', 3, 3, ([m, k, v], fail) => put({ ...mapOrEmpty(m, fail) }, stringArg(k ?? null, fail), v ?? null)),
  apocFunction('apoc.map.setPairs', 2, 2, ([m, l], fail) => ({ ...mapOrEmpty(m, fail), ...fromEntries((given(l) ? listArg(l, fail) : []).map((p) => [listArg(p, fail)[0] ?? null, (p as Value[])[1] ?? null]), fail) })),
  apocFunction('apoc.map.removeKey', 2, 3, ([m, k, config], fail) => withoutKeys(mapOrEmpty(m, fail), new Set([stringArg(k ?? null, fail)]), recursiveOption(config, fail))),
  apocFunction('apoc.map.removeKeys', 2, 3, ([m, ks, config], fail) => withoutKeys(mapOrEmpty(m, fail), new Set((given(ks) ? listArg(ks, fail) : []).map((k) => stringArg(k, fail))), recursiveOption(config, fail))),
  apocFunction('apoc.map.clean', 3, 3, ([m, ks, vs], fail) => {
    const keys = new Set((given(ks) ? listArg(ks, fail) : []).map((k) => stringArg(k, fail)));
    // APOC compares a value with the listed ones as Java objects, and as text.
    const values = new Set((given(vs) ? listArg(vs, fail) : []).flatMap((v) => [keyOf(v), keyOf(javaText(v))]));
    const out: MapValue = {};
    for (const [k, v] of Object.entries(mapOrEmpty(m, fail))) if (!keys.has(k) && v !== null && !values.has(keyOf(v)) && !values.has(keyOf(javaText(v)))) put(out, k, v);
    return out;
  }),
  apocFunction('apoc.map.flatten', 1, 2, ([m, d], fail) => flatten(mapOrEmpty(m, fail), given(d) ? stringArg(d, fail) : '.')),
  apocFunction('apoc.map.unflatten', 1, 2, ([m, d], fail) => unflatten(mapOrEmpty(m, fail), given(d) ? stringArg(d, fail) : '.')),
  apocFunction('apoc.map.values', 1, 3, ([m, ks, nulls], fail) => {
    const map = mapOrEmpty(m, fail);
    const keys = (given(ks) ? listArg(ks, fail) : []).map((k) => stringArg(k, fail));
    return keys.filter((k) => nulls === true || Object.hasOwn(map, k)).map((k) => ownEntry(map, k) ?? null);
  }),
  apocFunction('apoc.map.submap', 2, 4, ([m, ks, defaults, failing], fail) => {
    const map = mapOrEmpty(m, fail);
    const fallback = given(defaults) ? listArg(defaults, fail) : [];
    const out: MapValue = {};
    (given(ks) ? listArg(ks, fail) : []).forEach((k, i) => {
      const key = stringArg(k, fail);
      if (Object.hasOwn(map, key)) put(out, key, map[key]!);
      else if (i < fallback.length) put(out, key, fallback[i]!);
      else if (failing !== false) throw fail(`Key ${key} is not of one of the existing keys ${javaText(Object.keys(map))}`);
      else put(out, key, null);
    });
    return out;
  }),
  apocFunction('apoc.map.groupBy', 2, 2, ([l, k], fail) => (given(l) ? groupBy(l, k ?? null, fail, false) : {})),
  apocFunction('apoc.map.groupByMulti', 2, 2, ([l, k], fail) => (given(l) ? groupBy(l, k ?? null, fail, true) : {})),
]);
