import type { PointId } from '../../storage/point-id.js';
import { groupVariables, type Clause, type PatternPart } from './ast.js';
import { runtimeError } from './errors.js';
import { evaluate, isTrue, type EvalContext, type Row } from './evaluate.js';
import { rangeOf } from './functions.js';
import { PatternMatcher } from './match.js';
import type { PartPlan } from './planner.js';
import { drain, type Sink, type Work } from './sink.js';
import { rowBytes } from './sizes.js';
import { setEntry, type Value } from './values.js';
import type { Writer } from './writes.js';

/** UNWIND: one row per element; `range(...)` is walked without building the list. */
export class UnwindSink implements Sink {
  constructor(private readonly ctx: EvalContext, private readonly clause: Extract<Clause, { kind: 'unwind' }>, private readonly next: Sink) {}

  *push(row: Row): Work<boolean> {
    const { guard } = this.ctx;
    const { expr, alias } = this.clause;
    guard.building = alias;
    const before = guard.used;
    let items: Iterable<Value>;
    if (expr.kind === 'call' && expr.name === 'range') {
      items = rangeOf(expr.args.map((a) => evaluate(a, row, this.ctx))).values();
    } else {
      const v = evaluate(expr, row, this.ctx);
      items = v === null ? [] : Array.isArray(v) ? v : [v];
    }
    const built = guard.used - before;
    let more = true;
    for (const item of items) {
      guard.step();
      if (guard.paused) yield;
      if (!(yield* this.next.push({ ...row, [alias]: item }))) {
        more = false;
        break;
      }
    }
    guard.release(built);
    return more;
  }

  *close(): Work<void> {
    yield* this.next.close();
  }
}

/** MATCH and OPTIONAL MATCH: every fit of the patterns (filtered by WHERE) for each input row. */
export class MatchSink implements Sink {
  private readonly matcher: PatternMatcher;
  private readonly introduced: string[];

  constructor(private readonly ctx: EvalContext, private readonly clause: Extract<Clause, { kind: 'match' }>, plans: PartPlan[], private readonly next: Sink) {
    this.matcher = new PatternMatcher(ctx, plans);
    this.introduced = [...new Set(clause.patterns.flatMap(variablesOf))];
  }

  /**
   * The fits from one start node are held (up to MATCH_BATCH rows, within half the memory
   * budget) and then sent on, so that the stages after this one may pause too; a start node with
   * more fits than that sends them on as it finds them, without pausing, to hold no more. The
   * query pauses between start nodes.
   */
  *push(row: Row): Work<boolean> {
    const { guard } = this.ctx;
    const { where, optional } = this.clause;
    guard.building = '';
    const scoped = { ...row };
    let matched = false;
    const held: Row[] = [];
    let heldBytes = 0;
    let streaming = false;
    const letGo = (): Row[] => {
      guard.release(heldBytes);
      heldBytes = 0;
      return held.splice(0);
    };
    const take = (m: Row): boolean => {
      const before = guard.used;
      const keep = !where || isTrue(where, m, this.ctx);
      guard.release(guard.used - before);
      if (!keep) return true;
      matched = true;
      const copy = { ...m };
      if (streaming) return drain(this.next.push(copy));
      const bytes = rowBytes(copy);
      if (held.length < MATCH_BATCH && guard.canHold(bytes)) {
        guard.charge(bytes, 'the rows MATCH holds');
        heldBytes += bytes;
        held.push(copy);
        return true;
      }
      streaming = true;
      for (const h of letGo()) if (!drain(this.next.push(h))) return false;
      return drain(this.next.push(copy));
    };
    for (const id of this.matcher.starts(scoped)) {
      if (guard.paused) yield;
      streaming = false;
      let more = this.matcher.matchStart(id, scoped, take);
      for (const h of letGo()) if (more && !(yield* this.next.push(h))) more = false;
      if (!more) return false;
    }
    if (optional && !matched) {
      const nulls: Row = { ...row };
      for (const name of this.introduced) if (!Object.hasOwn(row, name)) setEntry(nulls, name, null);
      return yield* this.next.push(nulls);
    }
    return true;
  }

  *close(): Work<void> {
    yield* this.next.close();
  }
}

/** Rows a MATCH holds from one start node before it sends them on without pausing. */
const MATCH_BATCH = 1024;

export function variablesOf(part: PatternPart): string[] {
  const names: string[] = [];
  for (const n of part.nodes) if (n.variable) names.push(n.variable);
  for (const r of part.rels) if (r.variable) names.push(r.variable);
  for (const r of part.rels) if (r.group) names.push(...groupVariables(r.group));
  if (part.pathVariable) names.push(part.pathVariable);
  return names;
}

