import type { Clause } from './ast.js';
import { ForeachSink, ProcedureSink, SubquerySink } from './call-operators.js';
import { PROCEDURES } from './procedures/registry.js';
import { writesData } from './query-kind.js';
import type { EvalContext, Row } from './evaluate.js';
import { connectedDeleteError, MatchSink, MergeSink, ResultSink, UnwindSink, UpdateSink, variablesOf } from './operators.js';
import { planMatch } from './planner.js';
import { ProjectionSink } from './projection.js';
import { drain, sinkOf, type Sink, type Work } from './sink.js';
import { CountingSink, type ClauseCounts } from './profile.js';
import { Writer } from './writes.js';

/**
 * The variables bound before each clause (index i), and after the last (index clauses.length),
 * given those bound before the first: what the planner may treat as known.
 */
export function boundAround(clauses: Clause[], outer: ReadonlySet<string>): Set<string>[] {
  const around: Set<string>[] = [];
  let bound = new Set<string>(outer);
  for (const clause of clauses) {
    around.push(bound);
    bound = new Set(bound);
    if (clause.kind === 'match' || clause.kind === 'create') for (const part of clause.patterns) for (const name of variablesOf(part)) bound.add(name);
    else if (clause.kind === 'merge') for (const name of variablesOf(clause.pattern)) bound.add(name);
    else if (clause.kind === 'unwind') bound.add(clause.alias);
    else if (clause.kind === 'with' || clause.kind === 'return') bound = new Set(clause.projection.items.map((i) => i.name));
    else if (clause.kind === 'procedure') for (const y of clause.yields ?? PROCEDURES.get(clause.name)!.outputs.map((name) => ({ alias: name }))) bound.add(y.alias);
    else if (clause.kind === 'subquery') {
      const tail = clause.body[clause.body.length - 1]!;
      if (tail.kind === 'return') for (const item of tail.projection.items) bound.add(item.name);
    }
  }
  around.push(bound);
  return around;
}

/** Whether a query part answers rows: it ends in RETURN, or is a procedure call standing alone that has output columns. */
export function returnsRows(clauses: Clause[]): boolean {
  const last = clauses[clauses.length - 1]!;
  return last.kind === 'return' || (last.kind === 'procedure' && last.standalone && PROCEDURES.get(last.name)!.outputs.length > 0);
}

/**
 * Runs the clauses as one pipeline of stages, each fed row by row by the one before (see Sink):
 * a clause never builds its whole row list, so memory is what the stages hold (charged to the
 * query's budget) and time is bounded by the deadline. Answers the last RETURN's rows (or none).
 */
export class Executor {
  /** `profile`: where PROFILE keeps what each clause of the query's parts did (see CountingSink). */
  constructor(private readonly ctx: EvalContext, private readonly profile: ClauseCounts | null = null) {
    // A subquery inside an expression runs to its end there: an expression cannot pause.
    ctx.subquery ??= (clauses, row, visit) => {
      const head = this.pipeline(clauses, sinkOf(visit), new Set(Object.keys(row)));
      drain(head.push({ ...row }));
      drain(head.close());
    };
  }

  /** The rows of the query part; it yields where the query may pause (see QueryGuard.sliceMs). */
  *run(clauses: Clause[]): Work<Row[]> {
    const result = new ResultSink(this.ctx, returnsRows(clauses));
    yield* this.runInto(clauses, result);
    return result.rows;
  }

  /** Runs the query part into `end` (which keeps its result rows, or hands them on). */
  *runInto(clauses: Clause[], end: Sink): Work<void> {
    const head = this.pipeline(clauses, end, new Set(), true);
    const scanned = this.ctx.tx.scanned;
    yield* head.push({});
    yield* head.close();
    this.profile?.partHits.set(clauses, (this.profile.partHits.get(clauses) ?? 0) + this.ctx.tx.scanned - scanned);
    const connected = this.ctx.tx.connectedDeletedNode();
    if (connected !== null) throw connectedDeleteError(connected);
  }

  /** The stages, built from the last clause back; a MATCH is planned with the variables bound before it. */
  private pipeline(clauses: Clause[], end: Sink, outer: ReadonlySet<string>, counted = false): Sink {
    const boundBefore = boundAround(clauses, outer);
    const writer = new Writer(this.ctx);
    let sink = end;
    for (let i = clauses.length - 1; i >= 0; i--) {
      const clause = clauses[i]!;
      if (counted && this.profile) sink = new CountingSink(this.ctx, this.profile, clause, sink);
      switch (clause.kind) {
        case 'match': {
          const plans = planMatch(clause.patterns, clause.where, new Set(boundBefore[i]), (l) => this.ctx.tx.labelCount(l));
          sink = new MatchSink(this.ctx, clause, plans, sink);
          break;
        }
        case 'unwind':
          sink = new UnwindSink(this.ctx, clause, sink);
          break;
        case 'merge': {
          // planMatch marks the pattern's variables bound in the set it is given: a fresh one per row.
          const before = boundBefore[i]!;
          sink = new MergeSink(this.ctx, clause, () => planMatch([clause.pattern], null, new Set(before), (l) => this.ctx.tx.labelCount(l)), writer, sink);
          break;
        }
        case 'with':
          sink = new ProjectionSink(clause.projection, this.ctx, clause.where, sink);
          break;
        case 'return':
          sink = new ProjectionSink(clause.projection, this.ctx, null, sink);
          break;
        case 'procedure':
          sink = new ProcedureSink(this.ctx, clause, PROCEDURES.get(clause.name)!, writer, sink);
          break;
        case 'foreach': {
          const inner = new Set([...boundBefore[i]!, clause.variable]);
          sink = new ForeachSink(this.ctx, clause, (bodyEnd) => this.pipeline(clause.body, bodyEnd, inner), sink);
          break;
        }
        case 'subquery': {
          const before = boundBefore[i]!;
          const parts = [clause.body, ...clause.unions.map((u) => u.clauses)].map((body) => (bodyEnd: Sink) => this.pipeline(body, bodyEnd, before));
          sink = new SubquerySink(this.ctx, clause, writesData([clause]), parts, sink);
          break;
        }
        default:
          sink = new UpdateSink(this.ctx, clause, writer, sink);
      }
    }
    return sink;
  }
}
