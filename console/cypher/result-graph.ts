import type { GraphEdge, GraphNode } from '../graph/graph-model.js';
import { nodeOfCypher } from '../graph/graph-model.js';
import type { CypherNode, CypherRelationship, PointId } from '../types.js';

type Json = Record<string, unknown>;

export const isNode = (v: unknown): v is CypherNode => typeof v === 'object' && v !== null && Array.isArray((v as Json).labels) && 'properties' in v && 'id' in v;
export const isRelationship = (v: unknown): v is CypherRelationship => typeof v === 'object' && v !== null && typeof (v as Json).type === 'string' && 'start' in v && 'end' in v;

/** Every node and relationship anywhere in the rows: in columns, paths, lists and maps. */
export function graphOfRows(rows: readonly unknown[][]): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const nodes = new Map<string, GraphNode>();
  const edges: GraphEdge[] = [];
  const visit = (value: unknown): void => {
    if (isNode(value)) nodes.set(String(value.id), nodeOfCypher(value));
    else if (isRelationship(value)) edges.push({ from: value.start, to: value.end, relation: value.type, weight: typeof value.properties.weight === 'number' ? value.properties.weight : 1 });
    else if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
  };
  rows.forEach(visit);
  return { nodes: [...nodes.values()], edges };
}

/** Ends of relationships that the rows hold without their nodes (`MATCH ()-[r]->() RETURN r`). */
export function missingEnds(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): PointId[] {
  const have = new Set(nodes.map((n) => String(n.id)));
  const missing = new Map<string, PointId>();
  for (const e of edges) for (const end of [e.from, e.to]) if (!have.has(String(end))) missing.set(String(end), end);
  return [...missing.values()];
}
