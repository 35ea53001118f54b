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

/** Whether a node of the query's tree (any depth) passes `test`. */
function anyNode(node: unknown, test: (n: Record<string, unknown>) => boolean): boolean {
  if (Array.isArray(node)) return node.some((x) => anyNode(x, test));
  if (node === null || typeof node !== 'object') return false;
  const n = node as Record<string, unknown>;
  return test(n) || Object.values(n).some((x) => anyNode(x, test));
}

/**
 * A query that searches a collection's HNSW index: the vector predicate `<->` or a
 * db.index.vector procedure. The server runs these on the request thread, whose index the
 * search workers share (workers/cypher-replica.md).
 */
export const searchesVectors = (q: Query): boolean =>
  anyNode(q, (n) => n.op === '<->' || (n.kind === 'procedure' && typeof n.name === 'string' && n.name.startsWith('db.index.vector.')));
