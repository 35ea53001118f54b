import type { Clause, NodePattern, PatternPart, Projection, Query, RelPattern } from './ast.js';
import { containsAggregate } from './binder.js';
import { boundAround } from './executor.js';
import { labelExprText } from './label-expr.js';
import { planMatch, type Seek } from './planner.js';
import type { ClauseCounts } from './profile.js';

/**
 * An operator of a query plan in Neo4j's shape (what EXPLAIN and PROFILE answer; the driver
 * reads `args` as `arguments`): the root is ProduceResults and each operator's first child is
 * the one that feeds it rows. It renders how this server runs the query: a MATCH is its seek,
 * then one Expand per relationship and a Filter for its WHERE; other clauses are one operator
 * each (a projection adds Filter, Sort or Top, Skip, Limit above it).
 */
export interface PlanOperator {
  operatorType: string;
  identifiers: string[];
  args: Record<string, string | number>;
  children: PlanOperator[];
  /** PROFILE: the rows the clause handed on, on the topmost operator of each clause (0 on the others). */
  rows?: number;
  /** PROFILE: the nodes the clause's matching examined (GraphTx.scanned), counted as rows are. */
  dbHits?: number;
}

interface Step {
  operatorType: string;
  details: string;
  /** Operators beside the one that feeds it: a subquery's or FOREACH's body. */
  more?: PlanOperator[];
}

export interface PlanInput {
  labelCount: (label: string) => number;
  /** PROFILE's counts, or null for EXPLAIN. */
  counts: ClauseCounts | null;
  columns: string[];
  /** PROFILE: the rows the query answered. */
  resultRows: number | null;
}

/** The plan of a compiled query; with counts, the profile of the run that filled them. */
export function planOf(query: Query, input: PlanInput): PlanOperator {
  const parts = [query.clauses, ...query.unions.map((u) => u.clauses)].map((part) => partPlan(part, new Set(), input));
  let source = parts[0]!;
  if (parts.length > 1) {
    source = operator('Union', input.columns, '', parts, input.counts);
    if (!query.unions[0]!.all) source = operator('Distinct', input.columns, input.columns.join(', '), [source], input.counts);
  }
  const root = operator('ProduceResults', input.columns, input.columns.join(', '), [source], input.counts);
  Object.assign(root.args, { planner: 'vectorgraphdb', runtime: 'vectorgraphdb', version: 'CYPHER 5' });
  if (input.resultRows !== null) root.rows = input.resultRows;
  return root;
}

function operator(operatorType: string, identifiers: string[], details: string, children: PlanOperator[], counts: ClauseCounts | null): PlanOperator {
  const op: PlanOperator = { operatorType, identifiers, args: details === '' ? {} : { Details: details }, children };
  if (counts) Object.assign(op, { rows: 0, dbHits: 0 });
  return op;
}

/** A part's clauses, each feeding the next, starting from an Argument (the row the part starts from). */
function partPlan(part: Clause[], outer: ReadonlySet<string>, input: PlanInput): PlanOperator {
  const around = boundAround(part, outer);
  let top = operator('Argument', [...outer].sort(), [...outer].sort().join(', '), [], input.counts);
  part.forEach((clause, i) => {
    const identifiers = [...around[i + 1]!].sort();
    for (const step of clauseSteps(clause, around[i]!, input)) top = operator(step.operatorType, identifiers, step.details, [top, ...(step.more ?? [])], input.counts);
    if (input.counts) Object.assign(top, { rows: input.counts.rows.get(clause) ?? 0, dbHits: input.counts.hitsOf(part, i) });
  });
  return top;
}

