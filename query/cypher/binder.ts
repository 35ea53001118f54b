import { groupVariables, mapSubExpressions, subExpressions, type Clause, type Expr, type PathGroup, type PatternPart, type Projection } from './ast.js';
import { compileError, CypherError, type Position } from './errors.js';
import { MAX_INT64_LITERAL } from './lexer.js';
import { PROCEDURES } from './procedures/registry.js';
import { changesSchema, writesData } from './query-kind.js';
import { AGGREGATES, FUNCTIONS } from './functions.js';

/** What a variable is known to hold: graph element kinds are checked where patterns use them. */
export type VarKind = 'node' | 'rel' | 'relList' | 'nodeList' | 'path' | 'value' | 'unknown';

type Scope = Map<string, VarKind>;

export const isAggregateCall = (e: Expr): boolean => e.kind === 'call' && AGGREGATES.has(e.name);

/** Calls `visit` on every sub-expression, outermost first. */
export function walkExpr(e: Expr, visit: (e: Expr) => void): void {
  visit(e);
  for (const child of subExpressions(e)) walkExpr(child, visit);
}

export const containsAggregate = (e: Expr): boolean => {
  let found = false;
  walkExpr(e, (x) => {
    if (isAggregateCall(x)) found = true;
  });
  return found;
};

/** A canonical text of an expression (positions left out), for matching ORDER BY items to columns. */
export const exprKey = (e: Expr): string => JSON.stringify(e, (k, v: unknown) => (k === 'pos' ? undefined : typeof v === 'bigint' ? `${v}n` : v));

const conflict = (name: string, was: VarKind, now: string, pos: Position) =>
  compileError('VariableTypeConflict', `variable \`${name}\` is ${describeKind(was)} and cannot be used as ${now}`, pos);

/** Neo4j 5 takes a bare pattern only as a predicate (WHERE, NOT, AND, exists()), not as a value. */
const patternNotPredicate = (pos: Position) =>
  compileError('UnexpectedSyntax', 'a pattern such as (a)-->(b) is a predicate here, not a value: use a pattern comprehension [(a)-->(b) | b] for its matches, or COUNT { (a)-->(b) } for their number', pos);

const describeKind = (k: VarKind): string =>
  ({ node: 'a node', rel: 'a relationship', relList: 'a list of relationships', nodeList: 'a list of nodes', path: 'a path', value: 'a value', unknown: 'a value' })[k];

/**
 * The semantic pass: every variable is defined before use and used as one kind of thing,
 * aggregations sit where openCypher allows them, and clause-specific rules hold (CREATE
 * needs one type and a direction, WITH expressions need aliases, SKIP/LIMIT are constants).
 */
