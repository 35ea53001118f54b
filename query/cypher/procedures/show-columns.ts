/**
 * The columns of SHOW INDEXES and SHOW CONSTRAINTS. Without YIELD, Neo4j answers the default
 * ones; YIELD * (or naming them) reaches the rest.
 */
export const INDEX_DEFAULT_COLUMNS = ['id', 'name', 'state', 'populationPercent', 'type', 'entityType', 'labelsOrTypes', 'properties', 'indexProvider', 'owningConstraint', 'lastRead', 'readCount'];
export const INDEX_COLUMNS = [...INDEX_DEFAULT_COLUMNS, 'trackedSince', 'options', 'failureMessage', 'createStatement'];

export const CONSTRAINT_DEFAULT_COLUMNS = ['id', 'name', 'type', 'entityType', 'labelsOrTypes', 'properties', 'ownedIndex', 'propertyType'];
export const CONSTRAINT_COLUMNS = [...CONSTRAINT_DEFAULT_COLUMNS, 'options', 'createStatement'];
