import { queryParts, type Clause, type Query } from './ast.js';
import { PROCEDURES } from './procedures/registry.js';

const UPDATING = new Set(['create', 'merge', 'set', 'remove', 'delete', 'foreach']);

function some(clauses: Clause[], test: (c: Clause) => boolean): boolean {
  return clauses.some((c) => test(c) || ((c.kind === 'subquery' || c.kind === 'foreach') && some(c.body, test)) || (c.kind === 'subquery' && c.unions.some((u) => some(u.clauses, test))));
}

/** Whether the clauses (subqueries included) may write nodes or relationships. */
export const writesData = (clauses: Clause[]): boolean =>
  some(clauses, (c) => UPDATING.has(c.kind) || (c.kind === 'procedure' && PROCEDURES.get(c.name)?.mode === 'write'));

/** Whether the clauses create or drop indexes or constraints. */
export const changesSchema = (clauses: Clause[]): boolean => some(clauses, (c) => c.kind === 'procedure' && PROCEDURES.get(c.name)?.mode === 'schema');

/** A query that needs write access: it writes data or changes the schema. */
export const isWriteQuery = (q: Query): boolean => queryParts(q).some((part) => writesData(part) || changesSchema(part));
