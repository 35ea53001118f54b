import type { Expr, Projection } from './ast.js';
import { containsAggregate, isAggregateCall, walkExpr } from './binder.js';
import { compareNumbers, type CypherNumber, float, integerResult, isFloat, isNumber, numberOf } from './numbers.js';
import { addDurations, divideDuration } from './temporal/arithmetic.js';
import { CypherDuration } from './temporal/types.js';
import { runtimeError } from './errors.js';
import { evaluate, type EvalContext, type Row } from './evaluate.js';
import { listBytes, rowBytes, SLOT_BYTES, sizeOf, stringBytes } from './sizes.js';
import { keyOf, orderCompare, typeName, type Value } from './values.js';

type Call = Extract<Expr, { kind: 'call' }>;

/** The running state of one aggregate call for one group: a count, a sum, the best value, a list. */
class Accumulator {
  private count = 0;
  private sum = 0;
  private floats = false;
  private best: Value = null;
  private readonly list: Value[] = [];
  /** stDev, stDevP, percentileCont, percentileDisc: the numbers seen (percentileDisc answers one of them). */
  private readonly numbers: CypherNumber[] = [];
  /** sum() and avg() of durations: their running sum (numbers and durations do not mix). */
  private durations: CypherDuration | null = null;
  /** The percentile asked for (read from the first row: it must be the same for all). */
  private percentile: number | null = null;
  private readonly seen: Set<string> | null;
  /** sum() of integers, exact past 2^53. */
  private intSum = 0n;

  constructor(private readonly call: Call, private readonly ctx: EvalContext) {
    this.seen = call.distinct ? new Set() : null;
  }

  add(row: Row): void {
    const { call, ctx } = this;
    if (call.star) {
      this.count++;
      return;
    }
    const { guard } = ctx;
    const before = guard.used;
    const v = evaluate(call.args[0]!, row, ctx);
    guard.release(guard.used - before);
    if (v === null) return;
    if (this.seen) {
      const k = keyOf(v);
      if (this.seen.has(k)) return;
      guard.charge(SLOT_BYTES + stringBytes(k.length), `${call.name}(DISTINCT ...)`);
      this.seen.add(k);
    }
    switch (call.name) {
      case 'count':
        this.count++;
        return;
      case 'collect':
        guard.charge(SLOT_BYTES + sizeOf(v), 'collect()');
        this.list.push(v);
        return;
      case 'stdev':
      case 'stdevp':
      case 'percentilecont':
      case 'percentiledisc':
        if (!isNumber(v)) throw runtimeError('TypeError', 'InvalidArgumentType', `${call.name}() takes numbers, got a ${typeName(v)}`);
        if (call.name.startsWith('percentile') && this.percentile === null) this.percentile = percentileOf(call, row, ctx);
        guard.charge(SLOT_BYTES, `${call.name}()`);
        this.numbers.push(v);
        return;
      case 'sum':
      case 'avg':
        if (v instanceof CypherDuration && (this.durations !== null || this.count === 0)) {
          this.durations = this.durations ? addDurations(this.durations, v) : v;
          this.count++;
          return;
        }
        if (!isNumber(v) || this.durations !== null) {
          const what = this.durations !== null ? 'durations' : 'numbers';
          throw runtimeError('TypeError', 'InvalidArgumentType', `${call.name}() takes numbers or durations (not both), got a ${typeName(v)} after ${what}`);
        }
        this.sum += numberOf(v);
        if (isFloat(v)) this.floats = true;
        else if (call.name === 'sum') this.intSum += BigInt(v as number | bigint);
        this.count++;
        return;
      default: {
        const sign = call.name === 'min' ? 1 : -1;
        if (this.count++ === 0 || sign * orderCompare(v, this.best) < 0) this.best = v;
      }
    }
  }

  result(): Value {
    switch (this.call.name) {
      case 'count':
        return this.count;
      case 'collect':
        return this.list;
      case 'sum':
        if (this.durations) return this.durations;
        // A sum of integers is an exact integer (64 bits); one float among them makes it a float.
        return this.floats ? float(this.sum) : integerResult(this.intSum, 'sum()');
      case 'avg':
        if (this.durations) return divideDuration(this.durations, this.count);
        return this.count === 0 ? null : float(this.sum / this.count);
      case 'stdev':
      case 'stdevp':
        return float(standardDeviation(this.numbers.map(numberOf), this.call.name === 'stdev'));
      case 'percentilecont':
      case 'percentiledisc':
        return this.numbers.length === 0 ? null : percentile(this.numbers, this.percentile!, this.call.name === 'percentilecont');
      default:
        return this.count === 0 ? null : this.best;
    }
  }
}