export function bindQuery(clauses: Clause[], outer: Scope = new Map(), inExpression = false): Scope {
  let scope: Scope = new Map(outer);
  clauses.forEach((clause, i) => {
    const last = i === clauses.length - 1;
    if (clause.kind === 'return' && !last) throw compileError('UnexpectedSyntax', 'RETURN must be the last clause; use WITH to carry on', clause.pos);
    if (last && !inExpression && !canEnd(clause)) {
      const what = clause.kind === 'procedure' || clause.kind === 'subquery' ? 'a CALL that returns rows' : clause.kind.toUpperCase();
      throw compileError('UnexpectedSyntax', `a query cannot end with ${what}: finish it with RETURN or an updating clause`, clause.pos);
    }
    switch (clause.kind) {
      case 'procedure':
        bindProcedure(scope, clause);
        return;
      case 'foreach': {
        checkExpr(scope, clause.list, 'FOREACH');
        if (scope.has(clause.variable)) throw compileError('VariableAlreadyBound', `variable \`${clause.variable}\` is already defined`, clause.pos);
        for (const c of clause.body) {
          if (!['create', 'merge', 'set', 'remove', 'delete', 'foreach'].includes(c.kind)) throw compileError('InvalidClauseComposition', `FOREACH takes only updating clauses (CREATE, MERGE, SET, REMOVE, DELETE, FOREACH), not ${c.kind.toUpperCase()}`, c.pos);
        }
        bindQuery(clause.body, new Map([...scope, [clause.variable, 'unknown']]), true);
        return;
      }
      case 'subquery': {
        const inner = bindQuery(clause.body, scope);
        const tail = clause.body[clause.body.length - 1]!;
        const columns = (part: Clause[]) => {
          const end = part[part.length - 1]!;
          return end.kind === 'return' ? end.projection.items.map((i) => i.name).join(',') : null;
        };
        for (const u of clause.unions) {
          bindQuery(u.clauses, scope);
          if (u.all !== clause.unions[0]!.all) throw compileError('InvalidClauseComposition', 'a query cannot mix UNION and UNION ALL', u.pos);
          if (columns(u.clauses) === null || columns(clause.body) === null) throw compileError('InvalidClauseComposition', 'each part of a UNION inside CALL { } must end with RETURN', u.pos);
          if (columns(u.clauses) !== columns(clause.body)) throw compileError('DifferentColumnsInUnion', `every part of a UNION must return the same columns (${columns(clause.body)})`, u.pos);
        }
        if (tail.kind !== 'return') return;
        for (const item of tail.projection.items) {
          if (scope.has(item.name)) throw compileError('VariableAlreadyBound', `CALL { } returns \`${item.name}\`, which is already defined outside it`, item.expr.pos);
          scope.set(item.name, inner.get(item.name) ?? 'unknown');
        }
        return;
      }
      case 'match': {
        const inClause = new Set<string>();
        checkPathPatterns(scope, clause.patterns);
        for (const part of clause.patterns) bindPattern(scope, part, inClause, 'match');
        if (clause.where) checkPredicate(scope, clause.where, 'WHERE');
        return;
      }
      case 'create': {
        const inClause = new Set<string>();
        for (const part of clause.patterns) bindPattern(scope, part, inClause, 'create');
        return;
      }
      case 'merge': {
        // MERGE matches an undirected relationship either way and creates it left to right.
        bindPattern(scope, clause.pattern, new Set<string>(), 'merge');
        for (const item of [...clause.onCreate, ...clause.onMatch]) {
          checkExpr(scope, item.target, 'SET');
          if (item.value) checkExpr(scope, item.value, 'SET');
        }
        return;
      }
      case 'unwind':
        checkExpr(scope, clause.expr, 'UNWIND');
        if (scope.has(clause.alias)) throw compileError('VariableAlreadyBound', `variable \`${clause.alias}\` is already defined`, clause.pos);
        scope.set(clause.alias, 'unknown');
        return;
      case 'set':
      case 'remove':
        for (const item of clause.items) {
          checkExpr(scope, item.target, clause.kind.toUpperCase());
          if (item.value) checkExpr(scope, item.value, 'SET');
        }
        return;
      case 'delete':
        for (const e of clause.exprs) {
          if (e.kind === 'hasLabels') throw compileError('InvalidDelete', 'DELETE takes nodes, relationships or paths, not labels; use REMOVE n:Label', e.pos);
          if (e.kind !== 'var' && e.kind !== 'prop' && e.kind !== 'index' && e.kind !== 'call') {
            throw compileError('InvalidArgumentType', 'DELETE takes a variable bound to a node, relationship or path', e.pos);
          }
          checkExpr(scope, e, 'DELETE');
        }
        return;
      case 'with': {
        const { out, orderScope } = bindProjection(scope, clause.projection, true);
        const p = clause.projection;
        const merged = p.distinct || p.items.some((i) => containsAggregate(i.expr));
        if (clause.where && merged) {
          clause.where = projectedAliases(clause.where, p);
          refuseDropped(clause.where, scope, orderScope, p, 'WITH', 'its WHERE');
        }
        if (clause.where) checkPredicate(orderScope, clause.where, 'WHERE');
        scope = out;
        return;
      }
      case 'return':
        scope = bindProjection(scope, clause.projection, false).out;
        return;
    }
  });
  return scope;
}

/** RETURN, an updating clause, a call standing alone or yielding nothing, or a subquery that returns nothing. */
function canEnd(clause: Clause): boolean {
  if (clause.kind === 'procedure') {
    const proc = PROCEDURES.get(clause.name);
    return clause.standalone || !proc || proc.outputs.length === 0 || proc.mode !== 'read';
  }
  if (clause.kind === 'subquery') return clause.body[clause.body.length - 1]!.kind !== 'return';
  return ['return', 'create', 'merge', 'set', 'remove', 'delete', 'foreach'].includes(clause.kind);
}

/** The procedure exists, takes these arguments, and yields columns it has into unused names. */
function bindProcedure(scope: Scope, clause: Extract<Clause, { kind: 'procedure' }>): void {
  const proc = PROCEDURES.get(clause.name);
  if (!proc) {
    const known = [...PROCEDURES.values()].filter((p) => !p.name.startsWith('$')).map((p) => p.display).join(', ');
    throw new CypherError('Procedure', 'ProcedureNotFound', `ProcedureError (ProcedureNotFound) at line ${clause.pos.line}, column ${clause.pos.column}: there is no procedure called \`${clause.name}\`; this server has ${known}`, clause.pos);
  }
  if (clause.args.length < proc.minArgs || clause.args.length > proc.maxArgs) {
    const count = proc.minArgs === proc.maxArgs ? `${proc.minArgs}` : `${proc.minArgs} to ${proc.maxArgs}`;
    throw compileError('InvalidNumberOfArguments', `${proc.display} takes ${count} argument(s), got ${clause.args.length}`, clause.pos);
  }
  for (const a of clause.args) checkExpr(scope, a, 'CALL');
  const yields = clause.yields ?? proc.outputs.map((name) => ({ name, alias: name }));
  for (const y of yields) {
    if (!proc.outputs.includes(y.name)) throw compileError('UndefinedVariable', `${proc.display} has no output \`${y.name}\`; it yields ${proc.outputs.join(', ') || 'nothing'}`, clause.pos);
    if (scope.has(y.alias)) throw compileError('VariableAlreadyBound', `variable \`${y.alias}\` is already defined; YIELD ${y.name} AS another name`, clause.pos);
    scope.set(y.alias, y.name === 'node' ? 'node' : y.name === 'rel' || y.name === 'relationship' ? 'rel' : 'unknown');
  }
  if (clause.where) checkPredicate(scope, clause.where, 'WHERE');
}

