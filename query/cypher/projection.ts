import type { Expr, Projection } from './ast.js';
import { containsAggregate, exprKey } from './binder.js';
import { CypherError } from './errors.js';
import { type CypherNumber, isFloat, isInteger, isIntegral, isNumber, numberOf, numberText } from './numbers.js';
import { Grouping } from './aggregation.js';
import { evaluate, isTrue, type EvalContext, type Row } from './evaluate.js';
import { Ordering } from './ordering.js';
import type { Sink, Work } from './sink.js';
import { listBytes, rowBytes, SLOT_BYTES, sizeOf, stringBytes } from './sizes.js';
import { keyOf, setEntry, typeName, type Value } from './values.js';

/** A projected row, with what ORDER BY and WITH's WHERE read beside it. */
interface Projected {
  out: Row;
  /** The incoming row (empty once rows were merged by DISTINCT or aggregation). */
  scope: Row;
  aggregates?: Map<Expr, Value>;
}

const NO_SCOPE: Row = Object.freeze({}) as Row;

/** A non-negative integer from SKIP or LIMIT (literal or parameter). */
export function count(e: Expr | null, what: string, ctx: EvalContext): number | null {
  if (!e) return null;
  const v = evaluate(e, {}, ctx);
  if (isInteger(v) && v >= 0) return v;
  if (typeof v === 'bigint' && v >= 0n) return Number(v);
  throw invalidCount(what, e, v);
}

/**
 * Neo4j's refusal of a SKIP or LIMIT value, with its status code (ArgumentError); the message
 * starts with the openCypher classification the TCK names. A whole FLOAT is what the JavaScript
 * driver sends for a plain number, so the message says how to send an integer.
 */
function invalidCount(what: string, e: Expr, v: Value): CypherError {
  const negative = isIntegral(v) && v < 0;
  const detail = negative ? 'NegativeIntegerArgument' : 'InvalidArgumentType';
  const shown = isNumber(v) ? `'${numberText(v)}'` : v === null ? 'null' : `a ${typeName(v)}`;
  let message = `${what}: Invalid input. ${shown} is not a valid value. Must be a non-negative integer.`;
  if (isFloat(v) && Number.isInteger(numberOf(v as CypherNumber)) && numberOf(v as CypherNumber) >= 0) {
    const n = numberOf(v as CypherNumber);
    const given = e.kind === 'param' ? `$${e.name}` : 'the value';
    message += ` A JavaScript driver sends a number as a FLOAT: pass neo4j.int(${n}) (or the BigInt ${n}n) for ${given}, or write ${what} toInteger(${e.kind === 'param' ? given : '...'}).`;
  }
  return new CypherError('ArgumentError', detail, `SyntaxError (${detail}): ${message}`);
}

/**
 * RETURN and WITH over a stream: evaluates the items per row (or folds the rows into groups),
 * then DISTINCT, ORDER BY, SKIP, LIMIT and WITH's WHERE (which, like ORDER BY, also sees the
 * incoming variables). Rows flow straight through unless something must see them all: an
 * aggregation keeps one state per group, ORDER BY holds every row or, under a LIMIT, the best
 * SKIP + LIMIT rows. Once LIMIT has its rows it answers false, so the stages before it stop.
 */
export class ProjectionSink implements Sink {
  private readonly grouping: Grouping | null;
  private readonly ordering: Ordering<Projected> | null;
  private readonly seen: Set<string> | null;
  private readonly skip: number;
  /** The rows past which nothing more is wanted (SKIP + LIMIT), or null with no LIMIT. */
  private readonly end: number | null;
  /** ORDER BY keys that are projected columns read the column; the others are evaluated. */
  private readonly sortColumns: (string | undefined)[];
  private readonly sortNeedsScope: boolean;
  private position = 0;
  private stopped = false;

  constructor(private readonly p: Projection, private readonly ctx: EvalContext, private readonly where: Expr | null, private readonly next: Sink) {
    this.skip = count(p.skip, 'SKIP', ctx) ?? 0;
    const limit = count(p.limit, 'LIMIT', ctx);
    this.end = limit === null ? null : this.skip + limit;
    this.grouping = p.items.some((i) => containsAggregate(i.expr)) ? new Grouping(p, ctx) : null;
    this.ordering = p.orderBy.length > 0 ? new Ordering<Projected>(p.orderBy, this.end, ctx.guard) : null;
    this.seen = p.distinct ? new Set() : null;
    const columns = new Map(p.items.map((i) => [exprKey(i.expr), i.name]));
    this.sortColumns = p.orderBy.map((s) => columns.get(exprKey(s.expr)));
    this.sortNeedsScope = this.sortColumns.some((c) => c === undefined);
  }

