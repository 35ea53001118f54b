import type { Collection } from '../collection.js';
import { conflict, type DbError } from '../errors.js';
import type { GraphWriteEvent, PointId } from '../events/types.js';
import type { ApplyResult } from './apply-event.js';

const raced = (what: string): DbError => conflict(`${what} was changed by a concurrent write; run the query again`);

/**
 * Checks a Cypher write against the state it meets in the log: every node and edge it changes
 * must still be there (or be made earlier in the same event), and every id it hands out must be
 * unused. When a concurrent write won the race the whole event is a no-op (409).
 */
function precheck(c: Collection, event: GraphWriteEvent): DbError | null {
  const nodes = new Map<PointId, boolean>();
  const edges = new Map<number, boolean>();
  let nextNode = c.nextNodeId;
  let nextEdge = c.graph.nextEdgeId;
  const nodeLive = (id: PointId) => nodes.get(id) ?? c.store.has(id);
  const edgeLive = (id: number) => edges.get(id) ?? c.graph.has(id);
  for (const change of event.changes) {
    switch (change.kind) {
      case 'create_node': {
        const id = change.point.id;
        // Cypher hands out integer ids from the collection's counter; anything else is not its own.
        if (typeof id !== 'number' || id < nextNode) return raced(`node id ${id}`);
        nodes.set(id, true);
        nextNode = id + 1;
        break;
      }
      case 'update_node':
      case 'set_node':
      case 'delete_node': {
        const id = change.kind === 'update_node' ? change.point.id : change.id;
        if (!nodeLive(id)) return raced(`node ${id}`);
        nodes.set(id, change.kind !== 'delete_node');
        break;
      }
      case 'create_edge': {
        const { id, edge } = change;
        if (id < nextEdge) return raced(`relationship id ${id}`);
        if (!nodeLive(edge.from) || !nodeLive(edge.to)) return raced(`an endpoint of relationship ${id}`);
        edges.set(id, true);
        nextEdge = id + 1;
        break;
      }
      case 'update_edge':
      case 'delete_edge':
        if (!edgeLive(change.id)) return raced(`relationship ${change.id}`);
        edges.set(change.id, change.kind === 'update_edge');
        break;
    }
  }
  return null;
}

/** Applies a Cypher write's changes in order, all or nothing. */
export function applyGraphWrite(c: Collection, event: GraphWriteEvent): ApplyResult {
  const error = precheck(c, event);
  if (error) return { changed: 0, error };
  for (const change of event.changes) {
    switch (change.kind) {
      case 'create_node':
        c.upsert([change.point]);
        break;
      case 'update_node': {
        // Cypher sees the unnamed vector only: a node's named, sparse and multivectors stay as they are.
        const kept = c.otherVectors(change.point.id);
        c.upsert([{ ...change.point, named: change.point.named ?? kept.named, sparse: change.point.sparse ?? kept.sparse, multi: change.point.multi ?? kept.multi }]);
        break;
      }
      case 'set_node':
        c.setPayload(change.id, change.payload, change.labels);
        break;
      case 'delete_node':
        c.remove(change.id);
        break;
      case 'create_edge': {
        const { edge } = change;
        c.graph.add(edge.from, edge.to, edge.relation, edge.weight, edge.properties, change.id);
        break;
      }
      case 'update_edge':
        c.graph.setProperties(change.id, change.weight, change.properties);
        break;
      case 'delete_edge':
        c.graph.remove(change.id);
        break;
    }
  }
  return { changed: event.changes.length };
}
