import type { PathSelector } from './ast.js';
import { CypherError } from './errors.js';
import { evaluate, type EvalContext } from './evaluate.js';
import { isIntegral, isNumber, numberOf, WholeFloat } from './numbers.js';
import { typeName, type PathValue } from './values.js';

/** A fit of a pattern with a selector: the path it matched, and what it carries along. */
export interface Fit<T> {
  path: PathValue;
  item: T;
}

/**
 * The k of `SHORTEST k`, `ANY k` or `SHORTEST k GROUPS` (a literal or a parameter): a positive
 * integer. A JavaScript driver sends a plain number as a FLOAT; a whole one is taken as meant.
 */
export function selectorCount(selector: PathSelector, ctx: EvalContext): number {
  const v = evaluate(selector.count, {}, ctx);
  const n = isIntegral(v) ? Number(v) : v instanceof WholeFloat ? v.value : NaN;
  if (n >= 1) return n;
  const shown = isNumber(v) ? String(numberOf(v)) : v === null ? 'null' : `a ${typeName(v)}`;
  const what = selector.kind === 'groups' ? 'SHORTEST k GROUPS' : selector.kind === 'any' ? 'ANY k' : 'SHORTEST k';
  return invalid(`the count of ${what} must be a positive integer, got ${shown}`);
}

const invalid = (message: string): never => {
  throw new CypherError('ArgumentError', 'InvalidArgumentValue', `SyntaxError (InvalidArgumentValue): ${message}`);
};

/**
 * What a selector keeps of the fits that share their two end nodes (Neo4j's partitions), each
 * partition in the order it was first met: SHORTEST k the k shortest, SHORTEST k GROUPS every fit
 * of the k shortest lengths, ANY k the first k found.
 */
export function selectFits<T>(fits: Fit<T>[], kind: PathSelector['kind'], k: number): Fit<T>[] {
  const partitions = new Map<string, Fit<T>[]>();
  for (const fit of fits) {
    const { nodes } = fit.path;
    const key = `${nodes[0]}/${nodes[nodes.length - 1]}`;
    const list = partitions.get(key);
    if (list) list.push(fit);
    else partitions.set(key, [fit]);
  }
  const out: Fit<T>[] = [];
  for (const list of partitions.values()) {
    if (kind === 'any') {
      out.push(...list.slice(0, k));
      continue;
    }
    // sort is stable: fits of one length keep the order found.
    const sorted = [...list].sort((a, b) => a.path.rels.length - b.path.rels.length);
    if (kind === 'shortest') {
      out.push(...sorted.slice(0, k));
      continue;
    }
    const lengths = [...new Set(sorted.map((fit) => fit.path.rels.length))].slice(0, k);
    out.push(...sorted.filter((fit) => lengths.includes(fit.path.rels.length)));
  }
  return out;
}
