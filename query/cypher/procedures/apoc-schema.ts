import { property } from '../evaluate.js';
import { keyOf, NodeRef, type Value } from '../values.js';
import { expectArg, isString, type Procedure } from './types.js';

/**
 * apoc.schema.properties.distinct(label, key): one row, `value`, the distinct values of the
 * property on the label's nodes (nulls left out). APOC reads them from an index on the property;
 * here the label's nodes are read, index or not. LangChain's enhanced schema asks for it.
 */
export const APOC_SCHEMA_PROCEDURES: Procedure[] = [
  {
    name: 'apoc.schema.properties.distinct',
    display: 'apoc.schema.properties.distinct',
    mode: 'read',
    minArgs: 2,
    maxArgs: 2,
    outputs: ['value'],
    run: ([label, key], ctx) => {
      const proc = 'apoc.schema.properties.distinct';
      const l = expectArg(proc, 0, label!, isString, 'a label (a string)');
      const k = expectArg(proc, 1, key!, isString, 'a property key (a string)');
      const seen = new Map<string, Value>();
      for (const id of ctx.tx.nodesWithLabel(l)) {
        ctx.guard.step();
        const v = property(new NodeRef(id), k, ctx);
        if (v !== null && !seen.has(keyOf(v))) seen.set(keyOf(v), v);
      }
      return [{ value: [...seen.values()] }];
    },
  },
];
