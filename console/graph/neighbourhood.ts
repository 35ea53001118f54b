import { seg, type Api } from '../api.js';
import type { Neighbor, Point, PointId } from '../types.js';
import { edgesAt, nodeOfPoint, type GraphEdge, type GraphNode } from './graph-model.js';

/** A point with every edge at it, in and out, and the points at their other ends. */
export async function fetchNeighbourhood(api: Api, collection: string, id: PointId): Promise<{ nodes: GraphNode[]; edges: GraphEdge[] }> {
  const base = `/collections/${seg(collection)}`;
  const [outgoing, incoming] = await Promise.all(
    (['outgoing', 'incoming'] as const).map((direction) => api.get<{ neighbors: Neighbor[] }>(`${base}/graph/neighbors/${seg(id)}?direction=${direction}`)),
  );
  const edges = edgesAt(id, outgoing!.neighbors, incoming!.neighbors);
  const ids = [...new Set([id, ...edges.flatMap((e) => [e.from, e.to])])];
  const points = await api.post<Point[]>(`${base}/points`, { ids, with_payload: true, with_vector: false });
  return { nodes: points.map(nodeOfPoint), edges };
}
