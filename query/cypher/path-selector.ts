import { groupVariables, type Expr, type PathSelector, type PatternPart } from './ast.js';
import { walkExpr } from './binder.js';
import { CypherError } from './errors.js';
import { evaluate, type EvalContext } from './evaluate.js';
import { isIntegral, isNumber, numberOf, WholeFloat } from './numbers.js';
import { conjuncts } from './planner.js';
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

/** A test each relationship of a quantified relationship must pass: `all(x IN r WHERE test)`, with x bound to the relationship. */
export interface EdgeTest {
  variable: string;
  test: Expr;
}

/**
 * A selected part's own predicates: those that read only the node it starts from, those that
 * read only its end nodes, the `all(x IN r WHERE ...)` over its quantified relationship that
 * read nothing else of the part, and the others, which read its trail (all may read what was
 * bound before). `trail` holds the edge tests too, for a search that does not take them.
 */
export interface SelectorWhere {
  start: Expr | null;
  ends: Expr | null;
  each: EdgeTest[];
  trail: Expr | null;
  /** `trail` without what `each` tests. */
  rest: Expr | null;
}

/** Expressions whose value is the value of their parts: a predicate built of them reads only the variables it names. */
const PLAIN = new Set<Expr['kind']>(['literal', 'param', 'var', 'prop', 'list', 'map', 'unary', 'binary', 'compare', 'isNull', 'isType', 'index', 'call', 'hasLabels', 'slice', 'case', 'comprehension', 'quantifier', 'reduce']);

/**
 * Splits a selected part's own WHERE by whether a conjunct can read the trail: it names the path,
 * the relationship or a group's variables, or holds something whose variables are not all in
 * sight (a subquery, a pattern, a map projection) or rand(). The others hold for every trail
 * between two end nodes or for none, so they are tested once per end node, and those that do
 * not read the far end (the one across from node `anchor`) once per start node.
 */
export function selectorWhere(part: PatternPart, anchor: number): SelectorWhere {
  const trailNames = new Set<string>();
  if (part.pathVariable !== null) trailNames.add(part.pathVariable);
  for (const r of part.rels) {
    if (r.variable !== null) trailNames.add(r.variable);
    if (r.group) groupVariables(r.group).forEach((name) => trailNames.add(name));
  }
  const from = part.nodes[anchor]!.variable;
  const far = new Set(part.nodes.map((n) => n.variable).filter((name): name is string => name !== null && name !== from));
  const partNames = new Set([...trailNames, ...part.nodes.map((n) => n.variable).filter((name): name is string => name !== null)]);
  const rel = part.rels.length === 1 && !part.rels[0]!.group ? part.rels[0]!.variable : null;
  const start: Expr[] = [];
  const ends: Expr[] = [];
  const each: EdgeTest[] = [];
  const rest: Expr[] = [];
  const trail: Expr[] = [];
  for (const c of conjuncts(part.where ?? null)) {
    if (!mayRead(c, trailNames)) (mayRead(c, far) ? ends : start).push(c);
    else {
      trail.push(c);
      if (c.kind === 'quantifier' && c.quantifier === 'all' && c.list.kind === 'var' && c.list.name === rel && !mayRead(c.where, partNames)) each.push({ variable: c.variable, test: c.where });
      else rest.push(c);
    }
  }
  return { start: allOf(start), ends: allOf(ends), each, trail: allOf(trail), rest: allOf(rest) };
}

/** Whether an expression may read one of `names`, or something not in sight (a subquery, a pattern, a map projection) or rand(). */
function mayRead(e: Expr, names: ReadonlySet<string>): boolean {
  let reads = false;
  walkExpr(e, (x) => {
    if (!PLAIN.has(x.kind) || (x.kind === 'var' && names.has(x.name)) || (x.kind === 'call' && x.name === 'rand')) reads = true;
  });
  return reads;
}

/**
 * Whether which moves a selected part's quantified relationship or group allows may depend on
 * the part's own end nodes or path (its property maps or the group's WHERE read them), so they
 * can differ from one start node to the next. (The edge tests of SelectorWhere.each read none of
 * them.)
 */
export function movesReadPart(part: PatternPart): boolean {
  const names = new Set<string>();
  if (part.pathVariable !== null) names.add(part.pathVariable);
  for (const n of part.nodes) if (n.variable !== null) names.add(n.variable);
  const rel = part.rels[0]!;
  const exprs = rel.group ? [...[...rel.group.nodes, ...rel.group.rels].flatMap((x) => (x.properties ? [x.properties] : [])), ...(rel.group.where ? [rel.group.where] : [])] : rel.properties ? [rel.properties] : [];
  return exprs.some((e) => mayRead(e, names));
}

const allOf = (cs: Expr[]): Expr | null => (cs.length === 0 ? null : cs.reduce((left, right) => ({ kind: 'binary', op: 'and', left, right, pos: left.pos })));
