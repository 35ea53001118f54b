import type { Expr, Projection } from './ast.js';
import { containsAggregate, exprKey, isAggregateCall, walkExpr } from './binder.js';
import { runtimeError } from './errors.js';
import { evaluate, isTrue, type EvalContext, type Row } from './evaluate.js';
import { keyOf, orderCompare, typeName, type Value } from './values.js';

interface Projected {
  out: Row;
  /** The scope ORDER BY reads beside the projected names. */
  scope: Row;
  aggregates?: Map<Expr, Value>;
}

function aggregateCalls(p: Projection): Expr[] {
  const calls: Expr[] = [];
  const collect = (e: Expr) =>
    walkExpr(e, (x) => {
      if (isAggregateCall(x)) calls.push(x);
    });
  p.items.forEach((i) => collect(i.expr));
  p.orderBy.forEach((s) => collect(s.expr));
  return calls;
}

/** Folds one aggregate call over a group's rows. */
function aggregate(call: Extract<Expr, { kind: 'call' }>, rows: Row[], ctx: EvalContext): Value {
  if (call.star) return rows.length;
  let values = rows.map((r) => evaluate(call.args[0]!, r, ctx)).filter((v) => v !== null);
  if (call.distinct) {
    const seen = new Set<string>();
    values = values.filter((v) => {
      const k = keyOf(v);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }
  switch (call.name) {
    case 'count':
      return values.length;
    case 'collect':
      return values;
    case 'sum':
    case 'avg': {
      let sum = 0;
      for (const v of values) {
        if (typeof v !== 'number') throw runtimeError('TypeError', 'InvalidArgumentType', `${call.name}() takes numbers, got a ${typeName(v)}`);
        sum += v;
      }
      if (call.name === 'sum') return sum;
      return values.length === 0 ? null : sum / values.length;
    }
    default: {
      if (values.length === 0) return null;
      const sign = call.name === 'min' ? 1 : -1;
      return values.reduce((best, v) => (sign * orderCompare(v, best) < 0 ? v : best));
    }
  }
}

/** A non-negative integer from SKIP or LIMIT (literal or parameter). */
export function count(e: Expr | null, what: string, ctx: EvalContext): number | null {
  if (!e) return null;
  const v = evaluate(e, {}, ctx);
  if (typeof v !== 'number' || !Number.isInteger(v)) throw runtimeError('SyntaxError', 'InvalidArgumentType', `${what} takes a non-negative integer, got ${JSON.stringify(v)}`);
  if (v < 0) throw runtimeError('SyntaxError', 'NegativeIntegerArgument', `${what} takes a non-negative integer, got ${v}`);
  return v;
}

/**
 * RETURN and WITH: evaluates the items per row or per group (grouping by the items that are
 * not aggregates), then DISTINCT, ORDER BY, SKIP, LIMIT and WITH's WHERE (which, like ORDER BY,
 * also sees the incoming variables). Answers the rows of the new scope.
 */
export function project(rows: Row[], p: Projection, ctx: EvalContext, where: Expr | null = null): Row[] {
  const calls = aggregateCalls(p);
  const aggregating = p.items.some((i) => containsAggregate(i.expr));
  let projected: Projected[] = [];
  if (!aggregating) {
    for (const row of rows) {
      const out: Row = {};
      for (const item of p.items) out[item.name] = evaluate(item.expr, row, ctx);
      projected.push({ out, scope: row });
    }
  } else {
    const keys = p.items.filter((i) => !containsAggregate(i.expr));
    const groups = new Map<string, Row[]>();
    for (const row of rows) {
      const k = keys.map((i) => keyOf(evaluate(i.expr, row, ctx))).join('|');
      const g = groups.get(k);
      if (g) g.push(row);
      else groups.set(k, [row]);
    }
    if (groups.size === 0 && keys.length === 0) groups.set('', []);
    for (const group of groups.values()) {
      const aggregates = new Map<Expr, Value>();
      for (const call of calls) aggregates.set(call, aggregate(call as Extract<Expr, { kind: 'call' }>, group, ctx));
      const groupCtx = { ...ctx, aggregates };
      const first = group[0] ?? {};
      const out: Row = {};
      for (const item of p.items) out[item.name] = evaluate(item.expr, first, groupCtx);
      projected.push({ out, scope: {}, aggregates });
    }
  }
  if (p.distinct) {
    const seen = new Set<string>();
    projected = projected.filter(({ out }) => {
      const k = p.items.map((i) => keyOf(out[i.name]!)).join('|');
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    for (const x of projected) x.scope = {};
  }
  if (p.orderBy.length > 0) {
    // A sort key that is a projected expression reads its column; others are evaluated per row.
    const columns = new Map(p.items.map((i) => [exprKey(i.expr), i.name]));
    const sortColumns = p.orderBy.map((s) => columns.get(exprKey(s.expr)));
    const needsScope = sortColumns.some((c) => c === undefined);
    const keyed = projected.map((x) => {
      const scope = needsScope ? { ...x.scope, ...x.out } : x.out;
      const sortCtx = x.aggregates ? { ...ctx, aggregates: x.aggregates } : ctx;
      const keys = p.orderBy.map((s, i) => {
        const column = sortColumns[i];
        return column !== undefined ? x.out[column]! : evaluate(s.expr, scope, sortCtx);
      });
      return { x, keys };
    });
    keyed.sort((a, b) => {
      for (let i = 0; i < p.orderBy.length; i++) {
        const c = orderCompare(a.keys[i]!, b.keys[i]!);
        if (c !== 0) return p.orderBy[i]!.descending ? -c : c;
      }
      return 0;
    });
    projected = keyed.map((k) => k.x);
  }
  const skip = count(p.skip, 'SKIP', ctx) ?? 0;
  const limit = count(p.limit, 'LIMIT', ctx);
  const end = limit === null ? projected.length : skip + limit;
  projected = projected.slice(skip, end);
  if (where) {
    projected = projected.filter((x) => isTrue(where, { ...x.scope, ...x.out }, x.aggregates ? { ...ctx, aggregates: x.aggregates } : ctx));
  }
  return projected.map((x) => x.out);
}
