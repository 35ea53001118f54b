/** Cypher's clause words and the functions the server knows (README, Graph queries), offered by completion. */
export const KEYWORDS = [
  'MATCH', 'OPTIONAL MATCH', 'WHERE', 'RETURN', 'WITH', 'ORDER BY', 'SKIP', 'LIMIT', 'UNWIND', 'CREATE', 'MERGE', 'ON CREATE SET', 'ON MATCH SET',
  'SET', 'REMOVE', 'DELETE', 'DETACH DELETE', 'DISTINCT', 'AS', 'AND', 'OR', 'XOR', 'NOT', 'IN', 'IS NULL', 'IS NOT NULL', 'STARTS WITH',
  'ENDS WITH', 'CONTAINS', 'CASE', 'WHEN', 'THEN', 'ELSE', 'END', 'UNION', 'UNION ALL', 'ASC', 'DESC', 'true', 'false', 'null',
];

export const FUNCTIONS = [
  'id', 'labels', 'type', 'properties', 'keys', 'startNode', 'endNode', 'nodes', 'relationships', 'length', 'size', 'coalesce', 'head', 'last',
  'tail', 'reverse', 'range', 'toInteger', 'toFloat', 'toString', 'toBoolean', 'abs', 'ceil', 'floor', 'round', 'sign', 'sqrt', 'toLower',
  'toUpper', 'trim', 'lTrim', 'rTrim', 'split', 'substring', 'replace', 'left', 'right', 'count', 'sum', 'avg', 'min', 'max', 'collect',
  'date', 'datetime', 'localdatetime', 'localtime', 'time', 'duration', 'all', 'any', 'none', 'single', 'reduce', 'exists',
];
