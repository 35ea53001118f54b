import type { CypherNode, Neighbor, Point, PointId } from '../types.js';

export interface GraphNode {
  id: PointId;
  labels: string[];
  properties: Record<string, unknown>;
}

export interface GraphEdge {
  from: PointId;
  to: PointId;
  relation: string;
  weight: number;
}

export const nodeKey = (id: PointId): string => `n:${id}`;
/** One element per (from, relation, to), as the REST graph keeps edges; Cypher's parallel ones are drawn once. */
export const edgeKey = (e: GraphEdge): string => `e:${e.from}|${e.relation}|${e.to}`;

export function nodeOfPoint(point: Point): GraphNode {
  return { id: point.id, labels: point.labels ?? [], properties: point.payload ?? {} };
}

export function nodeOfCypher(node: CypherNode): GraphNode {
  return { id: node.id, labels: node.labels, properties: node.properties };
}

/** An edge's stroke width in pixels: 1 for no weight, up to 8 for weights of 3.5 and more. */
export const edgeWidth = (weight: number): number => Math.min(8, 1 + Math.abs(weight) * 2);

/** What a node is called on the canvas: a name-like property, else its id. */
export function caption(node: GraphNode): string {
  for (const key of ['name', 'title', 'label']) {
    const value = node.properties[key];
    if (typeof value === 'string' || typeof value === 'number') return String(value);
  }
  return String(node.id);
}

/** Edges at `id` from the neighbours API, outgoing and incoming, as directed edges. */
export function edgesAt(id: PointId, outgoing: Neighbor[], incoming: Neighbor[]): GraphEdge[] {
  return [...outgoing.map((n) => ({ from: id, to: n.id, relation: n.relation, weight: n.weight })), ...incoming.map((n) => ({ from: n.id, to: id, relation: n.relation, weight: n.weight }))];
}