function bindPattern(scope: Scope, part: PatternPart, inClause: Set<string>, mode: 'match' | 'create' | 'merge'): void {
  const define = (name: string, kind: VarKind, pos: Position) => {
    const was = scope.get(name);
    if (was !== undefined && was !== kind && !(was === 'unknown' && kind === 'node')) throw conflict(name, was, describeKind(kind), pos);
    scope.set(name, kind);
  };
  const checkProps = (props: Expr | null) => {
    if (!props) return;
    // CREATE (n $props) is Neo4j's way to create from a parameter map; MATCH takes literal maps only.
    if (props.kind === 'param' && mode === 'create') return;
    if (props.kind === 'param') throw compileError('InvalidParameterUse', 'a parameter cannot stand for a property map in a pattern; write {key: $param}', props.pos);
    checkExpr(scope, props, mode === 'match' ? 'MATCH' : mode.toUpperCase());
  };
  if (part.shortest) {
    const fn = part.shortest === 'one' ? 'shortestPath' : 'allShortestPaths';
    if (mode !== 'match') throw compileError('InvalidClauseComposition', `${fn}() can only be matched, not created or merged`, part.pos);
    if (part.rels.length !== 1) throw compileError('InvalidArgumentExpression', `${fn}() takes a pattern of one relationship, e.g. (a)-[:KNOWS*..6]-(b)`, part.pos);
    if (part.rels[0]!.group) throw compileError('InvalidArgumentExpression', `${fn}() takes a variable-length relationship, not a quantified path pattern; write MATCH ${part.shortest === 'one' ? 'SHORTEST 1' : 'ALL SHORTEST'} (a)((x)-->(y))+(b) for that`, part.pos);
    const length = part.rels[0]!.length;
    if (length && length.min > 1) throw compileError('InvalidArgumentExpression', `${fn}() starts from length 0 or 1, not ${length.min}`, part.pos);
  }
  if (part.selector && mode !== 'match') throw compileError('InvalidClauseComposition', 'a path selector (SHORTEST, ANY) can only be matched, not created or merged', part.selector.pos);
  const bound = new Set(scope.keys());
  part.nodes.forEach((n) => {
    if (n.variable === null) return checkProps(n.properties);
    const was = scope.get(n.variable);
    if (mode !== 'match' && was !== undefined && bound.has(n.variable) && (n.labels.length > 0 || n.properties || part.nodes.length === 1)) {
      throw compileError('VariableAlreadyBound', `variable \`${n.variable}\` is already bound; CREATE cannot give it labels or properties, or create it again`, n.pos);
    }
    if (was === 'value' || was === 'nodeList') throw conflict(n.variable, was, 'a node', n.pos);
    define(n.variable, 'node', n.pos);
    checkProps(n.properties);
  });
  for (const r of part.rels) {
    if (r.group) {
      if (mode !== 'match') throw compileError('InvalidClauseComposition', `${mode === 'create' ? 'CREATE' : 'MERGE'} cannot make a quantified path pattern; write its relationships out`, r.pos);
      bindGroup(scope, r.group);
      continue;
    }
    if (mode !== 'match') {
      if (r.variable !== null && bound.has(r.variable)) throw compileError('VariableAlreadyBound', `relationship variable \`${r.variable}\` is already bound; ${mode === 'create' ? 'CREATE' : 'MERGE'} makes new relationships`, r.pos);
      if (r.types.length !== 1) throw compileError('NoSingleRelationshipType', 'a relationship in CREATE needs exactly one type, e.g. -[:KNOWS]->', r.pos);
      if (r.direction === 'both' && mode === 'create') throw compileError('RequiresDirectedRelationship', 'a relationship in CREATE needs a direction: -> or <-', r.pos);
      if (r.length) throw compileError('CreatingVarLength', 'CREATE cannot make a variable-length relationship', r.pos);
    }
    checkProps(r.properties);
    if (r.variable === null) continue;
    const kind: VarKind = r.length ? 'relList' : 'rel';
    if (inClause.has(r.variable)) {
      if (scope.get(r.variable) === kind) throw compileError('RelationshipUniquenessViolation', `relationship variable \`${r.variable}\` is used twice in one pattern`, r.pos);
    }
    if (bound.has(r.variable)) {
      if (mode !== 'match') throw compileError('VariableAlreadyBound', `relationship variable \`${r.variable}\` is already bound; CREATE makes new relationships`, r.pos);
      const was = scope.get(r.variable)!;
      // A list of relationships bound earlier (WITH [r1, r2] AS rs) may drive a variable-length pattern: it matches that walk, and stays a list.
      if (kind === 'relList' && was === 'value') {
        inClause.add(r.variable);
        continue;
      }
      if (was !== kind && was !== 'unknown') throw conflict(r.variable, was, describeKind(kind), r.pos);
    }
    define(r.variable, kind, r.pos);
    inClause.add(r.variable);
  }
  if (part.pathVariable !== null) {
    if (scope.has(part.pathVariable)) throw compileError('VariableAlreadyBound', `path variable \`${part.pathVariable}\` is already defined (as ${describeKind(scope.get(part.pathVariable)!)})`, part.pos);
    scope.set(part.pathVariable, 'path');
  }
  if (part.where) checkPredicate(scope, part.where, 'WHERE');
}

