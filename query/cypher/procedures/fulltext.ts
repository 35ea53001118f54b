import { comparePointIds } from '../../../storage/point-id.js';
import type { EvalContext } from '../evaluate.js';
import type { FullTextIndex } from '../../../storage/views/fulltext-index.js';
import { rankIndexed, rankScanned } from '../fulltext/candidates.js';
import type { GraphTx } from '../graph-tx.js';
import { parseLuceneQuery } from '../fulltext/parser.js';
import type { LuceneQuery } from '../fulltext/query-tree.js';
import { queryTerms } from '../fulltext/scorer.js';
import { LuceneSyntaxError, LuceneUnsupportedError } from '../fulltext/syntax-error.js';
import { float } from '../numbers.js';
import { indexLabels, INDEXES, type IndexDef } from '../schema.js';
import { isMap, NodeRef, type Value } from '../values.js';
import { expectArg, integerArg, isString, procedureError, type Procedure, type ProcedureRow } from './types.js';

/**
 * The index's view (its postings, kept by the collection), when it answers for this query: the
 * index is committed and the query's transaction has written no node of its labels. Otherwise
 * (an index created in the transaction, or nodes written in it that the view does not hold
 * yet) the query analyses the index's nodes as the transaction sees them.
 */
function indexView(tx: GraphTx, index: IndexDef): FullTextIndex | null {
  if (tx.writesNodesWith(indexLabels(index))) return null;
  const committed = tx.collection.settings[INDEXES]?.[index.name] as IndexDef | null | undefined;
  if (!committed || committed.id !== index.id) return null;
  return tx.collection.fullTextIndex(indexLabels(index), index.properties);
}

/**
 * db.index.fulltext.queryNodes(index, query [, {limit, skip}]) YIELD node, score: the nodes of the
 * index's labels that match the query, written in Lucene's classic query syntax as Neo4j reads
 * it (query/cypher/fulltext/), best first. Each indexed property is a field with its own BM25
 * statistics, read from the index's postings (or gathered over its nodes) before they are scored.
 */
function queryNodes(args: Value[], ctx: EvalContext): ProcedureRow[] {
  const p = 'db.index.fulltext.queryNodes';
  const name = expectArg(p, 0, args[0]!, isString, 'an index name');
  const text = expectArg(p, 1, args[1]!, isString, 'a query string');
  const options = args[2] ?? null;
  if (options !== null && !isMap(options)) throw procedureError('ProcedureCallFailed', `${p}: argument 3 must be a map of options ({limit, skip})`);
  const unknown = Object.keys(options ?? {}).find((k) => k !== 'limit' && k !== 'skip');
  if (unknown !== undefined) throw procedureError('ProcedureCallFailed', `${p} does not take the option \`${unknown}\`; it takes limit and skip`);
  const limit = options?.limit !== undefined && options.limit !== null ? integerArg(p, 2, options.limit) : Infinity;
  const skip = options?.skip !== undefined && options.skip !== null ? integerArg(p, 2, options.skip) : 0;
  const index = ctx.tx.schema.index(name);
  if (!index || index.type !== 'FULLTEXT') throw procedureError('ProcedureCallFailed', `${p}: there is no full-text index called \`${name}\``);
  let query: LuceneQuery | null;
  try {
    query = parseLuceneQuery(text);
  } catch (err) {
    if (err instanceof LuceneUnsupportedError) throw procedureError('ProcedureCallFailed', `${p}: ${err.message}`);
    if (!(err instanceof LuceneSyntaxError)) throw err;
    throw procedureError('ProcedureCallFailed', `Failed to invoke procedure \`${p}\`: Caused by: org.apache.lucene.queryparser.classic.ParseException: ${err.message}`);
  }
  if (query === null) return [];
  const { tx, guard } = ctx;
  let held = 0;
  const budget = {
    step: () => guard.step(),
    hold: (bytes: number, what: string) => {
      guard.charge(bytes, what);
      held += bytes;
    },
  };
  const terms = queryTerms(query);
  const view = indexView(tx, index);
  const labels = indexLabels(index);
  const nodes = () => (labels.length === 1 ? tx.nodesWithLabel(labels[0]!) : [...new Set(labels.flatMap((l) => tx.nodesWithLabel(l)))]);
  const scored = view ? rankIndexed(view, query, terms, budget) : rankScanned(nodes(), (id) => tx.payloadOf(id), index.properties, query, terms, budget);
  guard.release(held);
  scored.sort((a, b) => b.score - a.score || comparePointIds(a.id, b.id));
  return scored.slice(skip, skip + limit).map((s) => ({ node: new NodeRef(s.id), score: float(s.score) }));
}

export const FULLTEXT_PROCEDURES: Procedure[] = [
  {
    name: 'db.index.fulltext.querynodes',
    display: 'db.index.fulltext.queryNodes',
    mode: 'read',
    minArgs: 2,
    maxArgs: 3,
    outputs: ['node', 'score'],
    run: (args, ctx) => queryNodes(args, ctx),
  },
];
