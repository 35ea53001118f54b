import { shortJson } from '../dom.js';
import { isNode, isRelationship } from './result-graph.js';

/** A result value in a table cell: nodes and relationships in Cypher's own notation, the rest as JSON. */
export function cellText(value: unknown): string {
  if (isNode(value)) return `(${value.id}${value.labels.map((l) => `:${l}`).join('')} ${shortJson(value.properties, 80)})`;
  if (isRelationship(value)) return `(${value.start})-[:${value.type} ${shortJson(value.properties, 60)}]->(${value.end})`;
  return shortJson(value, 160);
}