/**
 * CREATE, SET, REMOVE, DELETE. The clause sees its whole input before it writes, and writes it
 * all before the next clause reads, as when each clause ran over a complete table: a MATCH
 * upstream never sees this clause's writes half done. The rows it holds are charged.
 */
export class UpdateSink implements Sink {
  private readonly rows: Row[] = [];
  private held = 0;

  constructor(private readonly ctx: EvalContext, private readonly clause: Extract<Clause, { kind: 'create' | 'set' | 'remove' | 'delete' }>, private readonly writer: Writer, private readonly next: Sink) {}

  *push(row: Row): Work<boolean> {
    const bytes = rowBytes(row);
    this.ctx.guard.building = '';
    this.ctx.guard.charge(bytes, `the rows ${this.clause.kind.toUpperCase()} holds`);
    this.held += bytes;
    this.rows.push(row);
    return true;
  }

  *close(): Work<void> {
    const { clause, writer, ctx } = this;
    for (const row of this.rows) {
      ctx.guard.step();
      if (ctx.guard.paused) yield;
      if (clause.kind === 'create') for (const part of clause.patterns) writer.create(part, row);
      else if (clause.kind === 'delete') for (const e of clause.exprs) writer.delete(e, row, clause.detach);
      else for (const item of clause.items) writer.set(item, row, clause.kind === 'remove');
    }
    for (const row of this.rows) if (!(yield* this.next.push(row))) break;
    this.rows.length = 0;
    ctx.guard.release(this.held);
    yield* this.next.close();
  }
}

/**
 * MERGE: for each row in turn, the pattern where it exists (every match, then ON MATCH SET) or
 * else created whole (then ON CREATE SET). Rows are taken in order, so a later row finds what an
 * earlier one created; the whole query is still one log entry, and Cypher writes run one at a
 * time, so two MERGEs never both create.
 */
export class MergeSink implements Sink {
  private readonly rows: Row[] = [];
  private held = 0;

  constructor(
    private readonly ctx: EvalContext,
    private readonly clause: Extract<Clause, { kind: 'merge' }>,
    private readonly plan: () => PartPlan[],
    private readonly writer: Writer,
    private readonly next: Sink,
  ) {}

  *push(row: Row): Work<boolean> {
    const bytes = rowBytes(row);
    this.ctx.guard.building = '';
    this.ctx.guard.charge(bytes, 'the rows MERGE holds');
    this.held += bytes;
    this.rows.push(row);
    return true;
  }

  *close(): Work<void> {
    const { clause, writer, ctx } = this;
    const out: Row[] = [];
    for (const row of this.rows) {
      ctx.guard.step();
      if (ctx.guard.paused) yield;
      for (const name of variablesOf(clause.pattern)) if (row[name] === null) throw runtimeError('SemanticError', 'MergeReadOwnWrites', `MERGE cannot use \`${name}\`, which is null`);
      for (const x of [...clause.pattern.nodes, ...clause.pattern.rels]) {
        if (x.properties?.kind !== 'map') continue;
        for (const [key, expr] of x.properties.entries) {
          if (evaluate(expr, row, ctx) === null) throw runtimeError('SemanticError', 'MergeReadOwnWrites', `MERGE cannot match or create a property that is null (${key})`);
        }
      }
      const matches: Row[] = [];
      // Planned per row: an earlier row's writes change what the label counts say.
      new PatternMatcher(ctx, this.plan()).run(row, (m) => void matches.push({ ...m }));
      if (matches.length > 0) {
        for (const m of matches) {
          for (const item of clause.onMatch) writer.set(item, m, false);
          out.push(m);
        }
      } else {
        const created = { ...row };
        writer.create(clause.pattern, created);
        for (const item of clause.onCreate) writer.set(item, created, false);
        out.push(created);
      }
    }
    for (const row of out) if (!(yield* this.next.push(row))) break;
    this.rows.length = 0;
    ctx.guard.release(this.held);
    yield* this.next.close();
  }
}

/** The end of the pipeline: keeps a RETURN's rows (charged with the properties the client will see). */
export class ResultSink implements Sink {
  readonly rows: Row[] = [];

  constructor(private readonly ctx: EvalContext, private readonly keep: boolean) {}

  *push(row: Row): Work<boolean> {
    if (!this.keep) return true;
    this.ctx.guard.building = '';
    this.ctx.guard.charge(rowBytes(row, this.ctx.tx), 'the rows returned');
    this.rows.push(row);
    return true;
  }

  *close(): Work<void> {}
}

export const connectedDeleteError = (id: PointId) =>
  runtimeError('ConstraintVerificationFailed', 'DeleteConnectedNode', `node ${id} still has relationships; use DETACH DELETE to delete them with it`);
