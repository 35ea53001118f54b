import type { Position } from './errors.js';
import type { LabelExpr } from './label-expr.js';

/** The syntax tree of a query; every node carries where it starts in the text. */
export type Expr =
  | { kind: 'literal'; value: null | boolean | number | bigint | string; isFloat?: boolean; pos: Position }
  | { kind: 'param'; name: string; pos: Position }
  | { kind: 'var'; name: string; pos: Position }
  | { kind: 'prop'; object: Expr; key: string; pos: Position }
  | { kind: 'list'; items: Expr[]; pos: Position }
  | { kind: 'map'; entries: [string, Expr][]; pos: Position }
  | { kind: 'unary'; op: 'not' | '-' | '+'; arg: Expr; pos: Position }
  | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr; pos: Position }
  /** `a < b < c`: each adjacent pair compared, all must hold. */
  | { kind: 'compare'; ops: CompareOp[]; args: Expr[]; pos: Position }
  | { kind: 'isNull'; arg: Expr; negated: boolean; pos: Position }
  /** `x IS [NOT] :: TYPE [NOT NULL]` (also `x :: TYPE`): null passes unless notNull. `type` is a canonical name (parser's TYPE_NAMES). */
  | { kind: 'isType'; arg: Expr; negated: boolean; type: string; notNull: boolean; pos: Position }
  | { kind: 'index'; object: Expr; index: Expr; pos: Position }
  | { kind: 'call'; name: string; distinct: boolean; args: Expr[]; star: boolean; pos: Position }
  /** `n:A:B` (all of `labels`), or with `expr` a label expression such as `n:A|B` (labels then empty). */
  | { kind: 'hasLabels'; arg: Expr; labels: string[]; expr?: LabelExpr; pos: Position }
  /** [x IN list WHERE p | e]: the list's elements that pass, each mapped (without | e: as they are). */
  | { kind: 'comprehension'; variable: string; list: Expr; where: Expr | null; map: Expr | null; pos: Position }
  /** all/any/none/single(x IN list WHERE p). */
  | { kind: 'quantifier'; quantifier: 'all' | 'any' | 'none' | 'single'; variable: string; list: Expr; where: Expr; pos: Position }
  /** reduce(acc = init, x IN list | e). */
  | { kind: 'reduce'; accumulator: string; init: Expr; variable: string; list: Expr; expr: Expr; pos: Position }
  /** list[from..to]: either bound may be left out (open), negative bounds count from the end. */
  | { kind: 'slice'; object: Expr; from: Expr | null; to: Expr | null; pos: Position }
  /** n {.name, .*, key: expr, var}: a map of a node's, relationship's or map's properties. */
  | { kind: 'mapProjection'; object: Expr; items: ProjectionItemOf[]; pos: Position }
  /**
   * A read-only query inside an expression, run with the row's variables: EXISTS { ... } and a
   * pattern predicate `(a)-[:T]->(b)` (mode exists), COUNT { ... } (count), and a pattern
   * comprehension `[(a)-->(b) WHERE p | e]` and COLLECT { ... RETURN e } (collect: `map`
   * evaluated on each of the body's rows; for COLLECT, the returned column).
   * A body given as patterns [WHERE p] is a MATCH clause here. `bare`: a pattern predicate,
   * which may only name variables already bound.
   */
  | { kind: 'subqueryExpr'; mode: 'exists' | 'count' | 'collect'; body: Clause[]; map: Expr | null; pos: Position; bare?: boolean }
  /** CASE: with a subject, the first WHEN equal to it; without, the first WHEN that is true; else ELSE (or null). */
  | { kind: 'case'; subject: Expr | null; whens: [Expr, Expr][]; otherwise: Expr | null; pos: Position };

export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=';
export type BinaryOp = 'and' | 'or' | 'xor' | '+' | '-' | '*' | '/' | '%' | '^' | 'starts' | 'ends' | 'contains' | 'in' | '<->' | '=~' | '||';

export type Direction = 'out' | 'in' | 'both';