/**
 * Neo4j 5's rules for the path patterns of one MATCH: a selective selector (SHORTEST, ANY) on a
 * pattern of variable length, alone in its clause; a variable inside a quantified path pattern
 * declared nowhere else (not in another group, outside one, or in an earlier clause).
 */
function checkPathPatterns(scope: Scope, parts: PatternPart[]): void {
  const selective = parts.find((p) => p.selector);
  if (selective && parts.length > 1) throw compileError('InvalidPathPattern', 'Multiple path patterns cannot be used in the same clause in combination with a selective path selector; write each in a MATCH of its own', selective.pos);
  if (selective && !selective.rels.some((r) => r.length)) {
    throw compileError('InvalidPathPattern', 'a path selector (SHORTEST, ANY) needs a pattern of variable length: a quantified relationship such as -[:T]->+ or a quantified path pattern such as ((a)-[:T]->(b)){1,5}', selective.selector!.pos);
  }
  const groups = parts.flatMap((p) => p.rels.flatMap((r) => (r.group ? [r.group] : [])));
  const outside = new Set<string>();
  for (const p of parts) {
    for (const x of [...p.nodes, ...p.rels]) if (x.variable !== null) outside.add(x.variable);
    if (p.pathVariable !== null) outside.add(p.pathVariable);
  }
  const declared = new Set([...outside, ...groups.flatMap(groupVariables)]);
  const seen = new Set<string>();
  for (const g of groups) {
    for (const x of [...g.nodes, ...g.rels]) {
      const name = x.variable;
      if (name === null) continue;
      if (scope.has(name)) throw compileError('VariableAlreadyBound', `The variable \`${name}\` is already defined in a previous clause, it cannot be referenced as a node or as a relationship variable inside of a quantified path pattern`, x.pos);
      if (outside.has(name)) throw compileError('VariableAlreadyBound', `The variable \`${name}\` occurs both inside and outside a quantified path pattern and needs to be renamed`, x.pos);
    }
    const own = groupVariables(g);
    for (const name of own) if (seen.has(name)) throw compileError('VariableAlreadyBound', `The variable \`${name}\` occurs in multiple quantified path patterns and needs to be renamed`, g.pos);
    own.forEach((name) => seen.add(name));
    const exprs = [...g.nodes, ...g.rels].flatMap((x) => (x.properties ? [x.properties] : [])).concat(g.where ? [g.where] : []);
    for (const e of exprs) {
      const stranger = outerVariable(e, (name) => !scope.has(name) && !own.includes(name) && declared.has(name));
      if (stranger) throw compileError('UndefinedVariable', `From within a quantified path pattern, one may only reference variables that are already bound in a previous MATCH clause; \`${stranger.name}\` is defined in the same MATCH clause`, stranger.pos);
    }
  }
}

/**
 * A quantified path pattern: its inside checked with its variables as single nodes and
 * relationships; after it, its variables are lists.
 */
function bindGroup(scope: Scope, group: PathGroup): void {
  const own = new Set(groupVariables(group));
  const inner: Scope = new Map([...scope].filter(([name]) => !own.has(name)));
  group.nodes.forEach((n) => n.variable !== null && inner.set(n.variable, 'node'));
  group.rels.forEach((r) => r.variable !== null && inner.set(r.variable, 'rel'));
  const relCheck = new Set<string>();
  bindPattern(inner, { pathVariable: null, nodes: group.nodes, rels: group.rels, pos: group.pos }, relCheck, 'match');
  if (group.where) checkPredicate(inner, group.where, 'WHERE');
  for (const n of group.nodes) if (n.variable !== null) scope.set(n.variable, 'nodeList');
  for (const r of group.rels) if (r.variable !== null) scope.set(r.variable, 'relList');
}

