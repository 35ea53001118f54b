/**
 * The databases a server answers for (Bolt): the collections, the default database (listed
 * even before its first write makes it) and `system`, a read-only database that answers the
 * administration commands (SHOW DATABASES, SHOW PROCEDURES, ...) as Neo4j's does.
 */
export interface DatabaseCatalog {
  defaultName: string;
  names(): string[];
}

export const SYSTEM_DATABASE = 'system';