  *push(row: Row): Work<boolean> {
    if (this.stopped) return false;
    if (this.grouping) {
      this.grouping.add(row);
      return true;
    }
    return yield* this.projectRow(row, row, this.ctx);
  }

  /** Evaluates the items on `row` and sends the result on; what the items built is released once it has gone on. */
  private *projectRow(row: Row, scope: Row, ctx: EvalContext, aggregates?: Map<Expr, Value>): Work<boolean> {
    const { guard } = this.ctx;
    const before = guard.used;
    const out: Row = {};
    for (const item of this.p.items) {
      guard.building = item.name;
      setEntry(out, item.name, evaluate(item.expr, row, ctx));
    }
    const built = guard.used - before;
    const more = yield* this.projected({ out, scope, aggregates });
    guard.release(built);
    return more;
  }

  *close(): Work<void> {
    const { guard } = this.ctx;
    if (this.grouping) {
      for (const { first, aggregates } of this.grouping.results()) {
        if (guard.paused) yield;
        if (!(yield* this.projectRow(first, NO_SCOPE, { ...this.ctx, aggregates }, aggregates))) break;
      }
    }
    if (this.ordering) {
      const { items, bytes } = this.ordering.drain();
      for (const x of items) {
        guard.step();
        if (guard.paused) yield;
        if (!(yield* this.window(x))) break;
      }
      guard.release(bytes);
    }
    yield* this.next.close();
  }

  /** DISTINCT, then ORDER BY (which holds the row) or straight on to SKIP/LIMIT. */
  private *projected(x: Projected): Work<boolean> {
    const { guard } = this.ctx;
    if (this.seen) {
      const k = this.p.items.map((i) => keyOf(x.out[i.name]!)).join('|');
      if (this.seen.has(k)) return true;
      guard.building = '';
      guard.charge(SLOT_BYTES + stringBytes(k.length), 'the rows DISTINCT has seen');
      this.seen.add(k);
      x.scope = NO_SCOPE;
    }
    if (!this.ordering) return yield* this.window(x);
    guard.building = '';
    const before = guard.used;
    const scope = this.sortNeedsScope ? { ...x.scope, ...x.out } : x.out;
    const sortCtx = x.aggregates ? { ...this.ctx, aggregates: x.aggregates } : this.ctx;
    const keys = this.p.orderBy.map((s, i) => {
      const column = this.sortColumns[i];
      return column !== undefined ? x.out[column]! : evaluate(s.expr, scope, sortCtx);
    });
    const built = guard.used - before;
    this.ordering.add(x, keys, () => {
      let bytes = rowBytes(x.out) + listBytes(keys.length);
      if (x.scope !== NO_SCOPE) bytes += rowBytes(x.scope);
      for (let i = 0; i < keys.length; i++) if (this.sortColumns[i] === undefined) bytes += sizeOf(keys[i]!);
      return bytes;
    });
    guard.release(built);
    return true;
  }

  /** SKIP, LIMIT and WITH's WHERE; answers whether more rows are wanted. */
  private *window(x: Projected): Work<boolean> {
    if (this.end !== null && this.position >= this.end) {
      this.stopped = true;
      return false;
    }
    const index = this.position++;
    if (index >= this.skip && this.passes(x) && !(yield* this.next.push(x.out))) {
      this.stopped = true;
      return false;
    }
    if (this.end !== null && this.position >= this.end) {
      this.stopped = true;
      return false;
    }
    return true;
  }

  private passes(x: Projected): boolean {
    if (!this.where) return true;
    const { guard } = this.ctx;
    guard.building = '';
    const before = guard.used;
    const ok = isTrue(this.where, { ...x.scope, ...x.out }, x.aggregates ? { ...this.ctx, aggregates: x.aggregates } : this.ctx);
    guard.release(guard.used - before);
    return ok;
  }
}
