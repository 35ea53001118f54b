import type { Collection } from '../../storage/collection.js';
import { notFound } from '../../storage/errors.js';
import type { Edge } from '../../storage/views/graph-store.js';
import type { CypherResult } from '../cypher/run-query.js';
import { traverse } from '../graph/traverse.js';
import type { TraverseRequest } from './graph-body.js';
import { JsonText } from './json-text.js';

export const edgeJson = (e: Edge) => ({ from_id: e.from, to_id: e.to, relation: e.relation, weight: e.weight });

/** Traverse's answer: breadth-first from the start point. */
export function traverseJson(c: Collection, req: TraverseRequest): Record<string, unknown> {
  if (!c.store.has(req.start)) throw notFound(`point ${req.start} not found in collection "${c.name}"`);
  const t = traverse(c, req.start, req.maxDepth, req.relations);
  return { visited: t.visited, edges: t.edges.map(edgeJson), max_depth_reached: t.maxDepthReached };
}

/** A Cypher query's answer; `startedMs` is when the request began (performance.now()). */
export function cypherJson(result: CypherResult, startedMs: number): Record<string, unknown> {
  return {
    columns: result.columns,
    rows: result.rows,
    stats: { nodes_scanned: result.nodesScanned, rows_returned: result.rows.length, execution_time_ms: performance.now() - startedMs },
    // EXPLAIN's plan, PROFILE's plan with rows and dbHits: named as Bolt's summary names them.
    ...(result.plan ? { plan: result.plan } : {}),
    ...(result.profile ? { profile: result.profile } : {}),
  };
}

/** A Cypher result whose rows are already JSON text (written where the query ran: a Cypher replica). */
export interface CypherResultText {
  columns: string[];
  rowsJson: string;
  rowCount: number;
  nodesScanned: number;
}

/** cypherJson for a result whose rows are already written: the same answer, byte for byte but the timing. */
export function cypherTextJson(result: CypherResultText, startedMs: number): Record<string, unknown> {
  return {
    columns: result.columns,
    rows: new JsonText(result.rowsJson),
    stats: { nodes_scanned: result.nodesScanned, rows_returned: result.rowCount, execution_time_ms: performance.now() - startedMs },
  };
}
