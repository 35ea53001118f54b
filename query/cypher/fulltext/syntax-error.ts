/**
 * A full-text query string Lucene's classic query parser would refuse: the message is the one
 * of its ParseException (`Cannot parse '<query>': ...`), columns counted from 0 as Lucene does.
 * The procedure that read the query turns it into Neo4j's ProcedureCallFailed.
 */
export class LuceneSyntaxError extends Error {}

export const luceneSyntaxError = (query: string, detail: string) => new LuceneSyntaxError(`Cannot parse '${query}': ${detail}`);

/** Lucene syntax this engine parses but does not run (regular expressions): refused by name, not as a syntax error. */
export class LuceneUnsupportedError extends Error {}