export interface NodePattern {
  variable: string | null;
  /** Labels the node must all have. */
  labels: string[];
  /** A label expression that is not a plain conjunction (`:A|B`, `:!A`, `:%`); `labels` is then empty. */
  labelExpr?: LabelExpr;
  properties: Expr | null;
  /** `(p:Person WHERE p.born > 1965)`: the parser moves it into the clause's WHERE (MATCH) or refuses it (CREATE, MERGE). */
  where?: Expr;
  pos: Position;
}

export interface RelPattern {
  variable: string | null;
  /** Types the relationship may have (any of them; none: any type). */
  types: string[];
  /** A type expression that is not a plain disjunction (`:!T`, `:%`); `types` is then empty. */
  typeExpr?: LabelExpr;
  properties: Expr | null;
  direction: Direction;
  /** Variable length `*min..max`; null for a single hop. */
  length: { min: number; max: number } | null;
  /** An inline WHERE, as NodePattern's. */
  where?: Expr;
  /**
   * A quantified path pattern standing in this relationship's place, `((x)-[r]->(y)){1,3}`:
   * `length` then holds its bounds and the fields above are unused (no variable, no types).
   */
  group?: PathGroup;
  pos: Position;
}

/**
 * The inside of a quantified path pattern: a fixed pattern matched `length` times in a row, each
 * time from the node the last ended on. Inside, its variables are single nodes and
 * relationships; after the match, lists of them in path order (group variables).
 */
export interface PathGroup {
  nodes: NodePattern[];
  rels: RelPattern[];
  /** The group's own WHERE and its elements' inline WHEREs, tested on each repetition. */
  where: Expr | null;
  pos: Position;
}

/**
 * A Neo4j 5 path selector: `SHORTEST k` (shortest, ANY SHORTEST being SHORTEST 1), `SHORTEST k
 * GROUPS` (groups, ALL SHORTEST being SHORTEST 1 GROUPS) or `ANY k` (any). `count` is a whole
 * number or a parameter.
 */
export interface PathSelector {
  kind: 'shortest' | 'groups' | 'any';
  count: Expr;
  pos: Position;
}

/** `p = (a)-[r]->(b)...`: nodes.length === rels.length + 1. */
export interface PatternPart {
  pathVariable: string | null;
  nodes: NodePattern[];
  rels: RelPattern[];
  /** shortestPath(...) (one) or allShortestPaths(...) (all): the fewest hops between the two ends. */
  shortest?: 'one' | 'all';
  /** SHORTEST k, ANY k ...: which of the fits with the same two end nodes are kept. */
  selector?: PathSelector;
  /** With a selector: the pattern's own predicates (inline WHEREs), tested before it selects. */
  where?: Expr;
  pos: Position;
}

/** The variables a quantified path pattern binds (as lists after the match), in order of appearance. */
export function groupVariables(group: PathGroup): string[] {
  const names = [...group.nodes, ...group.rels].map((x) => x.variable).filter((v): v is string => v !== null);
  return [...new Set(names)];
}

export interface ProjectionItem {
  expr: Expr;
  /** The column name: the alias, or the expression's text as written. */
  name: string;
  aliased: boolean;
}

export interface SortItem {
  expr: Expr;
  descending: boolean;
}

export interface Projection {
  distinct: boolean;
  star: boolean;
  items: ProjectionItem[];
  orderBy: SortItem[];
  skip: Expr | null;
  limit: Expr | null;
  pos: Position;
}

/** `n.p = v`, `n:L`, `n = {map}` (replace all properties) or `n += {map}` (merge them in). */
export interface SetItem {
  kind: 'property' | 'labels' | 'replace' | 'merge';
  target: Expr;
  key: string;
  value: Expr | null;
  labels: string[];
  pos: Position;
}

