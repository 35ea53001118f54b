import type { Payload } from '../../storage/events/types.js';
import type { Clause, Expr, PatternPart, SetItem } from './ast.js';
import { containsAggregate } from './binder.js';
import { runtimeError } from './errors.js';
import { evaluate, isTrue, type EvalContext, type Row } from './evaluate.js';
import type { NodeData } from './graph-tx.js';
import { propertiesOf } from './functions.js';
import { PatternMatcher } from './match.js';
import { planMatch } from './planner.js';
import { count, project } from './projection.js';
import { isMap, NodeRef, PathValue, RelRef, typeName, type Value } from './values.js';

const typeError = (message: string) => runtimeError('TypeError', 'InvalidPropertyType', message);

/** Thrown from inside the matcher to stop it once a LIMIT has all the rows it can use. */
const ENOUGH = Symbol('enough rows');

/** The most rows a clause may produce: beyond it the query stops instead of exhausting memory. */
export const MAX_ROWS = 5_000_000;



/** A value a property can hold: a scalar or a list of scalars (as Neo4j allows). */
function storable(key: string, v: Value): unknown {
  const scalar = (x: Value) => typeof x === 'string' || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x));
  if (scalar(v)) return v;
  if (Array.isArray(v) && v.every((x) => scalar(x))) return v;
  throw typeError(`property "${key}" cannot hold a ${typeName(v)}${typeof v === 'number' ? ` (${v})` : ''}: use a string, number, boolean or a list of them`);
}

/** The embedding property as a vector of the collection's dimension. */
function vectorFrom(v: Value, dim: number): Float32Array {
  if (!Array.isArray(v) || v.length !== dim || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw typeError(`embedding must be a list of ${dim} finite numbers (the collection's dimension)`);
  }
  return Float32Array.from(v as number[]);
}

/** Runs the clauses in order over a list of rows; answers the last RETURN's rows (or none). */
export class Executor {
  constructor(private readonly ctx: EvalContext, private readonly maxRows = MAX_ROWS) {}

  private checkRows(count: number): void {
    if (count > this.maxRows) throw runtimeError('TransientError', 'TooManyRows', `the query produced more than ${this.maxRows.toLocaleString('en')} rows at one step; narrow its patterns or add a LIMIT`);
  }

  run(clauses: Clause[]): Row[] {
    let rows: Row[] = [{}];
    let bound = new Set<string>();
    clauses.forEach((clause, i) => {
      switch (clause.kind) {
        case 'match':
          rows = this.match(rows, clause, bound, this.rowsNeeded(clauses[i + 1]));
          break;
        case 'unwind':
          rows = rows.flatMap((row) => {
            const v = evaluate(clause.expr, row, this.ctx);
            const items = v === null ? [] : Array.isArray(v) ? v : [v];
            return items.map((item) => ({ ...row, [clause.alias]: item }));
          });
          this.checkRows(rows.length);
          bound.add(clause.alias);
          break;
        case 'with':
          rows = project(rows, clause.projection, this.ctx, clause.where);
          bound = new Set(clause.projection.items.map((i) => i.name));
          break;
        case 'return':
          rows = project(rows, clause.projection, this.ctx);
          break;
        case 'create':
          for (const row of rows) for (const part of clause.patterns) this.create(part, row);
          for (const part of clause.patterns) this.noteBound(part, bound);
          break;
        case 'set':
        case 'remove':
          for (const row of rows) for (const item of clause.items) this.set(item, row, clause.kind === 'remove');
          break;
        case 'delete':
          for (const row of rows) for (const e of clause.exprs) this.delete(e, row, clause.detach);
          break;
      }
    });
    const last = clauses[clauses.length - 1]!;
    const connected = this.ctx.tx.connectedDeletedNode();
    if (connected !== null) throw runtimeError('ConstraintValidationFailed', 'DeleteConnectedNode', `node ${connected} still has relationships; use DETACH DELETE to delete them with it`);
    return last.kind === 'return' ? rows : [];
  }