function clauseSteps(clause: Clause, before: ReadonlySet<string>, input: PlanInput): Step[] {
  const nested = (body: Clause[]) => partPlan(body, before, { ...input, counts: null });
  switch (clause.kind) {
    case 'match': {
      const steps: Step[] = [];
      for (const plan of planMatch(clause.patterns, clause.where, new Set(before), input.labelCount)) {
        const start = plan.part.nodes[plan.anchor]!;
        if (plan.seek.kind !== 'bound') steps.push({ operatorType: SEEKS[plan.seek.kind], details: seekDetails(plan.seek, start) });
        for (const r of plan.part.rels) steps.push({ operatorType: plan.part.shortest ? 'ShortestPath' : plan.part.selector ? 'StatefulShortestPath' : r.group ? 'Repeat(Trail)' : r.length ? 'VarLengthExpand(All)' : 'Expand(All)', details: patternText(plan.part) });
      }
      if (clause.where) steps.push({ operatorType: 'Filter', details: '' });
      if (clause.optional) steps.push({ operatorType: 'Optional', details: '' });
      return steps;
    }
    case 'with':
    case 'return':
      return [...projectionSteps(clause.projection), ...(clause.kind === 'with' && clause.where ? [{ operatorType: 'Filter', details: '' }] : [])];
    case 'unwind':
      return [{ operatorType: 'Unwind', details: clause.alias }];
    case 'create':
      return [{ operatorType: 'Create', details: clause.patterns.map(patternText).join(', ') }];
    case 'merge':
      return [{ operatorType: 'Merge', details: patternText(clause.pattern) }];
    case 'set':
    case 'remove': {
      const item = clause.items[0]!;
      const type = item.kind === 'labels' ? (clause.kind === 'set' ? 'SetLabels' : 'RemoveLabels') : item.kind === 'property' ? 'SetProperty' : 'SetPropertiesFromMap';
      return [{ operatorType: type, details: '' }];
    }
    case 'delete':
      return [{ operatorType: clause.detach ? 'DetachDelete' : 'Delete', details: '' }];
    case 'procedure':
      return [{ operatorType: COMMANDS[clause.name] ?? 'ProcedureCall', details: clause.name.startsWith('$') ? '' : clause.name }];
    case 'subquery': {
      const bodies = [clause.body, ...clause.unions.map((u) => u.clauses)].map(nested);
      const body = bodies.length > 1 ? operator('Union', [], '', bodies, null) : bodies[0]!;
      return [{ operatorType: 'Apply', details: '', more: [body] }];
    }
    case 'foreach':
      return [{ operatorType: 'Foreach', details: clause.variable, more: [partPlan(clause.body, new Set([...before, clause.variable]), { ...input, counts: null })] }];
  }
}

const SEEKS: Record<Exclude<Seek['kind'], 'bound'>, string> = {
  ids: 'NodeByIdSeek',
  vector: 'NodeVectorIndexSeek',
  property: 'NodeIndexSeek',
  label: 'NodeByLabelScan',
  all: 'AllNodesScan',
};

const COMMANDS: Record<string, string> = {
  '$show.indexes': 'ShowIndexes',
  '$show.constraints': 'ShowConstraints',
  '$create.index': 'CreateIndex',
  '$create.constraint': 'CreateConstraint',
  '$drop.index': 'DropIndex',
  '$drop.constraint': 'DropConstraint',
};

function seekDetails(seek: Seek, node: NodePattern): string {
  const name = node.variable ?? 'anon';
  if (seek.kind === 'label') return `${name}:${seek.label}`;
  if (seek.kind === 'property') return `${name}.${seek.key} = ?`;
  return name;
}

function projectionSteps(p: Projection): Step[] {
  const columns = p.items.map((i) => i.name).join(', ');
  const steps: Step[] = [{ operatorType: p.items.some((i) => containsAggregate(i.expr)) ? 'EagerAggregation' : p.distinct ? 'Distinct' : 'Projection', details: columns }];
  if (p.orderBy.length > 0) steps.push({ operatorType: p.limit ? 'Top' : 'Sort', details: '' });
  if (p.skip) steps.push({ operatorType: 'Skip', details: '' });
  if (p.limit && p.orderBy.length === 0) steps.push({ operatorType: 'Limit', details: '' });
  return steps;
}

const nodeText = (n: NodePattern): string => `(${n.variable ?? ''}${n.labels.map((l) => `:${l}`).join('')}${n.labelExpr ? `:${labelExprText(n.labelExpr)}` : ''})`;

function relText(r: RelPattern): string {
  if (r.group) {
    const inner = patternText({ pathVariable: null, nodes: r.group.nodes, rels: r.group.rels, pos: r.group.pos });
    return ` (${inner}${r.group.where ? ' WHERE ...' : ''}){${r.length!.min},${r.length!.max === Infinity ? '' : r.length!.max}} `;
  }
  const types = r.typeExpr ? `:${labelExprText(r.typeExpr)}` : r.types.length > 0 ? `:${r.types.join('|')}` : '';
  const length = r.length ? `*${r.length.min}..${r.length.max === Infinity ? '' : r.length.max}` : '';
  return `${r.direction === 'in' ? '<-' : '-'}[${r.variable ?? ''}${types}${length}]${r.direction === 'out' ? '->' : '-'}`;
}

/** A pattern as Cypher text, for an operator's Details. */
export function patternText(part: PatternPart): string {
  let text = nodeText(part.nodes[0]!);
  part.rels.forEach((r, i) => (text += relText(r) + nodeText(part.nodes[i + 1]!)));
  return (part.pathVariable ? `${part.pathVariable} = ` : '') + text;
}