/** The percentile argument: a number from 0 to 1. */
function percentileOf(call: Call, row: Row, ctx: EvalContext): number {
  const p = evaluate(call.args[1]!, row, ctx);
  if (!isNumber(p) || numberOf(p) < 0 || numberOf(p) > 1) throw runtimeError('ArgumentError', 'NumberOutOfRange', `${call.name}() takes a percentile from 0.0 to 1.0, got ${JSON.stringify(p)}`);
  return numberOf(p);
}

/** Sample (n - 1) or population standard deviation; 0 for fewer than two samples, as Neo4j answers. */
function standardDeviation(xs: number[], sample: boolean): number {
  const n = xs.length;
  if (n < 2) return 0;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const squares = xs.reduce((a, x) => a + (x - mean) ** 2, 0);
  return Math.sqrt(squares / (sample ? n - 1 : n));
}

/**
 * Neo4j's percentiles: percentileDisc the value at rank ceil(p·n), one of the values seen (an
 * INTEGER stays one), percentileCont interpolated between two, a FLOAT.
 */
function percentile(xs: CypherNumber[], p: number, continuous: boolean): Value {
  const sorted = [...xs].sort(compareNumbers);
  const n = sorted.length;
  if (!continuous) {
    const at = p === 0 ? 0 : Math.ceil(p * n) - 1;
    return sorted[Math.min(Math.max(at, 0), n - 1)]!;
  }
  const pos = p * (n - 1);
  const lo = numberOf(sorted[Math.floor(pos)]!);
  const hi = numberOf(sorted[Math.ceil(pos)]!);
  return float(lo + (hi - lo) * (pos - Math.floor(pos)));
}

interface Group {
  /** The group's first row: the items are evaluated on it once the aggregates are known. */
  first: Row;
  accumulators: Accumulator[];
}

/** A finished group: the row its items are evaluated on, and its aggregate values. */
export interface GroupResult {
  first: Row;
  aggregates: Map<Expr, Value>;
}

/** Every aggregate call of a projection, in its items and its ORDER BY, with the column it computes. */
function aggregateCalls(p: Projection): { call: Call; column: string }[] {
  const calls: { call: Call; column: string }[] = [];
  const collect = (e: Expr, column: string) =>
    walkExpr(e, (x) => {
      if (isAggregateCall(x)) calls.push({ call: x as Call, column });
    });
  p.items.forEach((i) => collect(i.expr, i.name));
  p.orderBy.forEach((s) => collect(s.expr, 'ORDER BY'));
  return calls;
}

/**
 * Aggregation over a stream: one state per group key (the items that are not aggregates), fed
 * row by row, so `count(*)` over any number of rows holds one number. Each new group is charged.
 */
export class Grouping {
  private readonly calls: Call[];
  private readonly columns: string[];
  private readonly keys: Expr[];
  private readonly groups = new Map<string, Group>();

  constructor(p: Projection, private readonly ctx: EvalContext) {
    const calls = aggregateCalls(p);
    this.calls = calls.map((c) => c.call);
    this.columns = calls.map((c) => c.column);
    this.keys = p.items.filter((i) => !containsAggregate(i.expr)).map((i) => i.expr);
  }

  add(row: Row): void {
    const { guard } = this.ctx;
    const before = guard.used;
    const k = this.keys.length === 0 ? '' : this.keys.map((e) => keyOf(evaluate(e, row, this.ctx))).join('|');
    guard.release(guard.used - before);
    let group = this.groups.get(k);
    if (!group) {
      guard.building = '';
      guard.charge(stringBytes(k.length) + rowBytes(row) + listBytes(this.calls.length) * 4, 'the groups of an aggregation');
      group = { first: row, accumulators: this.calls.map((c) => new Accumulator(c, this.ctx)) };
      this.groups.set(k, group);
    }
    for (let i = 0; i < group.accumulators.length; i++) {
      guard.building = this.columns[i]!;
      group.accumulators[i]!.add(row);
    }
  }

  /** The groups, one at a time (with no input and no keys, the one empty group). */
  *results(): Iterable<GroupResult> {
    if (this.groups.size === 0 && this.keys.length === 0) this.groups.set('', { first: {}, accumulators: this.calls.map((c) => new Accumulator(c, this.ctx)) });
    for (const group of this.groups.values()) {
      const aggregates = new Map<Expr, Value>();
      this.calls.forEach((c, i) => aggregates.set(c, group.accumulators[i]!.result()));
      yield { first: group.first, aggregates };
    }
  }
}