  private noteBound(part: PatternPart, bound: Set<string>): void {
    for (const n of part.nodes) if (n.variable) bound.add(n.variable);
    for (const r of part.rels) if (r.variable) bound.add(r.variable);
    if (part.pathVariable) bound.add(part.pathVariable);
  }

  /**
   * How many rows the next clause can use, when it is a plain projection with a LIMIT (no
   * ORDER BY, DISTINCT or aggregate): a MATCH then stops once it has that many.
   */
  private rowsNeeded(next: Clause | undefined): number {
    if (!next || (next.kind !== 'return' && next.kind !== 'with')) return Infinity;
    const p = next.projection;
    if (!p.limit || p.orderBy.length > 0 || p.distinct || p.items.some((i) => containsAggregate(i.expr))) return Infinity;
    return (count(p.skip, 'SKIP', this.ctx) ?? 0) + count(p.limit, 'LIMIT', this.ctx)!;
  }

  private match(rows: Row[], clause: Extract<Clause, { kind: 'match' }>, bound: Set<string>, needed: number): Row[] {
    const plans = planMatch(clause.patterns, clause.where, new Set(bound), (l) => this.ctx.tx.labelCount(l));
    const matcher = new PatternMatcher(this.ctx, plans);
    const out: Row[] = [];
    const introduced = new Set<string>();
    for (const part of clause.patterns) this.noteBound(part, introduced);
    for (const row of rows) {
      if (out.length >= needed) break;
      const before = out.length;
      try {
        matcher.run(row, (m) => {
          if (!clause.where || isTrue(clause.where, m, this.ctx)) {
            out.push({ ...m });
            this.checkRows(out.length);
            if (out.length >= needed) throw ENOUGH;
          }
        });
      } catch (err) {
        if (err !== ENOUGH) throw err;
      }
      if (clause.optional && out.length === before) {
        const nulls: Row = { ...row };
        for (const name of introduced) if (!(name in row)) nulls[name] = null;
        out.push(nulls);
      }
    }
    for (const name of introduced) bound.add(name);
    return out;
  }

  private properties(e: Expr | null, row: Row): Payload {
    const out: Payload = {};
    if (!e) return out;
    const m = evaluate(e, row, this.ctx);
    if (!isMap(m)) throw typeError('properties must be a map');
    for (const [k, v] of Object.entries(m)) if (v !== null) out[k] = k === 'embedding' ? v : storable(k, v);
    return out;
  }

  private create(part: PatternPart, row: Row): void {
    const { tx } = this.ctx;
    const dim = tx.collection.config.size;
    const ids = part.nodes.map((n) => {
      const existing = n.variable === null ? undefined : row[n.variable];
      if (existing !== undefined && existing !== null) {
        if (!(existing instanceof NodeRef)) throw typeError(`variable \`${n.variable}\` is a ${typeName(existing)}, not a node`);
        if (!tx.hasNode(existing.id)) throw runtimeError('EntityNotFound', 'DeletedEntityAccess', `node ${existing.id} was deleted earlier in this query`);
        return existing.id;
      }
      if (existing === null) throw runtimeError('SemanticError', 'CreateOnNull', `cannot create a relationship to \`${n.variable}\`, which is null`);
      const payload = this.properties(n.properties, row);
      let vector: Float32Array | null = null;
      if (payload.embedding !== undefined) {
        vector = vectorFrom(payload.embedding as Value, dim);
        delete payload.embedding;
      }
      const id = tx.createNode([...new Set(n.labels)], payload, vector);
      if (n.variable) row[n.variable] = new NodeRef(id);
      return id;
    });
    const rels: number[] = [];
    part.rels.forEach((r, i) => {
      const [from, to] = r.direction === 'in' ? [ids[i + 1]!, ids[i]!] : [ids[i]!, ids[i + 1]!];
      const props = this.properties(r.properties, row);
      let weight = 1;
      if (props.weight !== undefined) {
        if (typeof props.weight !== 'number') throw typeError('weight must be a number');
        weight = props.weight;
        delete props.weight;
      }
      const id = tx.createEdge(from, to, r.types[0]!, weight, props);
      rels.push(id);
      if (r.variable) row[r.variable] = new RelRef(id);
    });
    if (part.pathVariable) row[part.pathVariable] = new PathValue(ids, rels);
  }

