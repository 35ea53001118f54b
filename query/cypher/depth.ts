import { queryParts, subExpressions, type Clause, type Expr, type NodePattern, type PatternPart, type Query, type RelPattern } from './ast.js';
import { CypherError, compileError } from './errors.js';

/** Brackets, lists, maps, NOT and signs nested inside one another deeper than this are refused while parsing. */
export const MAX_NESTING = 200;

/** Expressions deeper than this (long operator chains such as `a + a + ...` included) are refused after parsing. */
export const MAX_EXPRESSION_DEPTH = 1000;

export const nestingTooDeep = (line: number, column: number): CypherError =>
  compileError('NestingTooDeep', `expressions nest more than ${MAX_NESTING} levels deep (brackets, lists, maps, NOT or signs inside one another); flatten the expression or pass the value as a parameter`, { line, column });

/** A query or value whose recursion would overflow the stack. */
export const tooDeep = (): CypherError =>
  new CypherError(
    'SyntaxError',
    'NestingTooDeep',
    'SyntaxError (NestingTooDeep): the query nests too deeply to run (a pattern of hundreds of hops, a variable-length path thousands of hops deep, thousands of clauses, or a deeply nested value); bound the path length (e.g. *1..100), flatten the value or split the query',
  );

/** The expressions inside a pattern: property maps, a quantified path pattern's and a selected pattern's WHERE. */
function patternExprs(part: { nodes: NodePattern[]; rels: RelPattern[]; where?: Expr | null }): Expr[] {
  return [
    ...[...part.nodes, ...part.rels].flatMap((x) => (x.properties ? [x.properties] : [])),
    ...part.rels.flatMap((r) => (r.group ? patternExprs(r.group) : [])),
    ...(part.where ? [part.where] : []),
  ];
}

function clauseExprs(c: Clause): Expr[] {
  const props = (parts: PatternPart[]) => parts.flatMap(patternExprs);
  switch (c.kind) {
    case 'match':
      return [...props(c.patterns), ...(c.where ? [c.where] : [])];
    case 'create':
      return props(c.patterns);
    case 'merge':
      return [...props([c.pattern]), ...[...c.onCreate, ...c.onMatch].flatMap((i) => (i.value ? [i.target, i.value] : [i.target]))];
    case 'unwind':
      return [c.expr];
    case 'with':
    case 'return': {
      const p = c.projection;
      const extra = [p.skip, p.limit, c.kind === 'with' ? c.where : null].filter((e): e is Expr => e !== null);
      return [...p.items.map((i) => i.expr), ...p.orderBy.map((s) => s.expr), ...extra];
    }
    case 'set':
    case 'remove':
      return c.items.flatMap((i) => (i.value ? [i.target, i.value] : [i.target]));
    case 'delete':
      return c.exprs;
    case 'procedure':
      return [...c.args, ...(c.where ? [c.where] : [])];
    case 'subquery':
      return [...c.body, ...c.unions.flatMap((u) => u.clauses)].flatMap(clauseExprs);
    case 'foreach':
      return [c.list, ...c.body.flatMap(clauseExprs)];
  }
}

/**
 * Refuses an expression deeper than MAX_EXPRESSION_DEPTH, naming where it goes too deep. It walks
 * with its own stack, so the check itself cannot overflow; everything after it (binder, planner,
 * evaluator) recurses at most that deep.
 */
export function checkDepth(query: Query): void {
  const stack: [Expr, number][] = [];
  for (const part of queryParts(query)) for (const clause of part) for (const e of clauseExprs(clause)) stack.push([e, 1]);
  while (stack.length > 0) {
    const [e, depth] = stack.pop()!;
    if (depth > MAX_EXPRESSION_DEPTH) {
      throw compileError('NestingTooDeep', `the expression nests more than ${MAX_EXPRESSION_DEPTH} levels deep (operators chained one after another count as nesting); use IN [...] or a list parameter instead of long chains`, e.pos);
    }
    for (const child of subExpressions(e)) stack.push([child, depth + 1]);
    if (e.kind === 'subqueryExpr') for (const x of [...e.body.flatMap(clauseExprs), ...(e.map ? [e.map] : [])]) stack.push([x, depth + 1]);
  }
}