function kindOf(scope: Scope, e: Expr): VarKind {
  if (e.kind === 'var') return scope.get(e.name) ?? 'unknown';
  // null may stand for a node or relationship (an OPTIONAL MATCH that found none).
  if (e.kind === 'literal' && e.value === null) return 'unknown';
  if (e.kind === 'literal' || e.kind === 'list' || e.kind === 'map' || e.kind === 'binary' || e.kind === 'compare' || e.kind === 'unary' || e.kind === 'isNull' || e.kind === 'isType') return 'value';
  if (e.kind === 'call' && AGGREGATES.has(e.name) && e.name !== 'min' && e.name !== 'max' && e.name !== 'collect') return 'value';
  return 'unknown';
}

/** Answers the scope after the projection, and the one its ORDER BY and WHERE see. */
function bindProjection(scope: Scope, p: Projection, isWith: boolean): { out: Scope; orderScope: Scope } {
  const clause = isWith ? 'WITH' : 'RETURN';
  if (p.star) {
    if (scope.size === 0 && !isWith) throw compileError('NoVariablesInScope', `${clause} * needs variables in scope`, p.pos);
    // `*` becomes one item per variable in scope, in name order (as Neo4j lists them).
    const all = [...scope.keys()].sort().map((name) => ({ expr: { kind: 'var', name, pos: p.pos } as Expr, name, aliased: true }));
    p.items.unshift(...all);
    p.star = false;
  }
  const out: Scope = new Map();
  const names = new Set<string>();
  let aggregating = false;
  // Neo4j reports a missing alias after the checks of the sort items, so it is raised last.
  let missingAlias: CypherError | null = null;
  for (const item of p.items) {
    if (item.expr.kind === 'subqueryExpr' && item.expr.bare) throw patternNotPredicate(item.expr.pos);
    checkExpr(scope, item.expr, clause, true);
    if (containsAggregate(item.expr)) aggregating = true;
    if (isWith && !item.aliased && item.expr.kind !== 'var') {
      missingAlias ??= compileError('NoExpressionAlias', `the expression ${item.name} in WITH needs an alias: ${item.name} AS name`, item.expr.pos);
    }
    if (names.has(item.name)) throw compileError('ColumnNameConflict', `the column name \`${item.name}\` is used twice`, item.expr.pos);
    names.add(item.name);
    out.set(item.name, kindOf(scope, item.expr));
  }
  if (aggregating) checkGroupingKeys(p);
  // ORDER BY sees the projected names, and also the incoming ones unless rows were merged.
  const orderScope: Scope = aggregating || p.distinct ? new Map(out) : new Map([...scope, ...out]);
  const projected = new Set(p.items.map((i) => exprKey(i.expr)));
  for (const s of p.orderBy) {
    if (aggregating && containsAggregate(s.expr) && !projected.has(exprKey(s.expr))) {
      s.expr = groupedOrderExpr(s.expr, p, out);
      checkExpr(out, s.expr, 'ORDER BY');
      continue;
    }
    if ((aggregating || p.distinct) && projected.has(exprKey(s.expr))) continue;
    if (aggregating || p.distinct) {
      s.expr = projectedAliases(s.expr, p);
      refuseDropped(s.expr, scope, orderScope, p, clause, 'ORDER BY');
    }
    checkExpr(orderScope, s.expr, 'ORDER BY', aggregating);
  }
  for (const [what, e] of [['SKIP', p.skip], ['LIMIT', p.limit]] as const) {
    if (!e) continue;
    let dependent = false;
    walkExpr(e, (x) => {
      if (x.kind === 'var') dependent = true;
    });
    if (dependent) throw compileError('NonConstantExpression', `${what} must be a constant or a parameter`, e.pos);
    if (e.kind === 'literal') {
      if (typeof e.value !== 'number' || e.isFloat) throw compileError('InvalidArgumentType', `${what} must be an integer, got ${String(e.value)}`, e.pos);
      if (e.value < 0) throw compileError('NegativeIntegerArgument', `${what} must not be negative, got ${e.value}`, e.pos);
    }
  }
  if (missingAlias) throw missingAlias;
  return { out, orderScope };
}

/**
 * After DISTINCT or an aggregation the incoming variables are gone: only the projected columns
 * remain. A variable that existed before is refused with that reason (as Neo4j explains it),
 * rather than as merely undefined.
 */
function refuseDropped(e: Expr, before: Scope, after: Scope, p: Projection, clause: string, where: string): void {
  const v = outerVariable(e, (name) => !after.has(name) && before.has(name));
  if (!v) return;
  const aggregating = p.items.some((i) => containsAggregate(i.expr));
  throw compileError(
    'UndefinedVariable',
    `\`${v.name}\` cannot be used here: after a ${clause} with ${aggregating ? 'an aggregation' : 'DISTINCT'}, ${where} can only use the columns the ${clause} projects, and \`${v.name}\` is not one of them. ` +
      (aggregating ? `Add it (or the expression that reads it) as a column, which also groups by it, or use an aggregate of it such as min(...)` : 'Add it (or the expression that reads it) as a column'),
    v.pos,
  );
}

