import { ADMINISTRATION_PROCEDURES } from './administration.js';
import { APOC_PROCEDURES } from './apoc.js';
import { APOC_CREATE_PROCEDURES } from './apoc-create.js';
import { APOC_SCHEMA_PROCEDURES } from './apoc-schema.js';
import { APOC_WHEN_PROCEDURES } from './apoc-when.js';
import { APOC_TYPE_PROPERTIES_PROCEDURES } from './apoc-type-properties.js';
import { APOC_UTIL_PROCEDURES } from './apoc-util.js';
import { APOC_PATH_PROCEDURES } from './apoc-path.js';
import { APOC_PERIODIC_PROCEDURES } from './apoc-periodic.js';
import { APOC_REFACTOR_PROCEDURES } from './apoc-refactor.js';
import { FULLTEXT_ANALYZERS_PROCEDURES } from './fulltext-analyzers.js';
import { FULLTEXT_PROCEDURES } from './fulltext.js';
import { META_GRAPH_PROCEDURES } from './meta-graph.js';
import { SCHEMA_PROCEDURES } from './schema-commands.js';
import { INTROSPECTION_PROCEDURES } from './schema-introspection.js';
import { SESSION_PROCEDURES } from './session.js';
import { SYSTEM_PROCEDURES } from './system.js';
import { PROCEDURE_COLUMNS } from './show-columns.js';
import { procedureReturns, returnDescription, signatureOf } from './signatures.js';
import type { Procedure } from './types.js';
import { VECTOR_PROCEDURES } from './vector.js';

const modeOf = (p: Procedure) => (p.name.startsWith('dbms.') ? 'DBMS' : p.mode.toUpperCase());

/** SHOW PROCEDURES: every procedure CALL can name, as Neo4j lists them. */
const SHOW_PROCEDURES: Procedure = {
  name: '$show.procedures',
  display: 'SHOW PROCEDURES',
  mode: 'read',
  minArgs: 0,
  maxArgs: 0,
  outputs: PROCEDURE_COLUMNS,
  run: () =>
    [...PROCEDURES.values()]
      .filter((p) => !p.name.startsWith('$'))
      .sort((a, b) => (a.display < b.display ? -1 : 1))
      .map((p) => ({
        name: p.display,
        description: '',
        mode: modeOf(p),
        worldAffecting: false,
        ...signatureOf(p.display, p.minArgs, p.maxArgs, procedureReturns(p.outputs)),
        returnDescription: returnDescription(p.outputs),
        admin: false,
        rolesExecution: null,
        rolesBoostedExecution: null,
        isDeprecated: false,
        deprecatedBy: null,
        option: {},
      })),
};

/** Every procedure CALL can name (and the schema and administration commands, under names starting with `$`), by lower-case name. */
export const PROCEDURES: ReadonlyMap<string, Procedure> = new Map(
  [
    ...SYSTEM_PROCEDURES,
    ...ADMINISTRATION_PROCEDURES,
    ...SESSION_PROCEDURES,
    SHOW_PROCEDURES,
    ...SCHEMA_PROCEDURES,
    ...INTROSPECTION_PROCEDURES,
    ...VECTOR_PROCEDURES,
    ...FULLTEXT_PROCEDURES,
    ...APOC_PROCEDURES,
    ...APOC_CREATE_PROCEDURES,
    ...APOC_SCHEMA_PROCEDURES,
    ...APOC_WHEN_PROCEDURES,
    ...APOC_UTIL_PROCEDURES,
    ...APOC_PATH_PROCEDURES,
    ...APOC_PERIODIC_PROCEDURES,
    ...APOC_REFACTOR_PROCEDURES,
    ...META_GRAPH_PROCEDURES,
    ...APOC_TYPE_PROPERTIES_PROCEDURES,
    ...FULLTEXT_ANALYZERS_PROCEDURES,
  ].map((p) => [p.name, p]),
);