  /**
   * SET n.p = v, SET n = {map}, SET n += {map}, SET n:L, REMOVE n.p (a null value), REMOVE n:L.
   * A null value removes a property. `embedding` is the node's vector and `weight` the
   * relationship's weight; `SET n = {map}` replaces the other properties and leaves those two
   * unless the map names them.
   */
  private set(item: SetItem, row: Row, removing: boolean): void {
    const { tx } = this.ctx;
    const target = evaluate(item.target, row, this.ctx);
    if (target === null) return;
    const gone = (kind: string, id: number) => runtimeError('EntityNotFound', 'DeletedEntityAccess', `${kind} ${id} was deleted earlier in this query`);
    if (item.kind === 'labels') {
      if (!(target instanceof NodeRef)) throw typeError(`labels belong to nodes, not a ${typeName(target)}`);
      const data = tx.node(target.id);
      if (!data) throw gone('node', target.id);
      const labels = removing ? data.labels.filter((l) => !item.labels.includes(l)) : [...new Set([...data.labels, ...item.labels])];
      tx.updateNode(target.id, { ...data, labels });
      return;
    }
    const value = item.value ? evaluate(item.value, row, this.ctx) : null;
    let assignments: [string, Value][];
    if (item.kind === 'property') assignments = [[item.key, value]];
    else {
      const map = value instanceof NodeRef || value instanceof RelRef ? propertiesOf(value, tx) : value;
      if (!isMap(map)) throw typeError(`SET ${item.kind === 'replace' ? '=' : '+='} takes a map, got a ${typeName(value)}`);
      assignments = Object.entries(map);
    }
    const replace = item.kind === 'replace';
    if (target instanceof NodeRef) {
      const data = tx.node(target.id);
      if (!data) throw gone('node', target.id);
      const next: NodeData = { ...data, payload: replace ? {} : { ...data.payload } };
      for (const [key, v] of assignments) {
        if (key === 'embedding') {
          next.vector = v === null ? null : vectorFrom(v, tx.collection.config.size);
          next.vectorChanged = true;
        } else if (v === null) delete next.payload[key];
        else next.payload[key] = storable(key, v);
      }
      tx.updateNode(target.id, next);
    } else if (target instanceof RelRef) {
      const e = tx.edge(target.id);
      if (!e) throw gone('relationship', target.id);
      const next = { ...e, properties: replace ? {} : { ...e.properties } };
      for (const [key, v] of assignments) {
        if (key === 'weight') {
          if (typeof v !== 'number' || !Number.isFinite(v)) throw typeError('weight must be a finite number (every relationship has one)');
          next.weight = v;
        } else if (v === null) delete next.properties[key];
        else next.properties[key] = storable(key, v);
      }
      tx.updateEdge(target.id, next);
    } else {
      throw typeError(`SET needs a node or relationship, got a ${typeName(target)}`);
    }
  }

  private delete(e: Expr, row: Row, detach: boolean): void {
    const { tx } = this.ctx;
    const v = evaluate(e, row, this.ctx);
    if (v === null) return;
    if (v instanceof NodeRef) tx.deleteNode(v.id, detach);
    else if (v instanceof RelRef) tx.deleteEdge(v.id);
    else if (v instanceof PathValue) {
      for (const r of v.rels) tx.deleteEdge(r);
      for (const n of v.nodes) tx.deleteNode(n, detach);
    } else throw runtimeError('TypeError', 'InvalidArgumentType', `DELETE takes nodes, relationships or paths, got a ${typeName(v)}`);
  }
}
