/**
 * The columns of SHOW INDEXES and SHOW CONSTRAINTS. Without YIELD, Neo4j answers the default
 * ones; YIELD * (or naming them) reaches the rest.
 */
export const INDEX_DEFAULT_COLUMNS = ['id', 'name', 'state', 'populationPercent', 'type', 'entityType', 'labelsOrTypes', 'properties', 'indexProvider', 'owningConstraint', 'lastRead', 'readCount'];
export const INDEX_COLUMNS = [...INDEX_DEFAULT_COLUMNS, 'trackedSince', 'options', 'failureMessage', 'createStatement'];

export const CONSTRAINT_DEFAULT_COLUMNS = ['id', 'name', 'type', 'entityType', 'labelsOrTypes', 'properties', 'ownedIndex', 'propertyType'];
export const CONSTRAINT_COLUMNS = [...CONSTRAINT_DEFAULT_COLUMNS, 'options', 'createStatement'];

/** The columns of SHOW PROCEDURES and SHOW FUNCTIONS, the default ones first (as Neo4j 5). */
export const PROCEDURE_DEFAULT_COLUMNS = ['name', 'description', 'mode', 'worldAffecting'];
export const PROCEDURE_COLUMNS = [...PROCEDURE_DEFAULT_COLUMNS, 'signature', 'argumentDescription', 'returnDescription', 'admin', 'rolesExecution', 'rolesBoostedExecution', 'isDeprecated', 'deprecatedBy', 'option'];

export const FUNCTION_DEFAULT_COLUMNS = ['name', 'category', 'description'];
export const FUNCTION_COLUMNS = [...FUNCTION_DEFAULT_COLUMNS, 'signature', 'isBuiltIn', 'argumentDescription', 'returnDescription', 'aggregating', 'rolesExecution', 'rolesBoostedExecution', 'isDeprecated', 'deprecatedBy'];
