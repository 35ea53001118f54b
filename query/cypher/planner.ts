import { groupVariables, type Expr, type NodePattern, type PatternPart } from './ast.js';
import { walkExpr } from './binder.js';

/**
 * How a pattern part finds its first node. Ranked best first: a node already bound, an id,
 * the vector predicate (answered from the HNSW index), a property equality (payload index),
 * a label (label index), and last a scan of every node.
 */
export type Seek =
  | { kind: 'bound' }
  | { kind: 'ids'; expr: Expr; list: boolean }
  | { kind: 'vector'; query: Expr; threshold: Expr }
  | { kind: 'property'; key: string; value: Expr }
  | { kind: 'label'; label: string }
  | { kind: 'all' };

export interface PartPlan {
  part: PatternPart;
  /** The node position the match starts from; it grows right, then left. */
  anchor: number;
  seek: Seek;
}

const RANK: Record<Seek['kind'], number> = { bound: 0, ids: 1, vector: 2, property: 3, label: 4, all: 5 };

/**
 * An expression whose value is known before the pattern part is matched, so a seek can read it
 * once per incoming row: literals, parameters and variables bound earlier (an UNWIND's `row.id`
 * included), through any function but rand(); never a subquery.
 */
export function knownBefore(e: Expr, bound: ReadonlySet<string>): boolean {
  let known = true;
  walkExpr(e, (x) => {
    if ((x.kind === 'var' && !bound.has(x.name)) || x.kind === 'subqueryExpr' || (x.kind === 'call' && x.name === 'rand')) known = false;
  });
  return known;
}

/** The AND-ed parts of a WHERE. */
export function conjuncts(e: Expr | null): Expr[] {
  if (!e) return [];
  if (e.kind === 'binary' && e.op === 'and') return [...conjuncts(e.left), ...conjuncts(e.right)];
  return [e];
}

const isVar = (e: Expr, name: string) => e.kind === 'var' && e.name === name;
const propOf = (e: Expr, name: string): string | null => (e.kind === 'prop' && isVar(e.object, name) ? e.key : null);
const isIdOf = (e: Expr, name: string) => e.kind === 'call' && e.name === 'id' && e.args.length === 1 && isVar(e.args[0]!, name);

/** The seeks a WHERE conjunct offers for variable `name`. */
function seeksFrom(c: Expr, name: string, bound: ReadonlySet<string>): Seek[] {
  const known = (e: Expr) => knownBefore(e, bound);
  if (c.kind === 'binary' && c.op === 'in' && isIdOf(c.left, name) && known(c.right)) return [{ kind: 'ids', expr: c.right, list: true }];
  if (c.kind !== 'compare' || c.ops.length !== 1) return [];
  const [l, r] = c.args as [Expr, Expr];
  const op = c.ops[0]!;
  const out: Seek[] = [];
  if (op === '=') {
    for (const [a, b] of [[l, r], [r, l]] as const) {
      if (!known(b)) continue;
      if (isIdOf(a, name)) out.push({ kind: 'ids', expr: b, list: false });
      const key = propOf(a, name);
      if (key !== null && key !== 'embedding') out.push({ kind: 'property', key, value: b });
    }
  }
  // n.embedding <-> $q < x, or x > n.embedding <-> $q
  const vector = (d: Expr, limit: Expr): Seek | null => {
    if (d.kind !== 'binary' || d.op !== '<->' || !known(limit)) return null;
    for (const [a, b] of [[d.left, d.right], [d.right, d.left]] as const) {
      if (propOf(a, name) === 'embedding' && known(b)) return { kind: 'vector', query: b, threshold: limit };
    }
    return null;
  };
  const v = op === '<' || op === '<=' ? vector(l, r) : op === '>' || op === '>=' ? vector(r, l) : null;
  if (v) out.push(v);
  return out;
}

function bestSeek(node: NodePattern, where: Expr[], bound: ReadonlySet<string>): Seek {
  const name = node.variable;
  if (name !== null && bound.has(name)) return { kind: 'bound' };
  const seeks: Seek[] = [];
  if (name !== null) for (const c of where) seeks.push(...seeksFrom(c, name, bound));
  if (node.properties?.kind === 'map') {
    for (const [key, value] of node.properties.entries) if (key !== 'embedding' && knownBefore(value, bound)) seeks.push({ kind: 'property', key, value });
  }
  for (const label of node.labels) seeks.push({ kind: 'label', label });
  seeks.push({ kind: 'all' });
  return seeks.reduce((best, s) => (RANK[s.kind] < RANK[best.kind] ? s : best));
}

/**
 * Plans each comma-separated part of a MATCH: the node to start from and how to find it.
 * `bound` holds the variables bound before the clause; each planned part adds its own.
 */
export function planMatch(parts: PatternPart[], where: Expr | null, bound: Set<string>, labelCount: (label: string) => number): PartPlan[] {
  const cs = conjuncts(where);
  const plans: PartPlan[] = [];
  for (const part of parts) {
    let anchor = 0;
    let seek = bestSeek(part.nodes[0]!, cs, bound);
    part.nodes.forEach((node, i) => {
      // A selector keeps the fits with the same two ends: the match starts at one of them, so that all such fits come from one start node.
      if (i === 0 || (part.selector && i !== part.nodes.length - 1)) return;
      const s = bestSeek(node, cs, bound);
      const better = RANK[s.kind] < RANK[seek.kind] || (s.kind === 'label' && seek.kind === 'label' && labelCount(s.label) < labelCount(seek.label));
      if (better) {
        anchor = i;
        seek = s;
      }
    });
    plans.push({ part, anchor, seek });
    for (const n of part.nodes) if (n.variable) bound.add(n.variable);
    for (const r of part.rels) if (r.variable) bound.add(r.variable);
    for (const r of part.rels) if (r.group) groupVariables(r.group).forEach((name) => bound.add(name));
    if (part.pathVariable) bound.add(part.pathVariable);
  }
  return plans;
}
