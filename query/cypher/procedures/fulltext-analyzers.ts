import type { Procedure } from './types.js';

/**
 * db.index.fulltext.listAvailableAnalyzers(): the analyzers a full-text index can use. Here
 * there is one, Neo4j's default, which full-text indexes and queries follow (fulltext/).
 */
export const FULLTEXT_ANALYZERS_PROCEDURES: Procedure[] = [
  {
    name: 'db.index.fulltext.listavailableanalyzers',
    display: 'db.index.fulltext.listAvailableAnalyzers',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ['analyzer', 'description', 'stopwords'],
    run: () => [{ analyzer: 'standard-no-stop-words', description: 'The standard analyzer, but without any stop words.', stopwords: [] }],
  },
];
