import { apocFailure, javaStringFormat, paramsOf } from '../apoc-functions.js';
import type { Procedure } from './types.js';

/** apoc.util.validate(predicate, message, params): fails the query, with the message formatted as Java's String.format does, when the predicate holds. */
export const APOC_UTIL_PROCEDURES: Procedure[] = [
  {
    name: 'apoc.util.validate',
    display: 'apoc.util.validate',
    mode: 'read',
    minArgs: 3,
    maxArgs: 3,
    outputs: [],
    run: ([predicate, message, params]) => {
      if (predicate !== true) return [];
      const fail = (m: string) => apocFailure('procedure', 'apoc.util.validate', m);
      throw fail(javaStringFormat(typeof message === 'string' ? message : String(message), paramsOf(params), fail));
    },
  },
];