/**
 * The first variable `e` reads from around it for which `test` holds (not one that a
 * comprehension, quantifier or reduce binds inside it); subqueries are left to their own checks.
 */
function outerVariable(e: Expr, test: (name: string) => boolean, inner: ReadonlySet<string> = new Set()): Extract<Expr, { kind: 'var' }> | null {
  if (e.kind === 'var') return !inner.has(e.name) && test(e.name) ? e : null;
  if (e.kind === 'subqueryExpr') return null;
  const scoping = e.kind === 'comprehension' || e.kind === 'quantifier' || e.kind === 'reduce';
  const around = !scoping ? subExpressions(e) : e.kind === 'reduce' ? [e.init, e.list] : [e.list];
  const bound = scoping ? new Set([...inner, e.variable, ...(e.kind === 'reduce' ? [e.accumulator] : [])]) : inner;
  for (const x of subExpressions(e)) {
    const found = outerVariable(x, test, around.includes(x) ? inner : bound);
    if (found) return found;
  }
  return null;
}

/**
 * In an item that mixes an aggregate with other values (`me.age + count(*)`), what lies outside
 * the aggregate must be a grouping key: a variable or property the projection returns by itself.
 * Anything else would take a different value in each row of one group.
 */
function checkGroupingKeys(p: Projection): void {
  const keys = new Set(p.items.filter((i) => !containsAggregate(i.expr) && (i.expr.kind === 'var' || i.expr.kind === 'prop')).map((i) => exprKey(i.expr)));
  for (const item of p.items) {
    if (!containsAggregate(item.expr) || isAggregateCall(item.expr)) continue;
    const visit = (x: Expr): void => {
      if (isAggregateCall(x) || x.kind === 'comprehension' || x.kind === 'quantifier' || x.kind === 'reduce' || x.kind === 'subqueryExpr') return;
      if (x.kind === 'var' || x.kind === 'prop') {
        if (keys.has(exprKey(x))) return;
        const text = x.kind === 'var' ? x.name : x.object.kind === 'var' ? `${x.object.name}.${x.key}` : null;
        if (text !== null) {
          throw compileError('AmbiguousAggregationExpression', `\`${item.name}\` uses ${text} beside an aggregate; return ${text} as a column of its own to group by it`, x.pos);
        }
      }
      for (const sub of subExpressions(x)) visit(sub);
    };
    visit(item.expr);
  }
}

/**
 * An ORDER BY item that holds an aggregate, after an aggregating projection, in terms of what
 * the projection returns: a returned variable, property or aggregate becomes its column, and
 * anything else must be a column, a constant or a parameter. Returned expressions of other
 * shapes are ambiguous (openCypher's rule), and a variable not returned is undefined there.
 */
function groupedOrderExpr(e: Expr, p: Projection, out: Scope): Expr {
  const alias = new Map(p.items.map((i) => [exprKey(i.expr), i.name]));
  const walk = (x: Expr): Expr => {
    const name = alias.get(exprKey(x));
    if (name !== undefined) {
      if (x.kind === 'var' || x.kind === 'prop' || isAggregateCall(x)) return { kind: 'var', name, pos: x.pos };
      throw compileError('AmbiguousAggregationExpression', `after an aggregation, ORDER BY can use a returned variable, property or aggregate inside an expression, not another returned expression: sort by its column \`${name}\``, x.pos);
    }
    if (x.kind === 'var') {
      if (!out.has(x.name)) throw compileError('UndefinedVariable', `variable \`${x.name}\` is not returned, so ORDER BY after an aggregation cannot use it`, x.pos);
      return x;
    }
    if (isAggregateCall(x)) {
      mapSubExpressions(x, walk);
      throw compileError('InvalidAggregation', 'after an aggregation, ORDER BY may only use the aggregates the projection returns', x.pos);
    }
    return mapSubExpressions(x, walk);
  };
  return walk(e);
}

/**
 * After DISTINCT or an aggregation only the projected columns exist, so ORDER BY and WITH's
 * WHERE may name a projected expression by itself: `WITH a.name AS name, count(*) AS c ORDER
 * BY a.name + 'C'` sorts by `name + 'C'`.
 */
function projectedAliases(e: Expr, p: Projection): Expr {
  const alias = new Map(p.items.filter((i) => !containsAggregate(i.expr)).map((i) => [exprKey(i.expr), i.name]));
  const walk = (x: Expr): Expr => {
    const name = alias.get(exprKey(x));
    if (name !== undefined && !(x.kind === 'var' && x.name === name)) return { kind: 'var', name, pos: x.pos };
    return x.kind === 'subqueryExpr' ? x : mapSubExpressions(x, walk);
  };
  return walk(e);
}

