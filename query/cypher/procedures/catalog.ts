/**
 * The databases a server answers for (Bolt): the collections, the default database (listed
 * even before its first write makes it) and `system`, a read-only database that answers the
 * administration commands (SHOW DATABASES, SHOW PROCEDURES, ...) as Neo4j's does.
 */
export interface DatabaseCatalog {
  defaultName: string;
  names(): string[];
  /** Who runs the query (the Bolt principal) and whether the server checks credentials, for SHOW CURRENT USER and dbms.clientConfig(). */
  session?: { user: string; authEnabled: boolean };
}

export const SYSTEM_DATABASE = 'system';
