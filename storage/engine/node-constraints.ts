import type { Collection } from '../collection.js';
import { badRequest } from '../errors.js';
import type { Payload, PointId } from '../events/types.js';

/**
 * Neo4j's node constraints (made by Cypher's CREATE CONSTRAINT, kept in the collection settings
 * group `cypher_constraints`) hold for points written through the REST and Qdrant APIs too: a
 * payload is a node's properties and labels its labels, so an upsert or payload edit that would
 * give two nodes of a label the same unique values, or leave one without a required property,
 * is refused (400) naming the constraint. Cypher writes are checked in query/cypher/constraints.ts.
 */

interface NodeConstraint {
  name: string;
  type: 'UNIQUENESS' | 'NODE_KEY' | 'NODE_PROPERTY_EXISTENCE';
  label: string;
  properties: string[];
}

/** What a point is once the write applies: its payload and labels (null: deleted). */
export type PointAfter = { payload: Payload; labels: readonly string[] } | null;

const SETTINGS_GROUP = 'cypher_constraints';

function constraintsOf(c: Collection): NodeConstraint[] {
  const group = c.settings[SETTINGS_GROUP];
  if (group === undefined || group === null || typeof group !== 'object') return [];
  return Object.values(group as Record<string, NodeConstraint | null>).filter((d): d is NodeConstraint => d !== null);
}

/** The constraint's values on a payload as one comparable text, or null when one is missing. */
function keyOf(payload: Payload, def: NodeConstraint): string | null {
  const values: unknown[] = [];
  for (const p of def.properties) {
    const v = Object.hasOwn(payload, p) ? payload[p] : null;
    if (v === null || v === undefined) return null;
    values.push(v);
  }
  return JSON.stringify(values);
}

/**
 * Points of the collection as it stands that may hold the payload's value of a constraint's first
 * property: those the payload index finds for it, else every point with the label (also read by
 * Cypher's check, query/cypher/constraints.ts).
 */
export function constraintCandidates(c: Collection, def: { label: string; properties: readonly string[] }, payload: Payload): Iterable<PointId> {
  const json = payload[def.properties[0]!];
  const probe = Array.isArray(json) ? json[0] : json;
  if (typeof probe === 'string' || typeof probe === 'number' || typeof probe === 'boolean') {
    return [...c.payloadIndex.lookup(def.properties[0]!, probe)].map((slot) => c.store.idOf(slot));
  }
  return c.labelIndex.pointsWith(def.label);
}

const named = (def: NodeConstraint) => `constraint "${def.name}" (${def.type} on :${def.label}(${def.properties.join(', ')}))`;

export const hasNodeConstraints = (c: Collection): boolean => constraintsOf(c).length > 0;

/** Refuses (400) points that, once written, break a constraint of the collection; other points are looked up in the payload index. */
export function checkPointConstraints(c: Collection, points: ReadonlyMap<PointId, PointAfter>): void {
  const defs = constraintsOf(c);
  if (defs.length === 0) return;
  for (const def of defs) {
    const seen = new Map<string, PointId>();
    for (const [id, point] of points) {
      if (!point || !point.labels.includes(def.label)) continue;
      const key = keyOf(point.payload, def);
      if (key === null) {
        if (def.type === 'UNIQUENESS') continue;
        throw badRequest(`point ${id}: ${named(def)} requires every node labelled ${def.label} to have ${def.properties.join(', ')}`);
      }
      if (def.type === 'NODE_PROPERTY_EXISTENCE') continue;
      const clash = (other: PointId) => badRequest(`point ${id}: ${named(def)}: point ${other} already has the label ${def.label} and ${def.properties.join(', ')} = ${key.slice(1, -1)}`);
      const twin = seen.get(key);
      if (twin !== undefined) throw clash(twin);
      seen.set(key, id);
      for (const other of constraintCandidates(c, def, point.payload)) {
        if (points.has(other)) continue;
        const slot = c.store.slotOf(other);
        if (slot >= 0 && c.store.labels[slot]!.includes(def.label) && keyOf(c.store.payloads[slot]!, def) === key) throw clash(other);
      }
    }
  }
}
