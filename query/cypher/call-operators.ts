import type { Clause } from './ast.js';
import { evaluate, isTrue, type EvalContext, type Row } from './evaluate.js';
import type { Procedure } from './procedures/types.js';
import { sinkOf, type Sink, type Work } from './sink.js';

/** The end of a body whose rows nobody reads (FOREACH). */
const DISCARD = sinkOf(() => true);
import { rowBytes } from './sizes.js';
import { runtimeError } from './errors.js';
import { keyOf, setEntry, typeName } from './values.js';
import type { Writer } from './writes.js';

type ProcedureClause = Extract<Clause, { kind: 'procedure' }>;

/**
 * Holds every row before running a writing stage, as UpdateSink does: the stage's writes never
 * interleave with the reads upstream of it. Reading stages pass rows straight through.
 */
abstract class EagerWhenWriting implements Sink {
  private readonly rows: Row[] = [];
  private held = 0;

  constructor(protected readonly ctx: EvalContext, private readonly eager: boolean, private readonly what: string, protected readonly next: Sink) {}

  protected abstract each(row: Row): Work<boolean>;

  *push(row: Row): Work<boolean> {
    if (!this.eager) return yield* this.each(row);
    const bytes = rowBytes(row);
    this.ctx.guard.building = '';
    this.ctx.guard.charge(bytes, `the rows ${this.what} holds`);
    this.held += bytes;
    this.rows.push(row);
    return true;
  }

  *close(): Work<void> {
    for (const row of this.rows) {
      if (this.ctx.guard.paused) yield;
      if (!(yield* this.each(row))) break;
    }
    this.rows.length = 0;
    this.ctx.guard.release(this.held);
    yield* this.next.close();
  }
}

/** CALL proc(args) YIELD ...: the procedure's rows for each incoming row, joined to it. */
export class ProcedureSink extends EagerWhenWriting {
  constructor(ctx: EvalContext, private readonly clause: ProcedureClause, private readonly procedure: Procedure, private readonly writer: Writer, next: Sink) {
    super(ctx, procedure.mode !== 'read', `CALL ${procedure.display}`, next);
  }

  protected *each(row: Row): Work<boolean> {
    const { ctx, clause, procedure } = this;
    const args = clause.args.map((a) => evaluate(a, row, ctx));
    const yields = clause.yields ?? procedure.outputs.map((name) => ({ name, alias: name }));
    const results = procedure.work ? yield* procedure.work(args, ctx, this.writer) : procedure.run(args, ctx, this.writer);
    // A void procedure (no output columns) passes the row on once.
    if (procedure.outputs.length === 0) {
      for (const _ of results) ctx.guard.step();
      return yield* this.next.push(row);
    }
    for (const out of results) {
      ctx.guard.step();
      if (ctx.guard.paused) yield;
      const joined: Row = { ...row };
      for (const y of yields) setEntry(joined, y.alias, out[y.name] ?? null);
      if (clause.where && !isTrue(clause.where, joined, ctx)) continue;
      if (!(yield* this.next.push(joined))) return false;
    }
    return true;
  }
}

/** FOREACH (x IN list | ...): the body's writes for each element, then the row passes on as it came. */
export class ForeachSink extends EagerWhenWriting {
  constructor(ctx: EvalContext, private readonly clause: Extract<Clause, { kind: 'foreach' }>, private readonly body: (end: Sink) => Sink, next: Sink) {
    super(ctx, true, 'FOREACH', next);
  }

  protected *each(row: Row): Work<boolean> {
    const list = evaluate(this.clause.list, row, this.ctx);
    if (list !== null) {
      if (!Array.isArray(list)) throw runtimeError('TypeError', 'InvalidArgumentType', `FOREACH iterates over a list, got a ${typeName(list)}`);
      for (const item of list) {
        this.ctx.guard.step();
        const head = this.body(DISCARD);
        const inner: Row = { ...row };
        setEntry(inner, this.clause.variable, item);
        yield* head.push(inner);
        yield* head.close();
      }
    }
    return yield* this.next.push(row);
  }
}

/**
 * CALL { ... }: runs the body for each incoming row (seeded with it). A body ending in RETURN
 * joins each of its rows to the incoming one; a body without passes the incoming row on once.
 * A body of UNION parts runs each in turn (UNION keeps one of each distinct row).
 */
export class SubquerySink extends EagerWhenWriting {
  constructor(ctx: EvalContext, private readonly clause: Extract<Clause, { kind: 'subquery' }>, writes: boolean, private readonly parts: ((end: Sink) => Sink)[], next: Sink) {
    super(ctx, writes, 'CALL { }', next);
  }

  protected *each(row: Row): Work<boolean> {
    const returns = this.clause.body[this.clause.body.length - 1]!.kind === 'return';
    const results: Row[] = [];
    let held = 0;
    const { guard } = this.ctx;
    const collect = sinkOf((r) => {
      if (!returns) return true;
      const bytes = rowBytes(r);
      guard.charge(bytes, 'the rows CALL { } returns');
      held += bytes;
      results.push(r);
      return true;
    });
    for (const part of this.parts) {
      const head = part(collect);
      yield* head.push({ ...row });
      yield* head.close();
    }
    if (this.clause.unions.length > 0 && !this.clause.unions[0]!.all) {
      const seen = new Set<string>();
      const distinct = results.filter((r) => {
        const key = keyOf(Object.keys(r).sort().map((k) => r[k]!));
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      results.splice(0, results.length, ...distinct);
    }
    let more = true;
    if (!returns) more = yield* this.next.push(row);
    else for (const r of results) if (!(more = yield* this.next.push({ ...row, ...r }))) break;
    guard.release(held);
    return more;
  }
}