export type Clause =
  | { kind: 'match'; optional: boolean; patterns: PatternPart[]; where: Expr | null; pos: Position }
  | { kind: 'unwind'; expr: Expr; alias: string; pos: Position }
  | { kind: 'with'; projection: Projection; where: Expr | null; pos: Position }
  | { kind: 'return'; projection: Projection; pos: Position }
  | { kind: 'create'; patterns: PatternPart[]; pos: Position }
  /** MERGE: the pattern where it exists (ON MATCH SET), else created whole (ON CREATE SET). */
  | { kind: 'merge'; pattern: PatternPart; onCreate: SetItem[]; onMatch: SetItem[]; pos: Position }
  | { kind: 'set'; items: SetItem[]; pos: Position }
  | { kind: 'remove'; items: SetItem[]; pos: Position }
  | { kind: 'delete'; detach: boolean; exprs: Expr[]; pos: Position }
  /**
   * CALL proc(args) YIELD ...: a procedure's rows, each joined to the row that called it.
   * Schema commands (SHOW INDEXES, CREATE VECTOR INDEX, CREATE CONSTRAINT, DROP INDEX) parse to
   * procedures of their own (names starting with `$`). `yields` null: every output column.
   * A standalone call (the whole query) answers its yielded columns.
   */
  | { kind: 'procedure'; name: string; args: Expr[]; yields: YieldItem[] | null; where: Expr | null; standalone: boolean; pos: Position }
  /**
   * CALL { ... }: the body runs once per incoming row; a body ending in RETURN adds its columns,
   * one without passes the row on. `unions`: further parts of the body joined by UNION [ALL].
   */
  | { kind: 'subquery'; body: Clause[]; unions: Query['unions']; pos: Position }
  /** FOREACH (x IN list | updating clauses): the body runs for each element; the row passes on unchanged. */
  | { kind: 'foreach'; variable: string; list: Expr; body: Clause[]; pos: Position };

export interface YieldItem {
  /** The procedure's output column. */
  name: string;
  /** The variable it is bound to (the column name unless renamed with AS). */
  alias: string;
}

export interface Query {
  /** EXPLAIN (plan only: nothing runs) or PROFILE (runs, and counts each clause's rows). */
  explain?: 'explain' | 'profile';
  clauses: Clause[];
  /** Further parts joined by UNION (all: UNION ALL, which keeps duplicates). */
  unions: { all: boolean; clauses: Clause[]; pos: Position }[];
  /** The names of the parameters the text refers to, each once. */
  parameters?: string[];
}

/** Every part of a query: the first, then each UNION part. */
export const queryParts = (q: Query): Clause[][] => [q.clauses, ...q.unions.map((u) => u.clauses)];

/** Scoping forms whose inner variables a rewrite must not see as outer ones: left as they are. */
const SCOPING = new Set(['comprehension', 'quantifier', 'reduce', 'subqueryExpr']);

const isExpr = (v: object): v is Expr => 'kind' in v && 'pos' in v;

/** A copy of `e` with each expression directly inside it replaced by `f` of it (f recurses if it wants). */
export function mapSubExpressions(e: Expr, f: (x: Expr) => Expr): Expr {
  if (SCOPING.has(e.kind)) return e;
  const copy = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(copy);
    if (v === null || typeof v !== 'object') return v;
    if (isExpr(v)) return f(v);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copy(x)]));
  };
  const out: Record<string, unknown> = { ...e };
  for (const key of Object.keys(out)) if (key !== 'pos') out[key] = copy(out[key]);
  return out as unknown as Expr;
}

/** The expressions directly inside `e`, in source order. */
export type ProjectionItemOf = { kind: 'property'; key: string } | { kind: 'all' } | { kind: 'entry'; key: string; expr: Expr };

export function subExpressions(e: Expr): Expr[] {
  switch (e.kind) {
    case 'prop':
      return [e.object];
    case 'list':
      return e.items;
    case 'map':
      return e.entries.map(([, x]) => x);
    case 'unary':
    case 'isNull':
    case 'isType':
    case 'hasLabels':
      return [e.arg];
    case 'binary':
      return [e.left, e.right];
    case 'compare':
    case 'call':
      return e.args;
    case 'index':
      return [e.object, e.index];
    case 'slice':
      return [e.object, ...(e.from ? [e.from] : []), ...(e.to ? [e.to] : [])];
    case 'mapProjection':
      return [e.object, ...e.items.flatMap((i) => (i.kind === 'entry' ? [i.expr] : []))];
    case 'comprehension':
      return [e.list, ...(e.where ? [e.where] : []), ...(e.map ? [e.map] : [])];
    case 'quantifier':
      return [e.list, e.where];
    case 'reduce':
      return [e.init, e.list, e.expr];
    case 'case':
      return [...(e.subject ? [e.subject] : []), ...e.whens.flat(), ...(e.otherwise ? [e.otherwise] : [])];
    default:
      return [];
  }
}