/** Variables defined, functions known, aggregates only where allowed (and never nested). */
function checkExpr(scope: Scope, e: Expr, clause: string, aggregatesAllowed = false, insideAggregate = false): void {
  switch (e.kind) {
    case 'literal':
      if (e.value === MAX_INT64_LITERAL) throw compileError('IntegerOverflow', 'the integer 9223372036854775808 is outside the 64-bit range (only its negative is an INTEGER)', e.pos);
      return;
    case 'var':
      if (!scope.has(e.name)) throw compileError('UndefinedVariable', `variable \`${e.name}\` is not defined`, e.pos);
      return;
    case 'call': {
      const fn = FUNCTIONS[e.name];
      // normalize(s, NFKC): the normal form is a keyword, not a variable.
      const form = e.args[1];
      if (e.name === 'normalize' && form?.kind === 'var' && NORMAL_FORMS.has(form.name.toUpperCase())) e.args[1] = { kind: 'literal', value: form.name.toUpperCase(), pos: form.pos };
      if (!fn) throw compileError('UnknownFunction', `unknown function ${e.name}()`, e.pos);
      const aggregate = AGGREGATES.has(e.name);
      if (aggregate) {
        if (!aggregatesAllowed) throw compileError('InvalidAggregation', `${e.name}() cannot be used in ${clause}`, e.pos);
        if (insideAggregate) throw compileError('NestedAggregation', `${e.name}() cannot be used inside another aggregate`, e.pos);
        for (const a of e.args) {
          walkExpr(a, (x) => {
            if (x.kind === 'call' && x.name === 'rand') throw compileError('NonConstantExpression', `${e.name}() cannot aggregate rand(): a random value is not a property of the rows`, x.pos);
          });
        }
      }
      if (e.star && e.name !== 'count') throw compileError('UnexpectedSyntax', `${e.name}(*) is not a function call; only count(*) takes *`, e.pos);
      if (!e.star && (e.args.length < fn.minArgs || e.args.length > fn.maxArgs)) {
        throw compileError('InvalidNumberOfArguments', `${e.name}() takes ${fn.minArgs === fn.maxArgs ? fn.minArgs : `${fn.minArgs} to ${fn.maxArgs}`} argument(s), got ${e.args.length}`, e.pos);
      }
      if (e.name === 'size' && e.args[0]?.kind === 'subqueryExpr' && e.args[0].bare) {
        throw compileError('UnexpectedSyntax', 'size() of a pattern is not allowed; count its matches with COUNT { (a)-->(b) }', e.pos);
      }
      const pattern = e.args.find((a) => a.kind === 'subqueryExpr' && a.bare);
      if (pattern && e.name !== 'exists') throw patternNotPredicate(pattern.pos);
      if (e.name === 'size' && e.args[0]?.kind === 'var' && scope.get(e.args[0].name) === 'path') throw compileError('InvalidArgumentType', 'size() takes a list or a string, not a path; use length(p)', e.pos);
      if (e.name === 'labels' && e.args[0]?.kind === 'var' && scope.get(e.args[0].name) === 'path') throw compileError('InvalidArgumentType', 'labels() takes a node, not a path; use [n IN nodes(p) | labels(n)]', e.pos);
      const argKind = e.args[0]?.kind === 'var' ? scope.get(e.args[0].name) : undefined;
      if (e.name === 'type' && argKind === 'node') throw compileError('InvalidArgumentType', 'type() takes a relationship, not a node; use labels(n)', e.pos);
      if (e.name === 'length' && (argKind === 'node' || argKind === 'rel')) throw compileError('InvalidArgumentType', `length() takes a path, not ${describeKind(argKind)}`, e.pos);
      const literal = e.args[0];
      if (e.name === 'properties' && literal && ((literal.kind === 'literal' && literal.value !== null) || literal.kind === 'list')) {
        throw compileError('InvalidArgumentType', 'properties() takes a node, a relationship or a map', e.pos);
      }
      if (e.name === 'exists' && e.args[0]!.kind !== 'prop' && e.args[0]!.kind !== 'subqueryExpr') throw compileError('InvalidArgumentExpression', 'exists() takes a property or a pattern, e.g. exists(n.name) or exists((n)-->())', e.pos);
      for (const a of e.args) checkExpr(scope, a, clause, aggregatesAllowed, insideAggregate || aggregate);
      return;
    }
    case 'prop':
      if (e.object.kind === 'var' && ['path', 'relList', 'nodeList'].includes(scope.get(e.object.name) ?? '')) {
        throw compileError('InvalidArgumentType', `\`${e.object.name}\` is ${describeKind(scope.get(e.object.name)!)}, which has no properties`, e.pos);
      }
      return checkExpr(scope, e.object, clause, aggregatesAllowed, insideAggregate);
    case 'hasLabels': {
      checkExpr(scope, e.arg, clause, aggregatesAllowed, insideAggregate);
      return;
    }
    case 'subqueryExpr': {
      // Read-only, with the outer variables in scope; what it binds stays inside.
      if (writesData(e.body) || changesSchema(e.body)) throw compileError('InvalidClauseComposition', `${e.mode === 'collect' ? 'COLLECT { } or a pattern comprehension' : e.mode === 'count' ? 'COUNT { }' : 'EXISTS { } or a pattern'} cannot write`, e.pos);
      if (e.bare) {
        for (const part of e.body.flatMap((c) => (c.kind === 'match' ? c.patterns : []))) {
          for (const x of [...part.nodes, ...part.rels]) {
            if (x.variable !== null && !scope.has(x.variable)) throw compileError('UndefinedVariable', `variable \`${x.variable}\` is not defined: a pattern used as a predicate cannot introduce variables (use EXISTS { MATCH ... } for that)`, x.pos);
          }
        }
      }
      const inner = bindQuery(e.body, scope, true);
      if (e.map) checkExpr(inner, e.map, clause);
      return;
    }
    case 'comprehension':
    case 'quantifier':
    case 'reduce': {
      checkExpr(scope, e.list, clause, aggregatesAllowed, insideAggregate);
      if (e.kind === 'reduce') checkExpr(scope, e.init, clause, aggregatesAllowed, insideAggregate);
      if (e.kind !== 'reduce') refuseArithmeticOnNonNumbers(e);
      // The iteration variable (and reduce's accumulator) exist inside only, hiding any outer one.
      const inner: Scope = new Map(scope);
      inner.set(e.variable, 'unknown');
      if (e.kind === 'reduce') inner.set(e.accumulator, 'unknown');
      for (const part of e.kind === 'comprehension' ? [e.where, e.map] : e.kind === 'quantifier' ? [e.where] : [e.expr]) if (part) checkExpr(inner, part, clause, false, insideAggregate);
      return;
    }
    default: {
      for (const child of subExpressions(e)) checkExpr(scope, child, clause, aggregatesAllowed, insideAggregate);
      if (e.kind === 'binary' && e.op === 'in' && (e.right.kind === 'map' || (e.right.kind === 'literal' && e.right.value !== null))) {
        throw compileError('InvalidArgumentType', `IN takes a list on its right, not a ${e.right.kind === 'map' ? 'map' : typeof e.right.value}`, e.right.pos);
      }
      if (e.kind === 'binary' && e.op !== 'and' && e.op !== 'or' && e.op !== 'xor') return;
      if (e.kind === 'unary' && e.op === 'not') requireBoolean(scope, e.arg, 'NOT');
      if (e.kind === 'binary') for (const side of [e.left, e.right]) requireBoolean(scope, side, e.op.toUpperCase());
      return;
    }
  }
}

