/**
 * A label expression (Neo4j 5): `A|B` either, `A&B` both, `!A` not, `%` any label, in
 * parentheses as needed. A plain conjunction (`:A:B`, `:A&B`) stays a list of labels, and a
 * plain disjunction of relationship types a list of types, so the planner can seek by them.
 */
export type LabelExpr =
  | { kind: 'name'; name: string }
  | { kind: 'any' }
  | { kind: 'not'; arg: LabelExpr }
  | { kind: 'and' | 'or'; args: LabelExpr[] };

/** Whether an element with these labels (a relationship: its one type) passes the expression. */
export function labelExprMatches(e: LabelExpr, labels: readonly string[]): boolean {
  switch (e.kind) {
    case 'name':
      return labels.includes(e.name);
    case 'any':
      return labels.length > 0;
    case 'not':
      return !labelExprMatches(e.arg, labels);
    case 'and':
      return e.args.every((a) => labelExprMatches(a, labels));
    case 'or':
      return e.args.some((a) => labelExprMatches(a, labels));
  }
}

/** The names of an expression that is only names joined by `op` (a single name included), else null. */
export function namesJoinedBy(e: LabelExpr, op: 'and' | 'or'): string[] | null {
  if (e.kind === 'name') return [e.name];
  if (e.kind !== op) return null;
  const names: string[] = [];
  for (const a of e.args) {
    const inner = namesJoinedBy(a, op);
    if (inner === null) return null;
    names.push(...inner);
  }
  return names;
}

/** The expression as Cypher text (for plans). */
export function labelExprText(e: LabelExpr): string {
  switch (e.kind) {
    case 'name':
      return /^[\p{L}_][\p{L}\p{N}_]*$/u.test(e.name) ? e.name : `\`${e.name.replaceAll('`', '``')}\``;
    case 'any':
      return '%';
    case 'not':
      return `!${labelExprText(e.arg)}`;
    case 'and':
    case 'or':
      return `(${e.args.map(labelExprText).join(e.kind === 'and' ? '&' : '|')})`;
  }
}
