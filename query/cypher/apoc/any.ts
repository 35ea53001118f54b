import { property, type EvalContext } from '../evaluate.js';
import type { FunctionDef } from '../functions.js';
import { propertiesOf } from '../functions.js';
import { isEntity, isMap, ownEntry, setEntry, type MapValue, type Value } from '../values.js';
import { apocFunction, given, listArg, stringArg } from './args.js';

/**
 * apoc.any.property and apoc.any.properties: a property, or the properties, of a node, a
 * relationship or a map, virtual nodes and relationships included (LangChain's enhanced schema
 * reads the `type` and `count` of apoc.meta.graphSample's virtual relationships with them).
 */

function entriesOf(thing: Value, ctx: EvalContext, fail: (m: string) => Error): MapValue {
  if (isEntity(thing)) return propertiesOf(thing, ctx.tx);
  if (isMap(thing)) return thing;
  throw fail('expected a node, a relationship or a map');
}

export const APOC_ANY_FUNCTIONS: Record<string, FunctionDef> = Object.fromEntries([
  apocFunction('apoc.any.property', 2, 2, ([thing, key], fail, ctx) => {
    if (!given(thing) || !given(key)) return null;
    if (!isEntity(thing) && !isMap(thing)) throw fail('expected a node, a relationship or a map');
    return property(thing, stringArg(key, fail), ctx);
  }),
  apocFunction('apoc.any.properties', 1, 2, ([thing, keys], fail, ctx) => {
    if (!given(thing)) return null;
    const all = entriesOf(thing, ctx, fail);
    if (!given(keys)) return all;
    const out: MapValue = {};
    for (const key of listArg(keys, fail)) {
      const k = stringArg(key, fail);
      const v = ownEntry(all, k);
      if (v !== undefined) setEntry(out, k, v);
    }
    return out;
  }),
]);