const NORMAL_FORMS = new Set(['NFC', 'NFD', 'NFKC', 'NFKD']);

const ARITHMETIC = new Set(['-', '*', '/', '%', '^']);

/**
 * A list literal of strings and booleans only, whose predicate does arithmetic on the element:
 * a type error known before anything runs (as the TCK has it for the quantifiers).
 */
function refuseArithmeticOnNonNumbers(e: Extract<Expr, { kind: 'comprehension' | 'quantifier' }>): void {
  if (e.list.kind !== 'list' || e.list.items.length === 0) return;
  if (!e.list.items.every((i) => i.kind === 'literal' && (typeof i.value === 'string' || typeof i.value === 'boolean'))) return;
  const isElement = (x: Expr) => x.kind === 'var' && x.name === e.variable;
  for (const part of [e.where, e.kind === 'comprehension' ? e.map : null]) {
    if (!part) continue;
    walkExpr(part, (x) => {
      if (x.kind === 'binary' && ARITHMETIC.has(x.op) && (isElement(x.left) || isElement(x.right))) {
        throw compileError('InvalidArgumentType', `\`${e.variable}\` is a string or boolean from the list, so ${x.op} cannot take it`, x.pos);
      }
    });
  }
}

/** Operands that can never be booleans (literals of other types, graph elements) are refused up front. */
function requireBoolean(scope: Scope, e: Expr, where: string): void {
  const literal = e.kind === 'literal' && (typeof e.value === 'string' || typeof e.value === 'number');
  const graphVar = e.kind === 'var' && ['node', 'rel', 'relList', 'nodeList', 'path'].includes(scope.get(e.name) ?? '');
  if (literal || graphVar || e.kind === 'list' || e.kind === 'map') {
    throw compileError('InvalidArgumentType', `${where} takes a boolean, got ${e.kind === 'var' ? describeKind(scope.get(e.name)!) : `a ${e.kind}`}`, e.pos);
  }
}

function checkPredicate(scope: Scope, e: Expr, clause: string): void {
  checkExpr(scope, e, clause);
  requireBoolean(scope, e, clause);
}

