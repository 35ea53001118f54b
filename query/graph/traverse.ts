import type { PointId } from '../../storage/point-id.js';
import type { Collection } from '../../storage/collection.js';
import type { Edge } from '../../storage/views/graph-store.js';

export const MAX_TRAVERSE_DEPTH = 100;

export interface Traversal {
  /** Point ids in visit order, the start first. */
  visited: PointId[];
  /** Each edge that discovered a new point. */
  edges: Edge[];
  /** The deepest level at which a point was visited. */
  maxDepthReached: number;
}

/** Breadth-first along outgoing edges, up to `maxDepth` hops, optionally only through some relations. */
export function traverse(c: Collection, start: PointId, maxDepth: number, relations: ReadonlySet<string> | null): Traversal {
  const { graph } = c;
  const seen = new Set<PointId>([start]);
  const visited: PointId[] = [start];
  const edges: Edge[] = [];
  let frontier: PointId[] = [start];
  let depth = 0;
  let maxDepthReached = 0;
  while (frontier.length > 0 && depth < maxDepth) {
    const next: PointId[] = [];
    for (const point of frontier) {
      for (const e of graph.outgoing(point)) {
        const target = graph.target(e);
        if (seen.has(target) || (relations && !relations.has(graph.relationName(e)))) continue;
        seen.add(target);
        visited.push(target);
        edges.push(graph.edge(e)!);
        next.push(target);
      }
    }
    depth++;
    if (next.length > 0) maxDepthReached = depth;
    frontier = next;
  }
  return { visited, edges, maxDepthReached };
}
