import { typeName, type Value } from './values.js';

/** A type predicate's type (parser's canonical names) as typeName() calls its values. */
const VALUE_TYPE: Record<string, string> = {
  BOOLEAN: 'Boolean',
  STRING: 'String',
  INTEGER: 'Integer',
  FLOAT: 'Float',
  LIST: 'List',
  MAP: 'Map',
  NODE: 'Node',
  RELATIONSHIP: 'Relationship',
  PATH: 'Path',
  POINT: 'Point',
  DATE: 'Date',
  DURATION: 'Duration',
  'LOCAL DATETIME': 'LocalDateTime',
  'LOCAL TIME': 'LocalTime',
  'ZONED DATETIME': 'DateTime',
  'ZONED TIME': 'Time',
};

/**
 * `v IS :: type`: every type takes null (Neo4j's types are nullable) unless NOT NULL; NULL takes
 * only null, NOTHING nothing, ANY every value.
 */
export function isOfType(v: Value, type: string, notNull: boolean): boolean {
  if (v === null) return type === 'NULL' || (type !== 'NOTHING' && !notNull);
  if (type === 'ANY') return true;
  return typeName(v) === VALUE_TYPE[type];
}
