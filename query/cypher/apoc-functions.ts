import type { FunctionDef } from './functions.js';
import { isNumber, numberText } from './numbers.js';
import { procedureError } from './procedures/types.js';
import { JavaFormatError, readJavaFormat, writeJavaFormat } from './temporal/java-format.js';
import { isTemporal } from './temporal/types.js';
import { formatTemporal } from './temporal/format.js';
import { isMap, NodeRef, RelRef, typeName, type Value } from './values.js';

/** How Neo4j words an APOC routine's failure; tools such as @neo4j/graphql read the text after "Caused by". */
export const apocFailure = (kind: 'procedure' | 'function', name: string, message: string) =>
  procedureError('ProcedureCallFailed', `Failed to invoke ${kind} \`${name}\`: Caused by: java.lang.RuntimeException: ${message}`);

/** A value as Java's toString writes it (what String.format's %s gives APOC). */
export function javaText(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (isNumber(v)) return numberText(v);
  if (isTemporal(v)) return formatTemporal(v);
  if (Array.isArray(v)) return `[${v.map(javaText).join(', ')}]`;
  if (v instanceof NodeRef || v instanceof RelRef) return `${v instanceof NodeRef ? 'Node' : 'Relationship'}[${String(v.id)}]`;
  if (isMap(v)) return `{${Object.entries(v).map(([k, x]) => `${k}=${javaText(x)}`).join(', ')}}`;
  return typeName(v);
}

/** Java's String.format for the conversions messages use: %s %S %d %f %b %n %% (with an n$ index, a width and a precision). */
export function javaStringFormat(format: string, params: Value[], fail: (message: string) => Error): string {
  let next = 0;
  return format.replace(/%(?:(\d+)\$)?(-)?(\d+)?(?:\.(\d+))?([sSdfbn%])/g, (_all, index: string | undefined, left: string | undefined, width: string | undefined, precision: string | undefined, conv: string) => {
    if (conv === '%') return '%';
    if (conv === 'n') return '\n';
    const at = index ? Number(index) - 1 : next++;
    if (at >= params.length) throw fail(`Format specifier '%${conv}' has no argument (${params.length} given)`);
    const v = params[at]!;
    let text: string;
    if (conv === 'd' || conv === 'f') {
      if (!isNumber(v)) throw fail(`%${conv} != ${typeName(v)}`);
      text = conv === 'f' ? Number(numberText(v)).toFixed(precision ? Number(precision) : 6) : numberText(v);
    } else if (conv === 'b') text = String(v !== null && v !== false);
    else text = javaText(v);
    if (conv === 'S') text = text.toUpperCase();
    if (conv !== 'f' && precision) text = text.slice(0, Number(precision));
    const w = width ? Number(width) : 0;
    return left ? text.padEnd(w) : text.padStart(w);
  });
}

/** APOC's message parameters: a list, one value, or none. */
export const paramsOf = (v: Value | undefined): Value[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);

/** apoc.util.validatePredicate(predicate, message, params): fails the query when the predicate holds, else true. */
function validatePredicate([predicate, message, params]: Value[]): Value {
  const name = 'apoc.util.validatePredicate';
  if (predicate !== true) return true;
  const fail = (m: string) => apocFailure('function', name, m);
  throw fail(javaStringFormat(typeof message === 'string' ? message : javaText(message ?? null), paramsOf(params), fail));
}

/** apoc.date.convertFormat(text, from, to = 'yyyy-MM-dd'): a date or time read by one java.time format, written by another. */
function convertFormat([text, from, to]: Value[]): Value {
  const name = 'apoc.date.convertFormat';
  if (text === null || text === undefined) return null;
  if (typeof text !== 'string' || typeof from !== 'string' || (to !== undefined && to !== null && typeof to !== 'string')) {
    throw apocFailure('function', name, 'the text and the formats must be strings');
  }
  try {
    return writeJavaFormat(readJavaFormat(text, from), typeof to === 'string' ? to : 'yyyy-MM-dd');
  } catch (e) {
    if (e instanceof JavaFormatError) throw apocFailure('function', name, e.message);
    throw e;
  }
}

/** The APOC functions tools generate (@neo4j/graphql's validations and date-times), by lower-case name. */
export const APOC_FUNCTIONS: Record<string, FunctionDef> = {
  'apoc.util.validatepredicate': { minArgs: 3, maxArgs: 3, display: 'apoc.util.validatePredicate', call: validatePredicate },
  'apoc.date.convertformat': { minArgs: 2, maxArgs: 3, display: 'apoc.date.convertFormat', call: convertFormat },
};
