import { APOC_PROCEDURES } from './apoc.js';
import { FULLTEXT_PROCEDURES } from './fulltext.js';
import { SCHEMA_PROCEDURES } from './schema-commands.js';
import { SYSTEM_PROCEDURES } from './system.js';
import type { Procedure } from './types.js';
import { VECTOR_PROCEDURES } from './vector.js';

/** Every procedure CALL can name (and the schema commands, under names starting with `$`), by lower-case name. */
export const PROCEDURES: ReadonlyMap<string, Procedure> = new Map([...SYSTEM_PROCEDURES, ...SCHEMA_PROCEDURES, ...VECTOR_PROCEDURES, ...FULLTEXT_PROCEDURES, ...APOC_PROCEDURES].map((p) => [p.name, p]));
