import type { FunctionDef } from './functions.js';

/** The APOC release whose procedures this server answers to (apoc.meta.*, apoc.merge.*, apoc.schema.nodes). */
export const APOC_VERSION = '5.26.0';

/** Functions that describe the server: apoc.version(), which LangChain and the Neo4j MCP server call to check for APOC. */
export const SERVER_FUNCTIONS: Record<string, FunctionDef> = {
  'apoc.version': { minArgs: 0, maxArgs: 0, call: () => APOC_VERSION },
};
